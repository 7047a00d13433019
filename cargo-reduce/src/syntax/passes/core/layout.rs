//! The final layout (the `layout` part of a strategy): whitespace cut to
//! what the lexer needs.
//!
//! Every other pass keeps each token's original whitespace, so the
//! result reads like the input; but the indentation and spaces of a
//! 30-token program can be a third of its bytes (`impl b { fn a(self) {`
//! is `impl b{fn a(self){`). This pass reparses the result and rewrites
//! each gap between tokens, in three steps that each keep only what the
//! oracle allows (all at once first, then ddmin over the gaps):
//! 1. a gap with a line break becomes one `\n`, any other one space;
//! 2. a gap becomes the least that keeps its two tokens apart: nothing,
//!    a space where they would fuse (`let x`, `- -`, `b "x"`), a line
//!    break after a line comment;
//! 3. a space between two operator characters goes where the oracle
//!    allows (`=-1` and `->&` lex apart, `- -1` in JavaScript does not).
//!
//! A line break that matters (JavaScript's automatic semicolons) is a gap
//! the oracle keeps at step 2. The text before the first token and after
//! the last goes too.

use crate::engine::{OracleError, Start};
use crate::syntax::lang::Spec;
use crate::syntax::parse::parse;
use crate::syntax::passes::edits::choose;
use crate::syntax::passes::render_oracle::Tester;
use crate::syntax::tokens::{fuses, operator, word};
use crate::syntax::tree::Body;

/// Rewrites the whitespace of `text` (known interesting) as far as the
/// oracle allows. `text` becomes the result, also when an oracle error
/// stops the pass (then with what was kept before it).
pub(crate) fn layout_pass(
    text: &mut Vec<u8>,
    spec: &Spec,
    tester: &Tester,
) -> Result<(), OracleError> {
    let Some(mut pieces) = Pieces::of(text, spec) else {
        return Ok(());
    };
    for step in [Pieces::collapsed, Pieces::least, Pieces::touching] {
        let result = pieces.apply(step, tester);
        *text = pieces.render(&|_| None);
        result?;
    }
    Ok(())
}

/// A text as the gaps between its tokens: `gaps[i]` precedes
/// `tokens[i]`; the last gap is what follows the last token.
struct Pieces {
    gaps: Vec<Vec<u8>>,
    tokens: Vec<Vec<u8>>,
    /// `tokens[i]` ends a line comment.
    ends_line: Vec<bool>,
}

impl Pieces {
    /// The tokens of a fresh parse of `text`; `None` when they and their
    /// gaps do not add up to `text` (then the pass leaves it alone).
    fn of(text: &[u8], spec: &Spec) -> Option<Pieces> {
        let tree = parse(text, spec, true)?;
        let mut pieces = Pieces {
            gaps: Vec::new(),
            tokens: Vec::new(),
            ends_line: Vec::new(),
        };
        let mut stack = vec![(tree.root(), false)];
        while let Some((id, in_comment)) = stack.pop() {
            // A line comment's line ends after its last token.
            let ends_line = in_comment || tree.node(id).ends_line;
            if let Body::Token { start, end } = tree.node(id).body {
                pieces.gaps.push(tree.source(tree.node(id).gap).to_vec());
                pieces.tokens.push(tree.source((start, end)).to_vec());
                pieces.ends_line.push(ends_line);
            }
            let children = tree.children(id);
            let last = children.len().saturating_sub(1);
            let flags = children.iter().enumerate().rev();
            stack.extend(flags.map(|(i, &c)| (c, ends_line && i == last)));
        }
        pieces.gaps.push(tree.source(tree.tail()).to_vec());
        (pieces.render(&|_| None) == text).then_some(pieces)
    }

    /// Step 1: the gap `i` as one line break or one space.
    fn collapsed(&self, i: usize) -> Vec<u8> {
        let gap = &self.gaps[i];
        if gap.contains(&b'\n') {
            b"\n".to_vec()
        } else if gap.is_empty() {
            Vec::new()
        } else {
            b" ".to_vec()
        }
    }

    /// Step 2: the least gap `i` can be: nothing at the ends, a line
    /// break after a line comment, a space between tokens that would
    /// fuse, else nothing.
    fn least(&self, i: usize) -> Vec<u8> {
        let (Some(before), Some(after)) = (i.checked_sub(1), self.tokens.get(i)) else {
            return Vec::new();
        };
        if self.ends_line[before] {
            return b"\n".to_vec();
        }
        let (last, first) = (self.tokens[before].last(), after.first());
        match (last, first) {
            (Some(&a), Some(&b)) if apart(a, b) => b" ".to_vec(),
            _ => Vec::new(),
        }
    }

    /// Step 3: no space between operator characters (step 2's rule is
    /// the lexers' worst case; most such pairs do not fuse).
    fn touching(&self, i: usize) -> Vec<u8> {
        let op = |c: Option<&u8>| c.is_some_and(|&c| operator(c));
        let after = self.tokens.get(i).and_then(|t| t.first());
        let between_ops = i > 0 && op(self.tokens[i - 1].last()) && op(after);
        if between_ops && self.gaps[i] == b" " {
            Vec::new()
        } else {
            self.gaps[i].clone()
        }
    }

