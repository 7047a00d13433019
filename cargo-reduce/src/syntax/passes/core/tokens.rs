//! The token pass (the `tokens` part of a strategy), a round's last
//! step: ddmin over the tokens the tree passes left, syntax ignored, then
//! over runs of adjacent tokens, then punctuation cut short and pairs of
//! delimiters dropped.
//!
//! The tree passes remove only what the grammar lets go as a whole; a
//! token ddmin on what they leave removes the pieces no node boundary
//! separates, as C-Vise's token passes do.

use crate::engine::{OracleError, Start};
use crate::syntax::passes::edits::{reduce_edits, TreeEdit};
use crate::syntax::passes::render_oracle::Tester;
use crate::syntax::tree::{Change, NodeId, Tree};

/// Runs of up to this many adjacent tokens are atoms of the token pass
/// after single tokens.
const MAX_RUN: usize = 3;

/// ddmin over the remaining tokens, a removed token reading as nothing (a
/// `;` as a line break);
/// then over runs of two and three adjacent tokens, at every offset: a
/// result 1-minimal in tokens may still lose a run together (`= a` in
/// `type Output = a;`), as C-Vise's rm-toks passes find; last, punctuation
/// of several characters cut to its first, `{}` made `;`, and a pair of
/// delimiters dropped around what they hold.
pub(crate) fn token_pass(tree: &mut Tree, tester: &Tester) -> Result<bool, OracleError> {
    // Halves, not single tokens: what is left often goes only in pairs
    // (`: u64`), which single-token complements never find.
    let mut changed = token_runs(tree, 1, 0, Start::Halves, tester)?;
    for width in 2..=MAX_RUN {
        for offset in 0..width {
            changed |= token_runs(tree, width, offset, Start::Atoms, tester)?;
        }
    }
    changed |= shorten_tokens(tree, tester)?;
    Ok(changed)
}

/// Cuts each punctuation token of two or more characters (`::`, `->`) to
/// its first character, and makes each empty pair of braces a `;`, where
/// the failure stays: rustc reads a lone `:` as the path separator it
/// expected and `trait b;` as a trait without a body, with errors it
/// recovers from (as C-Vise's outputs show; JavaScript takes `;` for an
/// empty block). One character shorter each, and to a counter of `\w+`
/// and single symbols one token. Also drops each pair of delimiters
/// around something ([`delimiter_pairs`]).
fn shorten_tokens(tree: &mut Tree, tester: &Tester) -> Result<bool, OracleError> {
    let tokens = tree.tokens();
    let text = |id: NodeId| tree.leaf_text(id).unwrap_or_default();
    // Anonymous tokens only (their kind is their text): a literal's text
    // may be punctuation too (`""`).
    let anonymous = |id: NodeId| tree.node(id).kind.as_bytes() == text(id);
    let cuts: Vec<(NodeId, String)> = tokens
        .iter()
        .filter(|&&id| {
            let t = text(id);
            anonymous(id) && t.len() >= 2 && t.iter().all(u8::is_ascii_punctuation)
        })
        .map(|&id| (id, char::from(text(id)[0]).to_string()))
        .collect();
    let braces: Vec<(NodeId, NodeId)> = tokens
        .windows(2)
        .filter(|w| w.iter().all(|&t| anonymous(t)) && text(w[0]) == b"{" && text(w[1]) == b"}")
        .map(|w| (w[0], w[1]))
        .collect();
    let delimiters = delimiter_pairs(&tokens, &|id| anonymous(id).then(|| text(id)));
    let mut edits: Vec<TreeEdit> = cuts
        .into_iter()
        .map(|(id, first)| vec![(id, Change::Text(tree.intern(&first)))])
        .collect();
    let (semicolon, nothing) = (tree.intern(";"), tree.empty());
    edits.extend(braces.into_iter().map(|(open, close)| {
        vec![
            (open, Change::Text(semicolon)),
            (close, Change::Text(nothing)),
        ]
    }));
    edits.extend(delimiters.into_iter().map(|(open, close)| {
        vec![
            (open, Change::Text(nothing)),
            (close, Change::Text(nothing)),
        ]
    }));
    reduce_edits(tree, edits, Start::Atoms, tester)
}

