//! The order the search descends: shorter first, then lexicographically
//! by each byte's *rank*, where the fill character ranks lowest.
//!
//! Every accepted candidate is strictly smaller in this order, and there
//! are finitely many byte strings no longer than the input, so the search
//! ends. Ranking [`FILL`] lowest keeps canonicalization's choice: a run of
//! irrelevant bytes became `0` to stay readable, and no same-length
//! candidate may "lower" it to `\0`; every other value keeps its numeric
//! place, so lowering a size byte is progress as canonicalization sees it.

use crate::engine::canonical::FILL;

/// The rank of `byte`: [`FILL`] is 0, values below it are shifted up by
/// one, values above it keep their number (a bijection on `u8`).
pub(super) fn rank(byte: u8) -> u8 {
    match byte {
        FILL => 0,
        b if b < FILL => b + 1,
        b => b,
    }
}

/// The byte of rank `r` (the inverse of [`rank`]).
pub(super) fn unrank(r: u8) -> u8 {
    match r {
        0 => FILL,
        r if r <= FILL => r - 1,
        r => r,
    }
}

/// True when `a` comes strictly before `b`: shorter, or as long and
/// lexicographically smaller by rank.
pub(crate) fn smaller(a: &[u8], b: &[u8]) -> bool {
    parts_smaller(&[a], b)
}

/// [`smaller`] for the concatenation of `parts`, without building it.
/// Most of an edited input is `b`'s own bytes at their own place: such a
/// part is skipped unread, and every other is compared at `memcmp`'s speed
/// until the first difference (the move pass looks at thousands of edits
/// of one input).
pub(super) fn parts_smaller(parts: &[&[u8]], b: &[u8]) -> bool {
    let len: usize = parts.iter().map(|p| p.len()).sum();
    if len != b.len() {
        return len < b.len();
    }
    let mut at = 0;
    for part in parts {
        let same = &b[at..at + part.len()];
        if !std::ptr::eq(part.as_ptr(), same.as_ptr()) && part != &same {
            let (x, y) = part
                .iter()
                .zip(same)
                .find(|(x, y)| x != y)
                .expect("unequal slices of one length differ somewhere");
            return rank(*x) < rank(*y);
        }
        at += part.len();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_is_a_bijection_with_fill_first() {
        let mut seen = [false; 256];
        for b in 0..=255u8 {
            assert_eq!(unrank(rank(b)), b);
            seen[usize::from(rank(b))] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(rank(FILL), 0);
        assert!(rank(0) < rank(1) && rank(FILL - 1) < rank(FILL + 1));
    }

    #[test]
    fn shorter_first_then_by_rank() {
        assert!(smaller(b"zz", b"aaa"));
        assert!(smaller(b"a0", b"a\x00"), "the fill character ranks lowest");
        assert!(smaller(b"a\x00", b"a\x01"));
        assert!(!smaller(b"abc", b"abc"));
        assert!(parts_smaller(&[b"a", b"", b"b"], b"ac"));
        assert!(!parts_smaller(&[b"a", b"c"], b"ac"));
        let b = b"0123456789";
        let moved: [&[u8]; 4] = [&b[..2], &b[5..7], &b[2..5], &b[7..]];
        assert!(
            parts_smaller(&[&b[..2], b"1", &b[3..]], b),
            "a lower middle byte"
        );
        assert!(
            !parts_smaller(&moved, b),
            "a later chunk moved forward: 0156234789"
        );
        let c = b"0312";
        assert!(
            parts_smaller(&[&c[..1], &c[2..3], &c[1..2], &c[3..]], c),
            "0132"
        );
    }
}