    /// Applies as many of `step`'s gaps as the oracle allows (those
    /// shorter than the gap they replace).
    fn apply(
        &mut self,
        step: fn(&Self, usize) -> Vec<u8>,
        tester: &Tester,
    ) -> Result<(), OracleError> {
        let edits: Vec<(usize, Vec<u8>)> = (0..self.gaps.len())
            .map(|i| (i, step(self, i)))
            .filter(|(i, gap)| gap.len() < self.gaps[*i].len())
            .collect();
        let render = |applied: &dyn Fn(usize) -> bool| {
            let mut new: Vec<Option<&[u8]>> = vec![None; self.gaps.len()];
            for (k, (i, gap)) in edits.iter().enumerate() {
                if applied(k) {
                    new[*i] = Some(gap);
                }
            }
            self.render(&|i| new[i])
        };
        let (applied, error) = choose(edits.len(), Start::Halves, tester, &render);
        if applied.iter().any(|&a| a) {
            for ((i, gap), _) in edits.into_iter().zip(&applied).filter(|(_, &a)| a) {
                self.gaps[i] = gap;
            }
            tester.accept(&self.render(&|_| None));
        }
        error.map_or(Ok(()), Err)
    }

    /// The text, with gap `i` replaced by `gap(i)` where that is `Some`.
    fn render<'g>(&self, gap: &dyn Fn(usize) -> Option<&'g [u8]>) -> Vec<u8> {
        let mut out = Vec::new();
        for (i, old) in self.gaps.iter().enumerate() {
            out.extend_from_slice(gap(i).unwrap_or(old));
            if let Some(token) = self.tokens.get(i) {
                out.extend_from_slice(token);
            }
        }
        out
    }
}

/// Whether bytes `a` and `b` need a space between them: they would fuse
/// into one token ([`fuses`]), or a quote touches a word (`b"x"` is a
/// byte string and `"x"s` a suffixed literal in Rust).
fn apart(a: u8, b: u8) -> bool {
    let quote = |c: u8| c == b'"' || c == b'\'';
    fuses(a, b) || (word(a) && quote(b)) || (quote(a) && word(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::passes::testing::with_tester;
    use crate::syntax::Lang;

    /// The token texts of a fresh parse, `None` if it has a syntax error.
    fn tokens(lang: Lang, text: &[u8]) -> Option<Vec<Vec<u8>>> {
        let spec = lang.spec().unwrap();
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&spec.language).unwrap();
        if parser.parse(text, None).unwrap().root_node().has_error() {
            return None;
        }
        Some(Pieces::of(text, spec).unwrap().tokens)
    }

    /// Runs the pass on `input` with `oracle`; returns the text and the
    /// number of tests.
    fn layout(lang: Lang, input: &str, oracle: &(dyn Fn(&[u8]) -> bool + Sync)) -> (String, u64) {
        let (text, tests) = with_tester(input.as_bytes(), oracle, |tester| {
            let mut text = input.as_bytes().to_vec();
            layout_pass(&mut text, lang.spec().unwrap(), tester).unwrap();
            assert_eq!(tester.current_len(), text.len(), "the result was accepted");
            text
        });
        (String::from_utf8(text).unwrap(), tests)
    }

    /// An oracle that holds while the text still lexes to `input`'s tokens
    /// without a syntax error: what a compiler's failure needs of layout.
    fn same_tokens(lang: Lang, input: &str) -> impl Fn(&[u8]) -> bool + Sync {
        let want = tokens(lang, input.as_bytes()).unwrap();
        move |text| tokens(lang, text).as_ref() == Some(&want)
    }

    #[test]
    fn rust_whitespace_goes_where_tokens_do_not_fuse() {
        let input = "struct b {\n    c: String\n}\n\nimpl b { fn a(self) {\n        let a: u64 = self.c.len();\n    }\n}\n";
        let (out, _) = layout(Lang::Rust, input, &same_tokens(Lang::Rust, input));
        assert_eq!(
            out,
            "struct b{c:String}impl b{fn a(self){let a:u64=self.c.len();}}"
        );
    }

    #[test]
    fn spaces_stay_where_tokens_would_fuse_or_a_quote_touches_a_word() {
        let input = "fn f() -> &'static str { let x = - -1; return \"x\" }";
        let (out, _) = layout(Lang::Rust, input, &same_tokens(Lang::Rust, input));
        // Rust has no `--`: `--1` lexes as two minus signs.
        assert_eq!(out, "fn f()->&'static str{let x=--1;return \"x\"}");
    }

    #[test]
    fn line_breaks_that_asi_needs_are_kept_the_rest_go() {
        // `let a=1 let b=2` is a syntax error: the line break stays.
        // and JavaScript's `--` keeps `- -1` apart.
        let input = "let a = 1\n\n    let b = [a,\n  - -2]\n";
        let (out, _) = layout(
            Lang::JavaScript,
            input,
            &same_tokens(Lang::JavaScript, input),
        );
        assert_eq!(out, "let a=1\nlet b=[a,- -2]");
    }

    #[test]
    fn a_line_comment_ends_its_line() {
        let input = "f(); // note\n  g();\n";
        let (out, _) = layout(
            Lang::JavaScript,
            input,
            &same_tokens(Lang::JavaScript, input),
        );
        assert_eq!(out, "f();// note\ng();");
    }

    #[test]
    fn a_rejected_layout_is_undone() {
        // The failure needs the original indentation of `b` (say, an
        // oracle that greps for it): that gap keeps it, the others go.
        let input = "a;\n    b;\nc;\n";
        let (out, tests) = layout(Lang::JavaScript, input, &|t: &[u8]| {
            t.windows(5).any(|w| w == b"    b")
        });
        assert_eq!(out, "a;\n    b;c;");
        assert!(tests >= 2, "a rejected candidate was tested");
        let (out, _) = layout(Lang::JavaScript, input, &|t: &[u8]| t == input.as_bytes());
        assert_eq!(out, input, "nothing passes: nothing changes");
    }
}
