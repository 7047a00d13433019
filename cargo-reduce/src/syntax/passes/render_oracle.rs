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
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::engine::ddmin::ReduceError;
use crate::engine::{
    ddmin, Cancel, Candidate, Context, Counters, DdminOptions, Observer, Oracle, OracleError,
    Outcome, Start,
};

/// The byte oracle, its context and the cache of rendered texts.
pub(crate) struct Tester<'a> {
    oracle: &'a dyn Oracle<u8>,
    ctx: &'a Context<'a, u8>,
    options: DdminOptions,
    current: Mutex<usize>,
    /// When a ddmin's smaller configuration was last rendered for the
    /// progress, and how often it may be ([`Forward`]).
    shown: Mutex<Option<Instant>>,
    show_every: Duration,
}

/// How often a ddmin's improvements are rendered for the progress: the
/// progress shows ten a second at most, and the pass reports its result
/// when it commits it, so rendering a large text more often is waste.
const SHOW_EVERY: Duration = Duration::from_millis(100);

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
            options,
            current: Mutex::new(usize::MAX),
            shown: Mutex::new(None),
            show_every: SHOW_EVERY,
        }
    }

    /// Whether a ddmin's improvement is due to be shown now, and if so
    /// notes that it is.
    fn show_due(&self) -> bool {
        let now = Instant::now();
        let mut shown = self.shown.lock().expect("tester lock");
        let due = shown.is_none_or(|at| now.duration_since(at) >= self.show_every);
        if due {
            *shown = Some(now);
        }
        due
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
        if let Some(cache) = self.ctx.cache {
            cache.insert(Candidate::whole(bytes).content_hash(), Outcome::Interesting);
        }
        *self.current.lock().expect("tester lock") = bytes.len();
        self.ctx.observer.reduced(bytes);
    }

    /// Step `name` of the pipeline begins (for progress and statistics).
    pub(crate) fn step(&self, name: &'static str) {
        self.ctx.step(name);
    }

    /// Tests `bytes` once (cached, counted, within the limits).
    pub(crate) fn test(&self, bytes: &[u8]) -> Result<bool, OracleError> {
        self.ctx
            .is_interesting(self.oracle, &|| Candidate::whole(bytes))
    }

    /// The lowest index whose text fails as the input did, every text
    /// before it tested; up to `jobs` of them run at once. The engine's
    /// rounds count and cache only what a sequential run would have
    /// tested, so the answer and the test count do not depend on `-j`.
    pub(crate) fn first_interesting(
        &self,
        texts: &[Vec<u8>],
    ) -> Result<Option<usize>, OracleError> {
        self.ctx
            .first_interesting(self.oracle, texts.len(), &|i| Candidate::whole(&texts[i]))
    }

    /// How many tests may run at once.
    pub(crate) fn jobs(&self) -> usize {
        self.ctx.jobs.max(1)
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
        let forward = Forward {
            tester: self,
            render,
        };
        let ctx = Context {
            jobs: self.ctx.jobs,
            limits: self.ctx.limits,
            cache: self.ctx.cache,
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
}

/// The `Oracle<A>` ddmin sees: render, then test the bytes. The cache
/// keys a candidate by its text ([`Oracle::cache_key`]), so that edits
/// rendering alike share one test, counted only where a sequential run
/// would have run it.
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
        self.tester.oracle.test(&Candidate::whole(&bytes), cancel)
    }

    fn cache_key(&self, candidate: &Candidate<'_, A>) -> Option<u128> {
        Some(Candidate::whole(&(self.render)(candidate)).content_hash())
    }
}

/// Passes an `A`-level ddmin's events on to the byte-level observer: its
/// tests, and each smaller configuration as the text it renders, so that
/// the best result so far is shown when ddmin has it, not only when the
/// pass commits it at the level's end (a level of hundreds of nodes can
/// take minutes).
struct Forward<'t, 'a, A> {
    tester: &'t Tester<'a>,
    render: &'t (dyn Fn(&Candidate<'_, A>) -> Vec<u8> + Sync),
}

impl<A> Observer<A> for Forward<'_, '_, A> {
    fn tested(&self, outcome: Outcome, counters: &Counters) {
        self.tester.ctx.observer.tested(outcome, counters);
    }

    fn reduced(&self, atoms: &[A]) {
        if !self.tester.show_due() {
            return;
        }
        let text = (self.render)(&Candidate::whole(atoms));
        // Only a shorter text: the progress's best size never grows.
        if text.len() < self.tester.current_len() {
            self.tester.ctx.observer.reduced(&text);
        }
    }
}

/// Runs `pass` with a tester over `oracle` that has accepted `input`;
/// returns what the pass returned and the number of tests it ran.
#[cfg(test)]
pub(super) fn with_tester<T>(
    input: &[u8],
    oracle: &(dyn Fn(&[u8]) -> bool + Sync),
    pass: impl FnOnce(&Tester) -> T,
) -> (T, u64) {
    with_tester_on(1, input, oracle, pass)
}

