//! What a round keeps: only what a sequential run would have tested, so
//! that budgets and the cache, and through them the result, do not depend
//! on `-j` or on which parallel test finished first.

use std::sync::{Condvar, Mutex};

use super::*;
use crate::engine::testutil::InRounds;
use crate::engine::{ddmin, DdminOptions, Reducer};

/// Interesting when the candidate holds every byte of `needed`, in whole
/// rounds that run `ahead` candidates past the winner, as a worker pool's
/// other workers do while the winner runs.
fn holding(needed: &[u8], ahead: usize) -> InRounds<impl Fn(&[u8]) -> bool + Sync + '_> {
    InRounds::new(
        move |atoms: &[u8]| needed.iter().all(|b| atoms.contains(b)),
        ahead,
    )
}

/// ddmin of 0..40 under a test budget; the result and the tests it counted.
fn reduce(oracle: &dyn Oracle<u8>, max_tests: u64) -> (Vec<u8>, u64, usize) {
    let run = Reducer::new().jobs(2).max_tests(max_tests);
    let reduced = ddmin(
        (0..40).collect(),
        oracle,
        &DdminOptions::default(),
        &run.context(),
    )
    .unwrap();
    (reduced.atoms, run.tests(), run.cached_outcomes())
}

#[test]
fn outcomes_a_round_ran_past_its_winner_change_no_budget_and_no_cache() {
    let needed = vec![3, 17, 18, 31];
    for max_tests in [5, 20, 40, 1_000] {
        let sequential = reduce(&holding(&needed, 0), max_tests);
        for ahead in [1, 3, 100] {
            let parallel = reduce(&holding(&needed, ahead), max_tests);
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
    let run = Reducer::new().jobs(4);
    let ctx = run.context();
    let winner = ctx
        .first_interesting(&oracle, 4, &|i| Candidate::whole(&inputs[i]))
        .unwrap();
    assert_eq!(winner, Some(0));
    assert_eq!(*finished.0.lock().unwrap(), 3, "all four ran");
    assert_eq!(run.tests(), 1);
    assert_eq!(run.cached_outcomes(), 1);
}
