//! A small deterministic random number generator.
//!
//! Generated programs must be reproducible from a seed forever: a fuzzer
//! corpus or a bug report names a seed, and the same seed has to give the same
//! program after dependency upgrades. Owning the (tiny) generator makes that a
//! property of this crate rather than of `rand`'s version policy.

/// SplitMix64 (Steele, Lea and Flood 2014): one 64-bit state word, fast, and
/// good enough for choosing among edges and literals.
#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator whose whole output is determined by `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng {
            state: seed ^ 0x6a09_e667_f3bc_c909,
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform number in `0..n`; `n` must not be 0.
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "Rng::below(0)");
        // Lemire's multiply-shift: unbiased enough for n far below 2^64.
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }

    /// A uniformly chosen element; `items` must not be empty.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let a: Vec<u64> = (0..8)
            .map({
                let mut r = Rng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        let mut r = Rng::new(7);
        assert!(a.iter().all(|&x| x == r.next_u64()));
        assert_ne!(Rng::new(8).next_u64(), a[0]);
    }

    /// The outputs are pinned: a change here changes every seed's program,
    /// which the module doc promises never happens. Do not update these
    /// constants to make the tests pass; restore the old stream instead.
    #[test]
    fn known_answers_next_u64() {
        // Cross-checked against an independent SplitMix64 in Python (state
        // = seed ^ 0x6a09_e667_f3bc_c909 as in `Rng::new`, then Vigna's
        // splitmix64.c step), which agrees on all eight.
        let first = |seed| {
            let mut r = Rng::new(seed);
            [r.next_u64(), r.next_u64(), r.next_u64(), r.next_u64()]
        };
        assert_eq!(
            first(0),
            [
                0x63cf_c62a_2b09_7592,
                0xdc07_46b4_1946_6aec,
                0x0826_4674_f98a_a19e,
                0x3ca4_eb47_b26d_e7ac,
            ]
        );
        assert_eq!(
            first(0x5eed),
            [
                0xd0b9_3cbd_d50c_3729,
                0x4ed4_9969_9c3b_ea4e,
                0xbfb1_502e_ef6e_3f75,
                0xda5d_eb34_625a_8fda,
            ]
        );
    }

    /// The step is SplitMix64's: started from state 1234567 (the seed that
    /// the xor in `Rng::new` turns into it), it gives the published
    /// reference outputs (Rosetta Code, "Pseudo-random numbers/Splitmix64").
    #[test]
    fn matches_the_splitmix64_reference() {
        let mut r = Rng::new(1_234_567 ^ 0x6a09_e667_f3bc_c909);
        let got: Vec<u64> = (0..5).map(|_| r.next_u64()).collect();
        assert_eq!(
            got,
            [
                6_457_827_717_110_365_317,
                3_203_168_211_198_807_973,
                9_817_491_932_198_370_423,
                4_593_380_528_125_082_431,
                16_408_922_859_458_223_821,
            ]
        );
    }

    /// `below`, `chance` and `pick` pinned for seed 42; the same Python
    /// stream with `(u * n) >> 64` agrees.
    #[test]
    fn known_answers_below_chance_pick() {
        let mut r = Rng::new(42);
        let below: Vec<usize> = [1, 2, 3, 10, 100, 1000, 7, 1_000_000_007]
            .iter()
            .map(|&n| r.below(n))
            .collect();
        assert_eq!(below, [0, 0, 1, 3, 0, 552, 2, 63_292_734]);
        let mut r = Rng::new(42);
        let chance: Vec<bool> = (0..8).map(|_| r.chance(1, 3)).collect();
        assert_eq!(chance, [false, true, false, false, true, false, true, true]);
        let mut r = Rng::new(42);
        let items = ["a", "b", "c", "d", "e"];
        let picked: String = (0..8).map(|_| *r.pick(&items)).collect();
        assert_eq!(picked, "ebbbacba");
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = Rng::new(1);
        let mut seen = [false; 5];
        for _ in 0..200 {
            seen[r.below(5)] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }
}
