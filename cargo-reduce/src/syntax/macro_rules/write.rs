//! An expansion's tokens as text.

use proc_macro2::{Delimiter, Spacing, Span, TokenTree};

use crate::syntax::tokens::fuses;

/// Writes tokens with a space only where two would read as one
/// (proc-macro2 puts one between every two: an expansion replaces its
/// call only when the text gets shorter), and a line break where the
/// definition or the call had one between them: rustc's parser recovers
/// a missing `;` at the end of a line (`type Output` then `}` on the next
/// line), which a reduced macro body may still rely on.
#[derive(Default)]
pub(super) struct Writer {
    pub(super) out: String,
    last: Option<Span>,
    joint: bool,
}

impl Writer {
    pub(super) fn tokens(&mut self, tokens: &[TokenTree]) {
        for token in tokens {
            match token {
                TokenTree::Group(g) => {
                    let (open, close) = match g.delimiter() {
                        Delimiter::Parenthesis => ("(", ")"),
                        Delimiter::Brace => ("{", "}"),
                        Delimiter::Bracket => ("[", "]"),
                        Delimiter::None => ("", ""),
                    };
                    self.piece(open, g.span_open());
                    self.tokens(&g.stream().into_iter().collect::<Vec<_>>());
                    self.piece(close, g.span_close());
                }
                other => {
                    self.piece(&other.to_string(), other.span());
                    self.joint =
                        matches!(other, TokenTree::Punct(p) if p.spacing() == Spacing::Joint);
                }
            }
        }
    }

    fn piece(&mut self, text: &str, span: Span) {
        let Some(first) = text.bytes().next() else {
            return;
        };
        // Spans of one source text join; lines compare only within one.
        let new_line = self
            .last
            .is_some_and(|last| last.join(span).is_some() && span.start().line > last.end().line);
        let fused = self
            .out
            .bytes()
            .next_back()
            .is_some_and(|b| fuses(b, first));
        if new_line {
            self.out.push('\n');
        } else if fused && !self.joint {
            self.out.push(' ');
        }
        self.out.push_str(text);
        self.last = Some(span);
        self.joint = false;
    }
}
