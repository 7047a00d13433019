//! Oracles the unit tests share: ddmin's, the search's and the tester's
//! tests build theirs from these, and the engine benchmark shares
//! [`markers`] (the one part that needs only `std`). Under `engine/`, as
//! its tests are: outside it, a tester test → testutil → engine edge
//! would close a module circle.

mod markers;

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use crate::engine::{Cancel, Candidate, Oracle, OracleError, Outcome, RoundOracle};
pub(crate) use markers::holds_markers;

/// An oracle over a candidate's atoms as one slice (a copy), for tests
/// that state their oracle over `&[A]`.
pub(crate) fn on_atoms<A: Clone>(
    test: impl Fn(&[A]) -> bool + Sync,
) -> impl Fn(&Candidate<'_, A>) -> bool + Sync {
    move |c: &Candidate<'_, A>| test(&c.to_vec())
}

/// Whether `atoms` hold every one of `required`: the monotone oracle whose
/// only 1-minimal result is `required` itself.
pub(crate) fn contains_all<A: PartialEq>(atoms: &[A], required: &[A]) -> bool {
    required.iter().all(|r| atoms.contains(r))
}

/// Asserts that `result` is interesting and 1-minimal under `oracle`:
/// removing any one of its atoms (of two or more; the empty configuration
/// is never tested) makes it uninteresting.
pub(crate) fn assert_one_minimal(result: &[u32], oracle: &dyn Fn(&[u32]) -> bool) {
    assert!(oracle(result), "result {result:?} is not interesting");
    if result.len() < 2 {
        return;
    }
    for i in 0..result.len() {
        let mut smaller = result.to_vec();
        smaller.remove(i);
        assert!(
            !oracle(&smaller),
            "removing {} from {result:?} stays interesting",
            result[i]
        );
    }
}

/// An oracle that fails with `error` on the candidates `fails` picks (a
/// test's cue, such as "the 100th call" or "fewer than 8 atoms") and is
/// `test` on the others: a reduction it stops must still hand back the
/// best result so far.
pub(crate) struct FailsWhen<P, F> {
    pub(crate) fails: P,
    pub(crate) test: F,
    pub(crate) error: &'static str,
}

impl<A: Clone, P, F> Oracle<A> for FailsWhen<P, F>
where
    P: Fn(&[A]) -> bool + Sync,
    F: Fn(&[A]) -> bool + Sync,
{
    fn test(&self, c: &Candidate<'_, A>, _: &Cancel<'_>) -> Result<Option<Outcome>, OracleError> {
        let atoms = c.to_vec();
        if (self.fails)(&atoms) {
            return Err(self.error.into());
        }
        Ok(Some(Outcome::from_bool((self.test)(&atoms))))
    }
}

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
