//! The shortest string a token pattern matches, for Φ of `PATTERN` rules.
//!
//! The pattern is parsed with regex-syntax into its HIR and walked:
//! repetitions take their minimum count, alternations their shortest
//! branch, classes one member. Among a class's members a readable one is
//! preferred (`a` before `A` before `0` before `_` before other printable
//! ASCII), so the identifier pattern gives `a`, not `_` or a control byte.

use regex_syntax::hir::{Class, Hir, HirKind};
use regex_syntax::ParserBuilder;

/// Class members tried first, in order.
const PREFERRED: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";

/// The shortest string matching `pattern` (JavaScript-style flags: `i`
/// for case-insensitive), or `None` when regex-syntax cannot read it or it
/// matches nothing.
pub(super) fn shortest_match(pattern: &str, flags: &str) -> Option<String> {
    let hir = ParserBuilder::new()
        .case_insensitive(flags.contains('i'))
        .utf8(false)
        .build()
        .parse(pattern)
        .ok()?;
    shortest(&hir)
}

fn shortest(hir: &Hir) -> Option<String> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Some(String::new()),
        HirKind::Literal(lit) => Some(String::from_utf8_lossy(&lit.0).into_owned()),
        HirKind::Class(class) => pick(class).map(String::from),
        HirKind::Repetition(rep) => Some(shortest(&rep.sub)?.repeat(rep.min as usize)),
        HirKind::Capture(cap) => shortest(&cap.sub),
        HirKind::Concat(subs) => subs.iter().map(shortest).collect(),
        HirKind::Alternation(subs) => subs.iter().filter_map(shortest).min_by_key(String::len),
    }
}

/// A readable member of `class`.
fn pick(class: &Class) -> Option<char> {
    let ranges: Vec<(char, char)> = match class {
        Class::Unicode(c) => c.ranges().iter().map(|r| (r.start(), r.end())).collect(),
        Class::Bytes(c) => c
            .ranges()
            .iter()
            .filter(|r| r.start() < 0x80)
            .map(|r| (char::from(r.start()), char::from(r.end().min(0x7f))))
            .collect(),
    };
    let contains = |ch: char| ranges.iter().any(|&(lo, hi)| lo <= ch && ch <= hi);
    let printable = ('!'..='~').chain([' ']);
    PREFERRED
        .chars()
        .chain(printable)
        .find(|&ch| contains(ch))
        .or_else(|| ranges.first().map(|r| r.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_strings_of_typical_token_patterns() {
        assert_eq!(
            shortest_match(r"[_\p{XID_Start}][_\p{XID_Continue}]*", ""),
            Some("a".into())
        );
        assert_eq!(shortest_match(r"[0-9][0-9_]*", ""), Some("0".into()));
        assert_eq!(shortest_match(r"(abc|de)+f?", ""), Some("de".into()));
        assert_eq!(shortest_match(r"[^\x00-\x1F]", ""), Some("a".into()));
        assert_eq!(
            shortest_match(r"\\u\{[0-9a-f]+\}", "i"),
            Some(r"\u{a}".into())
        );
        assert_eq!(shortest_match(r"[\s\p{Zs}\uFEFF]", ""), Some(" ".into()));
        assert_eq!(shortest_match(r"[", ""), None);
    }
}
