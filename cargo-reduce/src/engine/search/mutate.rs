//! libFuzzer-style mutations that never grow the input, drawn from a
//! seeded generator so a search is reproducible: the same input, oracle
//! and seed give the same candidates in the same order.
//!
//! A candidate stacks one to three mutations (libFuzzer's `MutateImpl`
//! stacks several too); the search keeps it only when it comes strictly
//! before the current input (see [`super::order`]).

use super::order::{rank, smaller, unrank};

/// SplitMix64 (Steele, Lea & Flood): one 64-bit state, a full period, and
/// good enough for choosing mutations.
#[derive(Debug, Clone)]
pub(super) struct Rng(u64);

impl Rng {
    /// A generator starting from `seed`.
    pub(super) fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub(super) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `1..=n` biased toward small ones (`n > 0`), as
    /// libFuzzer picks sizes.
    fn small(&mut self, n: usize) -> usize {
        let limit = 1 + self.below(n);
        1 + self.below(limit)
    }
}

/// How many kinds of mutation [`mutate_once`] chooses from.
const KINDS: usize = 8;

/// A random candidate from `b`: one to three stacked mutations; `None`
/// when the result does not come strictly before `b` (or, when
/// `same_length` is false, is not shorter).
pub(super) fn mutant(b: &[u8], rng: &mut Rng, same_length: bool) -> Option<Vec<u8>> {
    let mut v = b.to_vec();
    for _ in 0..1 + rng.below(3) {
        mutate_once(&mut v, rng);
    }
    let keep = if same_length {
        smaller(&v, b)
    } else {
        v.len() < b.len()
    };
    keep.then_some(v)
}

/// Applies one mutation that does not grow `v`.
fn mutate_once(v: &mut Vec<u8>, rng: &mut Rng) {
    let n = v.len();
    if n == 0 {
        return;
    }
    match rng.below(KINDS) {
        // EraseBytes.
        0 if n > 1 => {
            let k = rng.small((n / 2).max(1));
            let at = rng.below(n - k + 1);
            v.drain(at..at + k);
        }
        // ChangeByte, to one of lower rank.
        1 => {
            let i = rng.below(n);
            let r = rank(v[i]);
            if r > 0 {
                v[i] = unrank(rng.below(usize::from(r)) as u8);
            }
        }
        // ChangeBit, cleared.
        2 => {
            let i = rng.below(n);
            v[i] &= !(1 << rng.below(8));
        }
        // CopyPart, overwriting.
        3 if n > 1 => {
            let k = rng.small((n / 2).clamp(1, 16));
            let from = rng.below(n - k + 1);
            let to = rng.below(n - k + 1);
            v.copy_within(from..from + k, to);
        }
        // Erase 1–4 bytes and lower a trailing or nearby byte by as many:
        // the length field that counted them.
        4 if n > 2 => erase_counted(v, rng),
        // ChangeBinaryInteger, smaller: a 2-, 4- or 8-byte integer either
        // way round, minus a little or halved.
        5 if n > 1 => shrink_binary_integer(v, rng),
        // ChangeASCIIInteger, smaller: halved, decremented or zero.
        6 => shrink_ascii_integer(v, rng),
        // ShuffleBytes in a window of up to 8.
        7 if n > 1 => {
            let k = 2 + rng.below(n.min(8) - 1);
            let at = rng.below(n - k + 1);
            for i in (1..k).rev() {
                let j = rng.below(i + 1);
                v.swap(at + i, at + j);
            }
        }
        _ => {}
    }
}

/// Erases 1–4 bytes of `v` (at least three long) and lowers a trailing or
/// nearby byte by as many.
fn erase_counted(v: &mut Vec<u8>, rng: &mut Rng) {
    let n = v.len();
    let k = rng.small(4.min(n - 2));
    let at = rng.below(n - k + 1);
    v.drain(at..at + k);
    let m = v.len();
    let j = if rng.below(2) == 0 {
        m - 1 - rng.below(m.min(8))
    } else {
        let d = rng.below(17);
        (at + d).saturating_sub(8).min(m - 1)
    };
    v[j] = v[j].saturating_sub(k as u8);
}

/// Makes a 2-, 4- or 8-byte integer of `v` (at least two long), either
/// way round, smaller: minus a little, or halved.
fn shrink_binary_integer(v: &mut [u8], rng: &mut Rng) {
    let n = v.len();
    let width = [2, 4, 8][rng.below(3)].min(n);
    let at = rng.below(n - width + 1);
    let field = &mut v[at..at + width];
    let big_endian = rng.below(2) == 0;
    if big_endian {
        field.reverse();
    }
    let mut x = field
        .iter()
        .rev()
        .fold(0u64, |x, &b| (x << 8) | u64::from(b));
    x = if rng.below(2) == 0 {
        x.saturating_sub(1 + rng.below(16) as u64)
    } else {
        x / 2
    };
    for b in field.iter_mut() {
        *b = x as u8;
        x >>= 8;
    }
    if big_endian {
        field.reverse();
    }
}

/// Replaces one run of ASCII digits with a smaller number.
fn shrink_ascii_integer(v: &mut Vec<u8>, rng: &mut Rng) {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < v.len() {
        if v[i].is_ascii_digit() {
            let start = i;
            while i < v.len() && v[i].is_ascii_digit() {
                i += 1;
            }
            runs.push(start..i);
        } else {
            i += 1;
        }
    }
    if runs.is_empty() {
        return;
    }
    let run = runs.swap_remove(rng.below(runs.len()));
    let x = v[run.clone()].iter().fold(0u64, |x, &d| {
        x.saturating_mul(10).saturating_add(u64::from(d - b'0'))
    });
    let smaller = match rng.below(3) {
        0 => x / 2,
        1 => x.saturating_sub(1),
        _ => 0,
    };
    v.splice(run, smaller.to_string().into_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_is_splitmix64() {
        // The reference sequence for seed 0.
        let mut rng = Rng::new(0);
        assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }

    #[test]
    fn mutants_are_reproducible_and_never_larger() {
        let input = b"size=1234;name=abcdef;\x07\x01\xff".to_vec();
        let draw = |seed| {
            let mut rng = Rng::new(seed);
            (0..500)
                .filter_map(|_| mutant(&input, &mut rng, true))
                .collect::<Vec<_>>()
        };
        let first = draw(7);
        assert_eq!(first, draw(7));
        assert_ne!(first, draw(8));
        assert!(first.len() > 100, "{}", first.len());
        assert!(first.iter().all(|m| smaller(m, &input)));
        assert!(first.iter().any(|m| m.len() == input.len()));
        let mut rng = Rng::new(7);
        assert!((0..500)
            .filter_map(|_| mutant(&input, &mut rng, false))
            .all(|m| m.len() < input.len()));
    }

    #[test]
    fn ascii_integers_shrink() {
        let mut rng = Rng::new(1);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..50 {
            let mut v = b"n=250;".to_vec();
            shrink_ascii_integer(&mut v, &mut rng);
            seen.insert(v);
        }
        for expected in [&b"n=125;"[..], b"n=249;", b"n=0;"] {
            assert!(seen.contains(expected), "{seen:?}");
        }
    }
}
