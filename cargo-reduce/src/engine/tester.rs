//! One test of one candidate: cache lookup, budget, oracle, counters,
//! observer. Everything that runs a candidate — ddmin's rounds and a
//! caller's own first and last checks — goes through [`Context`], so tests
//! and cache hits are counted in one place.

use std::collections::HashSet;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use super::{
    parallel, Cancel, Candidate, Limits, Oracle, OracleError, Outcome, OutcomeCache, StopReason,
};

/// The candidates of a round without a whole-round oracle are looked up in
/// the cache in blocks: this many per job first, then twice as many in
/// each next block. Looking one up hashes it, a whole configuration of up
/// to megabytes, and most rounds end at one of their first candidates;
/// hashing the whole round first made the cache the engine's largest cost
/// on large inputs.
const FIRST_BLOCK: usize = 2;

/// What the cache lookups of one round found so far.
#[derive(Debug, Default)]
struct RoundScan {
    /// The keys of the round's candidates sent to be tested: a twin of one
    /// is not tested again.
    keys: HashSet<u128>,
    /// The candidates answered without a test, in order: with the cached
    /// outcome, or `None` for a twin of an earlier candidate.
    answered: Vec<(usize, Option<Outcome>)>,
}

/// Test and cache-hit counters, shared by every thread of a reduction.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    /// Oracle executions.
    pub tests: AtomicU64,
    /// Outcomes answered from the cache instead.
    pub cache_hits: AtomicU64,
}

impl Counters {
    /// Oracle executions so far.
    pub(crate) fn tests(&self) -> u64 {
        self.tests.load(Ordering::SeqCst)
    }

    /// Counts a test its caller ran outside the engine (a check of the
    /// original input or of the final result).
    pub(crate) fn add_test(&self) {
        self.tests.fetch_add(1, Ordering::SeqCst);
    }

    /// Cache hits so far.
    pub(crate) fn cache_hits(&self) -> u64 {
        self.cache_hits.load(Ordering::SeqCst)
    }
}

/// Receives progress events; every method has a no-op default.
pub(crate) trait Observer<A>: Sync {
    /// A test finished (or was answered from the cache).
    fn tested(&self, _outcome: Outcome, _counters: &Counters) {}
    /// The configuration shrank to `atoms`.
    fn reduced(&self, _atoms: &[A]) {}
    /// A reduction made of several steps (HDD's phases) begins step
    /// `name`; the steps' tests are the counters' growth in between.
    fn step(&self, _name: &'static str, _counters: &Counters) {}
}

/// The observer that ignores everything.
impl<A> Observer<A> for () {}

/// What a reduction runs with, besides the oracle: parallelism, limits,
/// cache, counters and observer.
pub(crate) struct Context<'a, A> {
    /// Parallel tests per round (1 = sequential).
    pub jobs: usize,
    /// Budgets and interrupt.
    pub limits: &'a Limits,
    /// Outcome cache; `None` runs every candidate.
    pub cache: Option<&'a OutcomeCache>,
    /// Counters (shared with the caller, who may count its own tests).
    pub counters: &'a Counters,
    /// Progress events.
    pub observer: &'a dyn Observer<A>,
}

impl<A> Context<'_, A> {
    /// Charges one test that its caller runs outside an oracle (a
    /// compilation read for its diagnostics, not judged): counted like a
    /// candidate's test, and refused (false) once a limit is reached.
    pub(crate) fn charge(&self) -> bool {
        self.limits.try_charge(&self.counters.tests)
    }

    /// The token a test run through this context is cancelled by: the
    /// deadline and the interrupt.
    pub(crate) fn cancel(&self) -> Cancel<'_> {
        Cancel::by_limits(self.limits)
    }

    /// Step `name` of the reduction begins (progress and statistics);
    /// one that begins once a limit or Ctrl-C stopped the reduction runs
    /// no test and is not listed.
    pub(crate) fn step(&self, name: &'static str) {
        if !self.limits.should_stop() {
            self.observer.step(name, self.counters);
        }
    }
}

