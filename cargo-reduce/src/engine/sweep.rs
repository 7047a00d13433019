//! Which subsets and complements one round of ddmin tests, and in which order.
//!
//! A *sweep* is the work at one granularity: the configuration cut into
//! chunks, each chunk's complement tried once. Where Zeller's recursion
//! re-splits the configuration into `n - 1` chunks and starts over after
//! every successful complement, a sweep keeps the remaining chunks as they
//! are and resumes right after the removed one: the complements already
//! tried in this sweep are not tried again at this granularity. That saves
//! up to `n - 1` tests per removal; for a monotone oracle those retries could
//! never succeed anyway. 1-minimality still holds because the sweep at single
//! atom granularity is repeated until it removes nothing.
//!
//! Subsets (Zeller's "reduce to subset") are tried in the first round of a
//! sweep only: afterwards the chunks are the same chunks, already known not
//! to be interesting on their own.

use std::ops::Range;

use super::{split, Candidate};

/// The order in which chunks are visited.
///
/// ```
/// use cargo_reduce::{Candidate, DdminOptions, Iteration, Reducer};
///
/// let mut options = DdminOptions::default();
/// options.iteration = Iteration::Backward;
/// let one_bang = |c: &Candidate<'_, u8>| c.iter().any(|&b| b == b'!');
/// let reducer = Reducer::new().ddmin_options(options);
/// assert_eq!(reducer.ddmin(b"!ab!".to_vec(), &one_bang).unwrap().atoms, b"!");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Iteration {
    /// First chunk first.
    #[default]
    Forward,
    /// Last chunk first: better when the end of the input matters least.
    Backward,
}

/// One candidate of a round, by chunk index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pick {
    /// Keep only this chunk.
    Subset(usize),
    /// Remove this chunk.
    Complement(usize),
}

/// How a round is assembled from subsets and complements.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RoundShape {
    /// Try subsets at all.
    pub subsets: bool,
    /// Complements before subsets.
    pub complement_first: bool,
    /// Subsets and complements in one round (Hodován's combined step), so
    /// parallel jobs start on complements before every subset has finished.
    pub combined: bool,
}

/// The state of the sweep at the current granularity.
#[derive(Debug, Clone)]
pub(crate) struct Sweep {
    chunks: Vec<Range<usize>>,
    /// Chunk indices whose complement is still to be tried in this sweep.
    untested: Range<usize>,
    /// No round has run yet: subsets are still to be tried.
    fresh: bool,
    /// Something was removed during this sweep.
    removed: bool,
    iteration: Iteration,
}

/// What to do once a sweep has tried everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SweepEnd {
    /// A new sweep has started (finer, or the atom level again).
    Continue,
    /// Single atoms were tried and none could go: the configuration is
    /// 1-minimal.
    Minimal,
}

impl Sweep {
    /// A sweep over `len` atoms (`len ≥ 2`) cut into `n` chunks.
    pub(crate) fn new(len: usize, n: usize, iteration: Iteration) -> Self {
        let chunks = split::balanced(len, n.min(len));
        let untested = 0..chunks.len();
        Sweep {
            chunks,
            untested,
            fresh: true,
            removed: false,
            iteration,
        }
    }

    /// Turns `config` into the candidate `pick` stands for, in place: no
    /// allocation, so a large configuration shrinks by one `memmove`.
    pub(crate) fn apply<A>(&self, config: &mut Vec<A>, pick: Pick) {
        match pick {
            Pick::Subset(i) => {
                let keep = self.chunks[i].clone();
                config.truncate(keep.end);
                config.drain(..keep.start);
            }
            Pick::Complement(i) => {
                config.drain(self.chunks[i].clone());
            }
        }
    }

    /// The chunk ranges, over the current configuration.
    #[cfg(test)]
    fn chunks(&self) -> &[Range<usize>] {
        &self.chunks
    }

