//! `typed_query`: a typed target shaped like a regex engine's `FuzzCase`:
//! a `&str` pattern whose length `arbitrary` reads from the end of the
//! data, a collection of enum flags, an `Option`, and a `&str` haystack
//! that takes the rest. A glob matcher (`*`, `?`, and in multi-line mode
//! the lazy star `*?`) runs the pattern over the haystack.
//!
//! PLANTED BUG: in multi-line mode a lazy star looks at the literal after
//! it, `p[at + 2]` in `lazy_stop`, without checking that there is one, so
//! a `*?` at the end of the pattern reached by the matcher panics with
//! `index out of bounds: the len is {len} but the index is {len}`.
//!
//! Smallest failing value (its `Debug` form):
//! `Query { pattern: "*?", flags: [Multiline], limit: None, haystack: "" }`;
//! no character, element or field can be dropped or lowered (`Multiline`
//! is needed, `IgnoreCase` before it does not fail). Bytes, with
//! arbitrary 1.5: `*?\x01VUUU\x02`: the pattern, one more flag (`\x01`),
//! the flag's `u32` tag `0x55555556` (the lowest that picks the second of
//! three variants), the pattern's length (2) as the last byte; `limit` and
//! the haystack come out as `None` and `""` from the missing bytes.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

/// A matching option.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
enum Flag {
    IgnoreCase,
    Multiline,
    DotAll,
}

/// The fuzzer's input, decoded with `Arbitrary`.
#[derive(Arbitrary, Debug)]
struct Query<'a> {
    pattern: &'a str,
    flags: Vec<Flag>,
    limit: Option<u16>,
    haystack: &'a str,
}

/// Longest pattern and haystack matched (in characters).
const MAX_CHARS: usize = 64;

/// The literal a lazy star at `at` stops at: the one after the `*?`.
fn lazy_stop(p: &[char], at: usize) -> char {
    p[at + 2]
}

/// Whether the glob pattern `p` matches all of `t`: the usual linear
/// matcher that backtracks to the last `*`.
fn matches(p: &[char], t: &[char], flags: &[Flag]) -> bool {
    let multiline = flags.contains(&Flag::Multiline);
    let lazy = |at: usize| multiline && p[at] == '*' && p.get(at + 1) == Some(&'?');
    let same = |a: char, b: char| {
        a == b || (flags.contains(&Flag::IgnoreCase) && a.eq_ignore_ascii_case(&b))
    };
    let any = |c: char| c != '\n' || flags.contains(&Flag::DotAll);
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && lazy(pi) {
            // The lazy star stops at the first line end or at its literal.
            let stop = lazy_stop(p, pi);
            match t[ti..].iter().position(|&c| c == '\n' || same(c, stop)) {
                Some(i) => (pi, ti) = (pi + 2, ti + i),
                None => return false,
            }
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && ((p[pi] == '?' && any(t[ti])) || same(p[pi], t[ti])) {
            (pi, ti) = (pi + 1, ti + 1);
        } else if let Some((sp, st)) = star {
            (pi, ti) = (sp + 1, st + 1);
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        if lazy(pi) {
            let _ = lazy_stop(p, pi);
            pi += 1;
        }
        pi += 1;
    }
    pi == p.len()
}

fuzz_target!(|q: Query<'_>| {
    let pattern: Vec<char> = q.pattern.chars().collect();
    let limit = q.limit.map_or(usize::MAX, usize::from);
    let haystack: Vec<char> = q.haystack.chars().take(limit).collect();
    if pattern.len() > MAX_CHARS || haystack.len() > MAX_CHARS {
        return;
    }
    let _ = matches(&pattern, &haystack, &q.flags);
});
