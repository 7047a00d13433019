//! What a round keeps: only what a sequential run would have tested, so
//! that budgets and the cache, and through them the result, do not depend
//! on `-j` or on which parallel test finished first.

use std::sync::{Condvar, Mutex};

use super::*;
use crate::engine::{ddmin, DdminOptions, RoundOracle};

/// A whole-round oracle over bytes, interesting when the candidate holds
/// every byte of `needed`. `ahead`: candidates it also runs past the
/// winner, as a worker pool's other workers do while the winner runs.
struct Rounds {
    needed: Vec<u8>,
    ahead: usize,
}

impl Rounds {
    fn outcome(&self, candidate: &Candidate<'_, u8>) -> Outcome {
        let atoms = candidate.to_vec();
        Outcome::from_bool(self.needed.iter().all(|b| atoms.contains(b)))
    }
}

impl Oracle<u8> for Rounds {
    fn test(&self, c: &Candidate<'_, u8>, _: &Cancel<'_>) -> Result<Option<Outcome>, OracleError> {
        Ok(Some(self.outcome(c)))
    }

    fn rounds(&self) -> Option<&dyn RoundOracle<u8>> {
        Some(self)
    }
}

impl RoundOracle<u8> for Rounds {
    fn test_round(
        &self,
        candidates: &[Candidate<'_, u8>],
    ) -> Result<Vec<Option<Outcome>>, OracleError> {
        let winner = candidates
            .iter()
            .position(|c| self.outcome(c).is_interesting());
        let last = winner.map_or(candidates.len(), |w| {
            (w + 1 + self.ahead).min(candidates.len())
        });
        Ok((0..candidates.len())
            .map(|i| (i < last).then(|| self.outcome(&candidates[i])))
            .collect())
    }
}

/// ddmin of 0..40 under a test budget; the result and the tests it counted.
fn reduce(oracle: &Rounds, max_tests: u64) -> (Vec<u8>, u64, usize) {
    let run = TestRun {
        limits: Limits::none().with_max_tests(max_tests),
        ..TestRun::new()
    };
    let reduced = ddmin(
        (0..40).collect(),
        oracle,
        &DdminOptions::default(),
        &run.ctx(2),
    )
    .unwrap();
    (reduced.atoms, run.counters.tests(), run.cache.len())
}

#[test]
fn outcomes_a_round_ran_past_its_winner_change_no_budget_and_no_cache() {
    let needed = vec![3, 17, 18, 31];
    for max_tests in [5, 20, 40, 1_000] {
        let sequential = reduce(
            &Rounds {
                needed: needed.clone(),
                ahead: 0,
            },
            max_tests,
        );
        for ahead in [1, 3, 100] {
            let parallel = reduce(
                &Rounds {
                    needed: needed.clone(),
                    ahead,
                },
                max_tests,
            );
            assert_eq!(parallel, sequential, "max_tests {max_tests}, ahead {ahead}");
        }
    }
}

/// Candidate `[0]` is interesting but finishes last, after the three
/// others of its round (run on other threads) have finished.
#[test]
fn tests_threads_ran_past_the_winner_are_neither_counted_nor_cached() {
    let finished = (Mutex::new(0), Condvar::new());
    let oracle = |c: &Candidate<'_, u8>| {
        let (count, changed) = &finished;
        if c.to_vec() == [0] {
            let mut count = count.lock().unwrap();
            while *count < 3 {
                count = changed.wait(count).unwrap();
            }
            return true;
        }
        *count.lock().unwrap() += 1;
        changed.notify_all();
        false
    };
    let inputs: Vec<[u8; 1]> = (0..4).map(|i| [i]).collect();
    let run = TestRun::new();
    let ctx = run.ctx(4);
    let winner = ctx
        .first_interesting(&oracle, 4, &|i| Candidate::whole(&inputs[i]))
        .unwrap();
    assert_eq!(winner, Some(0));
    assert_eq!(*finished.0.lock().unwrap(), 3, "all four ran");
    assert_eq!(run.counters.tests(), 1);
    assert_eq!(run.cache.len(), 1);
}