    /// The candidate `pick` stands for, over the current configuration.
    pub(crate) fn candidate<'a, A>(&self, config: &'a [A], pick: Pick) -> Candidate<'a, A> {
        match pick {
            Pick::Subset(i) => Candidate::subset(config, self.chunks[i].clone()),
            Pick::Complement(i) => Candidate::complement(config, self.chunks[i].clone()),
        }
    }

    /// The next round's candidates, as one group or, when not combined, as
    /// two groups to run one after the other.
    pub(crate) fn round(&self, shape: &RoundShape) -> Vec<Vec<Pick>> {
        let n = self.chunks.len();
        let with_subsets = shape.subsets && self.fresh && n >= 2;
        let subsets: Vec<Pick> = if with_subsets {
            self.ordered(0..n).map(Pick::Subset).collect()
        } else {
            Vec::new()
        };
        // With two chunks each complement is the other subset.
        let complements: Vec<Pick> = if with_subsets && n == 2 {
            Vec::new()
        } else {
            self.ordered(self.untested.clone())
                .map(Pick::Complement)
                .collect()
        };
        let (first, second) = if shape.complement_first {
            (complements, subsets)
        } else {
            (subsets, complements)
        };
        let groups = if shape.combined {
            vec![[first, second].concat()]
        } else {
            vec![first, second]
        };
        groups.into_iter().filter(|g| !g.is_empty()).collect()
    }

    fn ordered(&self, range: Range<usize>) -> Box<dyn Iterator<Item = usize>> {
        match self.iteration {
            Iteration::Forward => Box::new(range),
            Iteration::Backward => Box::new(range.rev()),
        }
    }

    /// Chunk `i` was removed from the configuration; resume after it.
    /// Returns false when fewer than two chunks are left, so the caller
    /// starts a new sweep.
    pub(crate) fn remove(&mut self, i: usize) -> bool {
        let gone = self.chunks.remove(i);
        for chunk in &mut self.chunks[i..] {
            *chunk = chunk.start - gone.len()..chunk.end - gone.len();
        }
        self.untested = match self.iteration {
            Iteration::Forward => i..self.chunks.len(),
            Iteration::Backward => self.untested.start..i,
        };
        self.fresh = false;
        self.removed = true;
        self.chunks.len() >= 2
    }

    /// The round found nothing: the sweep is over. Start the next one over
    /// `len` atoms, or report the configuration 1-minimal.
    pub(crate) fn finish(&mut self, len: usize) -> SweepEnd {
        let n = self.chunks.len();
        if n < len {
            *self = Sweep::new(len, (2 * n).min(len), self.iteration);
            SweepEnd::Continue
        } else if self.removed {
            *self = Sweep::new(len, len, self.iteration);
            SweepEnd::Continue
        } else {
            SweepEnd::Minimal
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(subsets: bool, complement_first: bool, combined: bool) -> RoundShape {
        RoundShape {
            subsets,
            complement_first,
            combined,
        }
    }

    #[test]
    fn two_chunks_with_subsets_skip_the_identical_complements() {
        let s = Sweep::new(10, 2, Iteration::Forward);
        let groups = s.round(&shape(true, false, true));
        assert_eq!(groups, vec![vec![Pick::Subset(0), Pick::Subset(1)]]);
    }

    #[test]
    fn order_follows_the_shape() {
        let s = Sweep::new(8, 4, Iteration::Backward);
        let groups = s.round(&shape(true, true, false));
        assert_eq!(
            groups[0],
            (0..4).rev().map(Pick::Complement).collect::<Vec<_>>()
        );
        assert_eq!(
            groups[1],
            (0..4).rev().map(Pick::Subset).collect::<Vec<_>>()
        );
    }

    #[test]
    fn removal_resumes_after_the_removed_chunk() {
        let mut s = Sweep::new(8, 4, Iteration::Forward);
        assert!(s.remove(1));
        assert_eq!(s.chunks(), &[0..2, 2..4, 4..6]);
        let groups = s.round(&shape(true, false, true));
        assert_eq!(groups, vec![vec![Pick::Complement(1), Pick::Complement(2)]]);
    }

    #[test]
    fn backward_removal_resumes_before_the_removed_chunk() {
        let mut s = Sweep::new(8, 4, Iteration::Backward);
        assert!(s.remove(2));
        let groups = s.round(&shape(false, false, true));
        assert_eq!(groups, vec![vec![Pick::Complement(1), Pick::Complement(0)]]);
    }

    #[test]
    fn apply_matches_the_candidate() {
        let config: Vec<u32> = (0..10).collect();
        let s = Sweep::new(10, 4, Iteration::Forward);
        for pick in [
            Pick::Subset(1),
            Pick::Complement(1),
            Pick::Subset(3),
            Pick::Complement(0),
        ] {
            let mut applied = config.clone();
            s.apply(&mut applied, pick);
            assert_eq!(applied, s.candidate(&config, pick).to_vec(), "{pick:?}");
        }
    }

    #[test]
    fn finish_refines_then_repeats_the_atom_level_until_nothing_goes() {
        let mut s = Sweep::new(6, 2, Iteration::Forward);
        assert_eq!(s.finish(6), SweepEnd::Continue);
        assert_eq!(s.chunks().len(), 4);
        assert_eq!(s.finish(6), SweepEnd::Continue);
        assert_eq!(s.chunks().len(), 6);
        s.remove(0);
        assert_eq!(s.finish(5), SweepEnd::Continue);
        assert_eq!(s.chunks().len(), 5);
        assert_eq!(s.finish(5), SweepEnd::Minimal);
    }
}
