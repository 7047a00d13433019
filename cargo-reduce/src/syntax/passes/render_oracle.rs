//! Testing rendered candidates with the byte-level oracle.
//!
//! HDD runs the engine's ddmin over nodes, edits or tokens, but the test
//! command only understands bytes: [`Tester::ddmin`] wraps the byte oracle
//! in an `Oracle<A>` that renders each candidate and tests the bytes. The
//! levels of HDD produce the same text again and again (a node whose Φ is
//! its own text, the same level in the next HDD* pass), so outcomes are
//! cached by the rendered bytes' hash, in the caller's cache (shared with
//! its other passes). Without one (`--no-cache`) every candidate runs, as
//! in the thesis' measurements of squeezeTree and hideUnremovableTokens,
//! whose savings the cache otherwise mostly subsumes.

use std::hash::Hash;
use std::sync::atomic::Ordering;
use std::sync::Mutex;

use crate::engine::ddmin::ReduceError;
use crate::engine::{
    ddmin, Cancel, Candidate, Context, Counters, DdminOptions, Observer, Oracle, OracleError,
    Outcome, OutcomeCache, Start,
};

/// The byte oracle, its context and the cache of rendered texts.
pub(crate) struct Tester<'a> {
    oracle: &'a dyn Oracle<u8>,
    ctx: &'a Context<'a, u8>,
    cache: Option<&'a OutcomeCache>,
    options: DdminOptions,
    current: Mutex<usize>,
}

impl<'a> Tester<'a> {
    /// A tester over `oracle`, caching in `ctx`'s cache if it has one.
    pub(crate) fn new(
        oracle: &'a dyn Oracle<u8>,
        ctx: &'a Context<'a, u8>,
        options: DdminOptions,
    ) -> Self {
        Tester {
            oracle,
            ctx,
            cache: ctx.cache,
            options,
            current: Mutex::new(usize::MAX),
        }
    }

    /// The context's limits have stopped the run.
    pub(crate) fn stopped(&self) -> bool {
        self.ctx.limits.stop_reason().is_some()
    }

    /// Length of the last accepted text.
    pub(crate) fn current_len(&self) -> usize {
        *self.current.lock().expect("tester lock")
    }

    /// Records `bytes` as the current (interesting) text.
    pub(crate) fn accept(&self, bytes: &[u8]) {
        if let Some(cache) = self.cache {
            cache.insert(Candidate::whole(bytes).content_hash(), Outcome::Interesting);
        }
        *self.current.lock().expect("tester lock") = bytes.len();
        self.ctx.observer.reduced(bytes);
    }

    /// Step `name` of the pipeline begins (for progress and statistics).
    pub(crate) fn step(&self, name: &'static str) {
        self.ctx.observer.step(name, self.ctx.counters);
    }

    /// Tests `bytes` once (cached, counted, within the limits).
    pub(crate) fn test(&self, bytes: &[u8]) -> Result<bool, OracleError> {
        let cancel = Cancel::by_limits(self.ctx.limits);
        if let Some(outcome) = self.cached(bytes) {
            self.ctx.observer.tested(outcome, self.ctx.counters);
            return Ok(outcome.is_interesting());
        }
        if !self.ctx.limits.try_charge(&self.ctx.counters.tests) {
            return Ok(false);
        }
        let outcome = self.run(bytes, &cancel)?;
        if let Some(outcome) = outcome {
            self.ctx.observer.tested(outcome, self.ctx.counters);
        }
        Ok(outcome.is_some_and(Outcome::is_interesting))
    }

    /// ddmin over `atoms` from granularity `start`, each candidate tested
    /// as `render(candidate)`.
    pub(crate) fn ddmin<A>(
        &self,
        atoms: Vec<A>,
        start: Start,
        render: &(dyn Fn(&Candidate<'_, A>) -> Vec<u8> + Sync),
    ) -> Result<Vec<A>, ReduceError<A>>
    where
        A: Clone + Hash + Sync,
    {
        let forward = Forward(self.ctx.observer);
        let ctx = Context {
            jobs: self.ctx.jobs,
            limits: self.ctx.limits,
            cache: None,
            counters: self.ctx.counters,
            observer: &forward,
        };
        let oracle = Rendered {
            tester: self,
            render,
        };
        let options = DdminOptions {
            start,
            ..self.options
        };
        ddmin(atoms, &oracle, &options, &ctx).map(|r| r.atoms)
    }

    fn cached(&self, bytes: &[u8]) -> Option<Outcome> {
        let outcome = self.cache?.get(Candidate::whole(bytes).content_hash())?;
        self.ctx.counters.cache_hits.fetch_add(1, Ordering::SeqCst);
        Some(outcome)
    }

    fn run(&self, bytes: &[u8], cancel: &Cancel<'_>) -> Result<Option<Outcome>, OracleError> {
        let outcome = self.oracle.test(&Candidate::whole(bytes), cancel)?;
        if let (Some(cache), Some(outcome)) = (self.cache, outcome) {
            cache.insert(Candidate::whole(bytes).content_hash(), outcome);
        }
        Ok(outcome)
    }
}

/// The `Oracle<A>` ddmin sees: render, then test the bytes. The engine has
/// already charged a test when this runs; a cache hit gives it back.
struct Rendered<'t, 'a, A> {
    tester: &'t Tester<'a>,
    render: &'t (dyn Fn(&Candidate<'_, A>) -> Vec<u8> + Sync),
}

impl<A> Oracle<A> for Rendered<'_, '_, A> {
    fn test(
        &self,
        candidate: &Candidate<'_, A>,
        cancel: &Cancel<'_>,
    ) -> Result<Option<Outcome>, OracleError> {
        let bytes = (self.render)(candidate);
        if let Some(outcome) = self.tester.cached(&bytes) {
            uncharge(self.tester.ctx.counters);
            return Ok(Some(outcome));
        }
        self.tester.run(&bytes, cancel)
    }
}

fn uncharge(counters: &Counters) {
    counters.tests.fetch_sub(1, Ordering::SeqCst);
}

/// Passes test events of an `A`-level ddmin on to the byte-level
/// observer; size changes are reported by [`Tester::accept`] instead.
struct Forward<'a>(&'a dyn Observer<u8>);

impl<A> Observer<A> for Forward<'_> {
    fn tested(&self, outcome: Outcome, counters: &Counters) {
        self.0.tested(outcome, counters);
    }
}