/// The matched `()`, `[]` and `{}` around something among `tokens` (whose
/// `delimiter` text is given for anonymous tokens only): C-Vise's
/// balanced-delimiter move, which keeps what is inside (`use a::{b};` to
/// `use a::b;`, `(x)` to `x`). An empty pair is left to the other moves.
fn delimiter_pairs<'t>(
    tokens: &[NodeId],
    delimiter: &dyn Fn(NodeId) -> Option<&'t [u8]>,
) -> Vec<(NodeId, NodeId)> {
    let mut open: Vec<(usize, u8)> = Vec::new();
    let mut pairs = Vec::new();
    for (i, &id) in tokens.iter().enumerate() {
        match delimiter(id) {
            Some(&[c @ (b'(' | b'[' | b'{')]) => open.push((i, c)),
            Some(&[c @ (b')' | b']' | b'}')]) => {
                let opener = match c {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                // An unmatched closer (a test case need not parse) ends
                // nothing.
                if open.last().is_some_and(|&(_, o)| o == opener) {
                    let (start, _) = open.pop().expect("a matching opener");
                    if i > start + 1 {
                        pairs.push((tokens[start], id));
                    }
                }
            }
            _ => {}
        }
    }
    pairs
}

/// ddmin over the runs of `width` adjacent tokens that start at `offset`
/// and every `width` tokens after it, from granularity `start`.
fn token_runs(
    tree: &mut Tree,
    width: usize,
    offset: usize,
    start: Start,
    tester: &Tester,
) -> Result<bool, OracleError> {
    let empty = tree.intern("");
    let line_break = tree.intern("\n");
    let tokens = tree.tokens();
    // A `;` goes as a line break: where a statement ends matters to
    // rustc's recovery and to JavaScript's automatic semicolons, and the
    // layout pass removes the break where it does not.
    let removed = |id: NodeId| match tree.leaf_text(id) {
        Some(b";") => line_break,
        _ => empty,
    };
    let edits: Vec<TreeEdit> = tokens
        .get(offset..)
        .unwrap_or_default()
        .chunks_exact(width)
        .map(|run| {
            run.iter()
                .map(|&id| (id, Change::Text(removed(id))))
                .collect()
        })
        .collect();
    reduce_edits(tree, edits, start, tester)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::passes::testing::with_tester;
    use crate::syntax::tree::render_tree;
    use crate::syntax::{build_tree, Lang, Strategy};

    /// `x ( ) y` is 1-minimal in single tokens when the brackets must
    /// balance, and ddmin's halves (`x (`, `) y`) split the pair: only a
    /// run of two at offset 1 removes it.
    #[test]
    fn a_pair_that_goes_only_together_goes_as_a_run() {
        let input = b"x ( ) y";
        let mut tree = build_tree(input, Lang::JavaScript, &Strategy::Best.options());
        let oracle = |b: &[u8]| {
            let count = |c| b.iter().filter(|&&x| x == c).count();
            b.contains(&b'x') && b.contains(&b'y') && count(b'(') == count(b')')
        };
        with_tester(input, &oracle, |tester| {
            token_pass(&mut tree, tester).unwrap()
        });
        let out = String::from_utf8(render_tree(&tree)).unwrap();
        assert_eq!(out.split_whitespace().collect::<String>(), "xy", "{out:?}");
    }

    /// A statement's end may be a line break rather than a `;` (rustc's
    /// recovery, JavaScript's automatic semicolons): a removed `;` leaves
    /// one.
    #[test]
    fn a_semicolon_goes_as_a_line_break() {
        let input = b"a();b()";
        let mut tree = build_tree(input, Lang::JavaScript, &Strategy::Best.options());
        let oracle = |b: &[u8]| {
            let s = String::from_utf8_lossy(b);
            s.contains("a()") && s.contains("b()") && !s.contains(")b")
        };
        with_tester(input, &oracle, |tester| {
            token_pass(&mut tree, tester).unwrap()
        });
        assert_eq!(String::from_utf8(render_tree(&tree)).unwrap(), "a()\nb()");
    }

    /// `===` becomes `=` where the failure stays with one `=`, and `{}`
    /// becomes `;`; a string literal's quotes are no punctuation token and
    /// stay.
    #[test]
    fn punctuation_is_cut_and_empty_braces_become_a_semicolon() {
        let input = b"x === y; z = \"\"; if (x) {}";
        let mut tree = build_tree(input, Lang::JavaScript, &Strategy::Best.options());
        let oracle = |b: &[u8]| {
            let s = String::from_utf8_lossy(b);
            s.contains('x') && s.contains("= y") && s.contains("\"\"") && s.contains("if (x)")
        };
        with_tester(input, &oracle, |tester| {
            shorten_tokens(&mut tree, tester).unwrap()
        });
        assert_eq!(
            String::from_utf8(render_tree(&tree)).unwrap(),
            "x = y; z = \"\"; if (x);"
        );
    }

    /// A pair of delimiters goes around what it holds, the innermost
    /// first where they nest; an unmatched closer and an empty pair stay.
    #[test]
    fn delimiters_go_in_pairs_and_keep_what_they_hold() {
        let input = b"a = ((b)) + [c] + d(); }";
        let mut tree = build_tree(input, Lang::JavaScript, &Strategy::Best.options());
        let oracle = |b: &[u8]| {
            let s = String::from_utf8_lossy(b);
            ["a", "= (b)", "c", "d()", "}"]
                .iter()
                .all(|w| s.contains(w))
        };
        with_tester(input, &oracle, |tester| {
            shorten_tokens(&mut tree, tester).unwrap()
        });
        let out = String::from_utf8(render_tree(&tree)).unwrap();
        assert_eq!(out.split_whitespace().collect::<String>(), "a=(b)+c+d();}");
    }
}