/// [`with_tester`] with up to `jobs` tests at once.
#[cfg(test)]
pub(super) fn with_tester_on<T>(
    jobs: usize,
    input: &[u8],
    oracle: &(dyn Fn(&[u8]) -> bool + Sync),
    pass: impl FnOnce(&Tester) -> T,
) -> (T, u64) {
    use crate::engine::{Candidate, DdminOptions, Reducer};
    let run = Reducer::new().jobs(jobs);
    let ctx = run.context();
    let oracle = |c: &Candidate<'_, u8>| oracle(&c.to_vec());
    let tester = Tester::new(&oracle, &ctx, DdminOptions::default());
    tester.accept(input);
    let out = pass(&tester);
    (out, run.tests())
}

#[cfg(test)]
mod tests {
    use super::{with_tester_on, Tester};
    use crate::engine::{
        Candidate, Context, Counters, DdminOptions, Limits, Observer, OutcomeCache, Start,
    };
    use std::sync::Mutex;

    /// The sizes a reduction reported, in order.
    #[derive(Default)]
    struct Sizes(Mutex<Vec<usize>>);

    impl Observer<u8> for Sizes {
        fn reduced(&self, atoms: &[u8]) {
            self.0.lock().unwrap().push(atoms.len());
        }
    }

    /// Each smaller configuration of a ddmin over edits is reported as
    /// the text it renders while ddmin runs, not only once the caller
    /// commits the result (it was, at an HDD level's end): the best so far
    /// shrinks step by step, never grows, and ends at the result.
    #[test]
    fn a_ddmins_improvements_are_reported_as_they_come() {
        let render = |c: &Candidate<'_, u32>| -> Vec<u8> {
            c.iter().map(|&a| b'a' + (a % 26) as u8).collect()
        };
        let keeps_q = |c: &Candidate<'_, u8>| c.iter().any(|&b| b == b'q');
        let (limits, counters, cache, sizes) = (
            Limits::none(),
            Counters::default(),
            OutcomeCache::new(),
            Sizes::default(),
        );
        let ctx = Context {
            jobs: 1,
            limits: &limits,
            cache: Some(&cache),
            counters: &counters,
            observer: &sizes,
        };
        let mut tester = Tester::new(&keeps_q, &ctx, DdminOptions::default());
        tester.show_every = std::time::Duration::ZERO;
        let atoms: Vec<u32> = (0..26).collect();
        tester.accept(&render(&Candidate::whole(&atoms)));
        let kept = tester.ddmin(atoms, Start::Halves, &render).unwrap();
        assert_eq!(render(&Candidate::whole(&kept)), b"q".to_vec());
        let sizes = sizes.0.lock().unwrap().clone();
        assert!(sizes.len() > 2, "reported during ddmin: {sizes:?}");
        assert!(sizes.windows(2).all(|w| w[1] < w[0]), "{sizes:?}");
        assert_eq!(sizes.last(), Some(&1));
    }

    /// Many candidates render alike (only each atom's remainder by 3
    /// shows); the cache answers the repeats, and the parallel runs'
    /// tests beyond a round's winner neither count nor fill the cache:
    /// the same tests and result at every `-j`. (Before the cache was
    /// keyed by the text in the engine's rounds, `-j2` counted 11 tests
    /// here and `-j1` 10.)
    #[test]
    fn rendered_twins_cost_the_same_tests_at_any_jobs() {
        let render = |c: &Candidate<'_, u32>| {
            let mut text: Vec<u8> = c.iter().map(|&a| b'0' + (a % 3) as u8).collect();
            text.sort_unstable();
            text
        };
        let two_0s_a_1_and_a_2 = |b: &[u8]| {
            let n = |c| b.iter().filter(|&&x| x == c).count();
            let interesting = n(b'0') >= 2 && n(b'1') >= 1 && n(b'2') >= 1;
            // A winner runs long while the other jobs go on.
            let ms = if interesting { 20 } else { 1 };
            std::thread::sleep(std::time::Duration::from_millis(ms));
            interesting
        };
        let runs: Vec<_> = [1, 2, 4, 8]
            .into_iter()
            .map(|jobs| {
                let input = render(&Candidate::whole(&(0..48).collect::<Vec<u32>>()));
                with_tester_on(jobs, &input, &two_0s_a_1_and_a_2, |tester| {
                    let kept = tester.ddmin((0..48).collect(), Start::Halves, &render);
                    render(&Candidate::whole(&kept.unwrap()))
                })
            })
            .collect();
        assert_eq!(runs[0].0, b"0012");
        assert!(runs.iter().all(|r| *r == runs[0]), "{runs:?}");
    }
}
