//! Oracles the engine's unit tests share.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use super::{Cancel, Candidate, Oracle, OracleError, Outcome, RoundOracle};

/// A closure over a candidate's atoms, handed whole rounds as an in-process
/// worker pool takes them: it tests in order up to the first interesting
/// candidate and `ahead` more, as a pool's other workers run past the
/// winner while it runs (0: a sequential pool; 1: about `-j 2`).
pub(crate) struct InRounds<F> {
    pub(crate) test: F,
    pub(crate) ahead: usize,
}

impl<F> InRounds<F> {
    /// `test` in rounds, with `ahead` candidates run past each winner.
    pub(crate) fn new(test: F, ahead: usize) -> Self {
        InRounds { test, ahead }
    }
}

impl<A: Clone, F: Fn(&[A]) -> bool + Sync> Oracle<A> for InRounds<F> {
    fn test(&self, c: &Candidate<'_, A>, _: &Cancel<'_>) -> Result<Option<Outcome>, OracleError> {
        Ok(Some(Outcome::from_bool((self.test)(&c.to_vec()))))
    }

    fn rounds(&self) -> Option<&dyn RoundOracle<A>> {
        Some(self)
    }
}

impl<A: Clone, F: Fn(&[A]) -> bool + Sync> RoundOracle<A> for InRounds<F> {
    fn test_round(
        &self,
        candidates: &[Candidate<'_, A>],
    ) -> Result<Vec<Option<Outcome>>, OracleError> {
        let mut outcomes = vec![None; candidates.len()];
        let mut winner = None;
        for (i, c) in candidates.iter().enumerate() {
            if winner.is_some_and(|w| i > w + self.ahead) {
                break;
            }
            let outcome = Outcome::from_bool((self.test)(&c.to_vec()));
            outcomes[i] = Some(outcome);
            if outcome.is_interesting() && winner.is_none() {
                winner = Some(i);
            }
        }
        Ok(outcomes)
    }
}

/// A coin flipped by a hash of `seed` and a candidate's `content`: the
/// same content always lands the same way, so an oracle built on it is
/// deterministic but not monotone. True in about `one_in - 1` of `one_in`
/// contents.
pub(crate) fn hash_coin<T: Hash + ?Sized>(seed: u64, content: &T, one_in: u64) -> bool {
    let mut h = DefaultHasher::new();
    (seed, content).hash(&mut h);
    !h.finish().is_multiple_of(one_in)
}