impl<A: Hash> Context<'_, A> {
    /// Tests `candidate`, from the cache when possible, within the limits.
    /// `Ok(None)`: the test did not complete (refused by a limit, or
    /// cancelled).
    pub(crate) fn test<O: Oracle<A> + ?Sized>(
        &self,
        oracle: &O,
        candidate: &Candidate<'_, A>,
        cancel: &Cancel<'_>,
    ) -> Result<Option<Outcome>, OracleError> {
        let key = self.cache.map(|_| key_of(oracle, candidate));
        if let (Some(cache), Some(key)) = (self.cache, key) {
            if let Some(outcome) = cache.get(key) {
                self.counters.cache_hits.fetch_add(1, Ordering::SeqCst);
                self.observer.tested(outcome, self.counters);
                return Ok(Some(outcome));
            }
        }
        if !self.limits.try_charge(&self.counters.tests) {
            return Ok(None);
        }
        self.run(oracle, candidate, cancel, key)
    }

    /// Whether the candidate `candidate()` makes is interesting: a round
    /// of one (cached, counted, within the limits).
    pub(crate) fn is_interesting<'c, O>(
        &self,
        oracle: &O,
        candidate: &(dyn Fn() -> Candidate<'c, A> + Sync),
    ) -> Result<bool, OracleError>
    where
        O: Oracle<A> + ?Sized,
        A: Sync + 'c,
    {
        let found = self.first_interesting(oracle, 1, &|_| candidate())?;
        Ok(found.is_some())
    }

    /// Tests a round: candidate `i` is `candidate(i)` for `i < count`;
    /// returns the lowest interesting index, every index below it tested.
    /// Whole-round oracles get the uncached part of the round at once;
    /// others run it on `jobs` threads, in blocks (see [`FIRST_BLOCK`]).
    ///
    /// Only what a sequential run would have tested is kept: the outcomes
    /// of candidates above the winner, which parallel workers may have run
    /// meanwhile, are neither counted nor cached, and neither are the cache
    /// hits above it. Test counts drive the budgets (`--max-tests`, the
    /// typed passes' and the searches'), and the cache decides which later
    /// candidates cost a test, so keeping them would make the result
    /// depend on `-j` and on timing.
    pub(crate) fn first_interesting<'c, O>(
        &self,
        oracle: &O,
        count: usize,
        candidate: &(dyn Fn(usize) -> Candidate<'c, A> + Sync),
    ) -> Result<Option<usize>, OracleError>
    where
        O: Oracle<A> + ?Sized,
        A: Sync + 'c,
    {
        let mut scan = RoundScan::default();
        let mut block = match (oracle.rounds(), self.cache) {
            (None, Some(_)) => self.jobs.max(1) * FIRST_BLOCK,
            // A pool gets its round at once; without a cache nothing is hashed.
            _ => count,
        };
        let mut from = 0usize;
        let found = loop {
            let to = from.saturating_add(block).min(count);
            let (pending, cached) = self.uncached(oracle, from..to, candidate, &mut scan);
            let (winner, complete) = self.test_pending(oracle, pending, candidate)?;
            if !complete && winner.is_none() {
                // Stopped: a winner the cache already knows is still taken.
                let rest = || self.uncached(oracle, to..count, candidate, &mut scan).1;
                break cached.or_else(rest);
            }
            match winner.or(cached) {
                Some(found) => break Some(found),
                None if to == count => break None,
                None => (from, block) = (to, block.saturating_mul(2)),
            }
        };
        self.count_answered(&scan, found);
        Ok(found)
    }

    /// Tests `pending` within the budget; the winner, and whether every
    /// candidate of `pending` was tested (false: the budget or a limit
    /// stopped the run first).
    fn test_pending<'c, O>(
        &self,
        oracle: &O,
        mut pending: Vec<(usize, Option<u128>)>,
        candidate: &(dyn Fn(usize) -> Candidate<'c, A> + Sync),
    ) -> Result<(Option<usize>, bool), OracleError>
    where
        O: Oracle<A> + ?Sized,
        A: Sync + 'c,
    {
        let budget = self.limits.remaining_tests(self.counters.tests());
        let cut = pending.len() as u64 > budget;
        pending.truncate(budget.min(pending.len() as u64) as usize);
        if pending.is_empty() {
            if cut {
                self.limits.stop(StopReason::MaxTests);
            }
            return Ok((None, !cut));
        }
        if self.limits.should_stop() {
            return Ok((None, false));
        }
        let outcomes = match oracle.rounds() {
            Some(rounds) => {
                let candidates: Vec<_> = pending.iter().map(|&(i, _)| candidate(i)).collect();
                rounds.test_round(&candidates)?
            }
            None => self.on_threads(oracle, &pending, candidate)?,
        };
        let winner = self.keep_sequential(&pending, outcomes);
        if cut && winner.is_none() {
            self.limits.stop(StopReason::MaxTests);
        }
        Ok((winner, !cut))
    }

    /// The candidates of `range` that need a test, with their cache keys,
    /// up to the first one the cache knows to be interesting (returned
    /// too). A candidate equal to an earlier one of the round is left out:
    /// its twin's outcome is its own, and the twin comes first (the chunks
    /// of a uniform input all leave the same content).
    fn uncached<'c, O: Oracle<A> + ?Sized>(
        &self,
        oracle: &O,
        range: std::ops::Range<usize>,
        candidate: &dyn Fn(usize) -> Candidate<'c, A>,
        scan: &mut RoundScan,
    ) -> (Vec<(usize, Option<u128>)>, Option<usize>)
    where
        A: 'c,
    {
        let mut pending = Vec::new();
        for i in range {
            let key = self.cache.map(|_| key_of(oracle, &candidate(i)));
            match self.cache.zip(key).and_then(|(cache, key)| cache.get(key)) {
                Some(outcome) => {
                    scan.answered.push((i, Some(outcome)));
                    if outcome.is_interesting() {
                        return (pending, Some(i));
                    }
                }
                None if key.is_some_and(|key| !scan.keys.insert(key)) => {
                    scan.answered.push((i, None));
                }
                None => pending.push((i, key)),
            }
        }
        (pending, None)
    }

    /// Counts and reports the candidates of a round answered without a
    /// test, up to its winner `found`.
    fn count_answered(&self, scan: &RoundScan, found: Option<usize>) {
        let up_to = found.unwrap_or(usize::MAX);
        for &(_, outcome) in scan.answered.iter().take_while(|(i, _)| *i <= up_to) {
            self.counters.cache_hits.fetch_add(1, Ordering::SeqCst);
            if let Some(outcome) = outcome {
                self.observer.tested(outcome, self.counters);
            }
        }
    }

    /// Runs the `pending` candidates on `jobs` threads, lowest index
    /// first; the outcome of each that ran to completion.
    fn on_threads<'c, O>(
        &self,
        oracle: &O,
        pending: &[(usize, Option<u128>)],
        candidate: &(dyn Fn(usize) -> Candidate<'c, A> + Sync),
    ) -> Result<Vec<Option<Outcome>>, OracleError>
    where
        O: Oracle<A> + ?Sized,
        A: Sync + 'c,
    {
        let outcomes: Vec<OnceLock<Outcome>> = pending.iter().map(|_| OnceLock::new()).collect();
        parallel::first_interesting::<OracleError, _>(
            pending.len(),
            self.jobs,
            self.limits,
            |j, cancel| {
                let outcome = oracle.test(&candidate(pending[j].0), cancel)?;
                if let Some(outcome) = outcome {
                    let _ = outcomes[j].set(outcome);
                }
                Ok(outcome)
            },
        )?;
        Ok(outcomes.into_iter().map(OnceLock::into_inner).collect())
    }

    /// Counts, caches and reports the outcomes of `pending` up to the
    /// first interesting one, and returns its index in the round; the
    /// outcomes after it are dropped (see [`Self::first_interesting`]).
    fn keep_sequential(
        &self,
        pending: &[(usize, Option<u128>)],
        outcomes: Vec<Option<Outcome>>,
    ) -> Option<usize> {
        for (&(i, key), outcome) in pending.iter().zip(outcomes) {
            let Some(outcome) = outcome else { continue };
            self.counters.tests.fetch_add(1, Ordering::SeqCst);
            if let Some((cache, key)) = self.cache.zip(key) {
                cache.insert(key, outcome);
            }
            self.observer.tested(outcome, self.counters);
            if outcome.is_interesting() {
                return Some(i);
            }
        }
        None
    }

    fn run<O: Oracle<A> + ?Sized>(
        &self,
        oracle: &O,
        candidate: &Candidate<'_, A>,
        cancel: &Cancel<'_>,
        key: Option<u128>,
    ) -> Result<Option<Outcome>, OracleError> {
        let outcome = oracle.test(candidate, cancel)?;
        if let Some(outcome) = outcome {
            if let (Some(cache), Some(key)) = (self.cache, key) {
                cache.insert(key, outcome);
            }
            self.observer.tested(outcome, self.counters);
        }
        Ok(outcome)
    }
}

