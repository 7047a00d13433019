//! The engine's front door: a reduction's settings with a builder, and the
//! limits, counters and cache a run borrows, owned in one place so that a
//! caller never assembles a [`Context`] by hand.

use std::hash::Hash;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use super::ddmin::ReduceError;
use super::{
    ddmin, Context, Counters, DdminOptions, Limits, Oracle, OutcomeCache, Reduction, StopReason,
};

/// A reduction's settings (parallelism, cache, budgets, ddmin variant) and
/// the state one run of it keeps (counters and cached outcomes).
///
/// ```
/// use cargo_reduce::{Candidate, Reducer};
///
/// let oracle = |c: &Candidate<'_, u8>| c.to_vec().windows(6).any(|w| w == b"needle");
/// let reducer = Reducer::new().jobs(2).max_tests(10_000);
/// let reduced = reducer.ddmin(b"a haystack with a needle in it".to_vec(), &oracle).unwrap();
/// assert_eq!(reduced.atoms, b"needle");
/// ```
///
/// Several reductions may share one `Reducer` (ddmin, then the syntax
/// reducer's `syntax::reduce`): they then share its test budget,
/// its counters and its cache.
pub struct Reducer {
    jobs: usize,
    cache: bool,
    ddmin: DdminOptions,
    limits: Limits,
    counters: Counters,
    outcomes: OutcomeCache,
}

impl Default for Reducer {
    fn default() -> Self {
        Reducer {
            jobs: 1,
            cache: true,
            ddmin: DdminOptions::default(),
            limits: Limits::none(),
            counters: Counters::default(),
            outcomes: OutcomeCache::new(),
        }
    }
}

impl Reducer {
    /// Sequential, cached, unlimited, with the default ddmin.
    pub fn new() -> Self {
        Self::default()
    }

    /// Tests up to `n` candidates at once (at least 1). The result is the
    /// same for every `n`: only the schedule changes.
    pub fn jobs(mut self, n: usize) -> Self {
        self.jobs = n.max(1);
        self
    }

    /// Remembers outcomes by candidate content (on by default), so that a
    /// candidate met twice is tested once.
    pub fn cache(mut self, on: bool) -> Self {
        self.cache = on;
        self
    }

    /// Stops after `n` tests in all; the result is then interesting but
    /// not necessarily minimal.
    pub fn max_tests(mut self, n: u64) -> Self {
        self.limits = self.limits.with_max_tests(n);
        self
    }

    /// Stops once `d` has passed from this call.
    pub fn max_time(mut self, d: Duration) -> Self {
        self.limits = self.limits.with_max_time(d);
        self
    }

    /// Stops once `flag` is set (by a Ctrl-C handler, say), keeping the
    /// best result so far.
    pub fn interrupt(mut self, flag: Arc<AtomicBool>) -> Self {
        self.limits = self.limits.with_interrupt(flag);
        self
    }

    /// Which ddmin variant [`Reducer::ddmin`] runs.
    pub fn ddmin_options(mut self, options: DdminOptions) -> Self {
        self.ddmin = options;
        self
    }

    /// Minimizes `atoms` (known interesting) against `oracle` with ddmin:
    /// the result is 1-minimal unless a limit stopped the run
    /// ([`Reduction::is_minimal`]). On an oracle error, the error carries
    /// the best configuration found before it.
    pub fn ddmin<A, O>(&self, atoms: Vec<A>, oracle: &O) -> Result<Reduction<A>, ReduceError<A>>
    where
        A: Clone + Hash + Sync,
        O: Oracle<A> + ?Sized,
    {
        ddmin(atoms, oracle, &self.ddmin, &self.context())
    }

    /// The context the engine's other entry points take, borrowing this
    /// reducer's limits, counters and cache; no observer.
    pub(crate) fn context<A>(&self) -> Context<'_, A> {
        Context {
            jobs: self.jobs,
            limits: &self.limits,
            cache: self.cache.then_some(&self.outcomes),
            counters: &self.counters,
            observer: &(),
        }
    }

    /// Why a limit stopped a run of this reducer, once one has.
    pub fn stop_reason(&self) -> Option<StopReason> {
        self.limits.stop_reason()
    }

    /// Tests run so far, by every reduction that used this reducer.
    pub fn tests(&self) -> u64 {
        self.counters.tests()
    }

    /// Outcomes answered from the cache so far.
    pub fn cache_hits(&self) -> u64 {
        self.counters.cache_hits()
    }

    /// How many outcomes the cache holds.
    #[cfg(test)]
    pub(crate) fn cached_outcomes(&self) -> usize {
        self.outcomes.len()
    }
}