/// Where the cache keeps `candidate`'s outcome (see [`Oracle::cache_key`]).
fn key_of<A: Hash, O: Oracle<A> + ?Sized>(oracle: &O, candidate: &Candidate<'_, A>) -> u128 {
    oracle
        .cache_key(candidate)
        .unwrap_or_else(|| candidate.content_hash())
}

#[cfg(test)]
mod tests {
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

    /// A round whose first candidate wins looks up (hashes) only the first
    /// block, not the whole round: each candidate may be megabytes.
    #[test]
    fn a_round_won_at_its_start_hashes_only_its_first_block() {
        let inputs: Vec<[u8; 1]> = (0..100).map(|i| [i]).collect();
        for jobs in [1, 2, 4] {
            let made = AtomicU64::new(0);
            let run = Reducer::new().jobs(jobs);
            let winner = run
                .context()
                .first_interesting(&|c: &Candidate<'_, u8>| c.to_vec() == [0], 100, &|i| {
                    made.fetch_add(1, Ordering::SeqCst);
                    Candidate::whole(&inputs[i])
                })
                .unwrap();
            assert_eq!(winner, Some(0));
            // The first block's lookups, and the tests' own candidates.
            let most = (jobs * FIRST_BLOCK * 2) as u64;
            assert!(made.load(Ordering::SeqCst) <= most, "jobs {jobs}: {made:?}");
        }
    }

    /// A later block is reached when the first holds no winner, and the
    /// winner, the tests and the cache hits are those of a sequential run
    /// at every `-j`: hits past the winner are not counted.
    #[test]
    fn blocks_give_the_sequential_winner_tests_and_hits_at_every_j() {
        let inputs: Vec<[u8; 1]> = (0..60).map(|i| [i % 20]).collect();
        let interesting = |c: &Candidate<'_, u8>| c.to_vec() == [17];
        let mut seen = Vec::new();
        for jobs in [1, 2, 3, 8] {
            let run = Reducer::new().jobs(jobs);
            let ctx = run.context();
            let first = ctx.first_interesting(&interesting, 60, &|i| Candidate::whole(&inputs[i]));
            // The same round again: every candidate up to the winner is a hit.
            let again = ctx.first_interesting(&interesting, 60, &|i| Candidate::whole(&inputs[i]));
            seen.push((
                first.unwrap(),
                again.unwrap(),
                run.tests(),
                run.cache_hits(),
            ));
        }
        assert_eq!(seen[0], (Some(17), Some(17), 18, 18));
        assert!(seen.iter().all(|s| *s == seen[0]), "{seen:?}");
    }
}
