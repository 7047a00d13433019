//! ice's tests through the engine's [`Context`], as file and fuzz modes
//! run theirs: the context counts each test, refuses one past a limit,
//! answers a text tested before from the cache, and cancels a running
//! compilation at the deadline or on Ctrl-C. The steps take a [`Tester`]
//! and never count or check a limit themselves.

use crate::engine::{
    ddmin, Cancel, Candidate, Context, DdminOptions, Oracle, OracleError, Outcome,
};
use crate::job::ice::one_file::source::{apply, Edit};
use crate::job::ice::oracle::{ByText, TellsIce};
use crate::job::Run;

/// Tests texts for ice's steps, in one engine context.
pub(crate) struct Tester<'a> {
    ctx: Context<'a, u8>,
}

impl<'a> Tester<'a> {
    /// The reduction's tester: its limits, counters, progress and cache.
    /// The cache holds one oracle's outcomes: the caller forgets them
    /// ([`Run::oracle_changed`]) when the oracle changes.
    pub(crate) fn cached(run: &'a Run<'_>) -> Self {
        Tester { ctx: run.context() }
    }

    /// The reduction's tester without the cache: for a test whose outcome
    /// depends on more than its text (an auxiliary crate and the MCVE
    /// together), or whose oracle is not yet the cache's.
    pub(crate) fn uncached(run: &'a Run<'_>) -> Self {
        Tester {
            ctx: run.plain_context(),
        }
    }

    /// The tester of the input's own checks, which no budget cuts short:
    /// only Ctrl-C stops them; counted all the same.
    pub(crate) fn checks(run: &'a Run<'_>) -> Self {
        Tester {
            ctx: Context {
                limits: run.interrupt_only,
                ..run.plain_context()
            },
        }
    }

    /// A tester over `ctx`, for the steps' own tests.
    #[cfg(test)]
    pub(crate) fn of(ctx: Context<'a, u8>) -> Self {
        Tester { ctx }
    }

    /// Whether `oracle` says `text` keeps the ICE: false also when a limit
    /// refused the test or cancelled it. The error when rustc cannot run.
    pub(crate) fn keeps<T: TellsIce + ?Sized>(
        &self,
        oracle: &T,
        text: &[u8],
    ) -> Result<bool, OracleError> {
        let outcome =
            self.ctx
                .test(&ByText(oracle), &Candidate::whole(text), &self.ctx.cancel())?;
        Ok(outcome.is_some_and(Outcome::is_interesting))
    }

    /// Runs `compile`, a compilation read for its output rather than
    /// judged, as one test; `None` when a limit refuses it.
    pub(crate) fn compile<R>(&self, compile: impl FnOnce(&Cancel<'_>) -> R) -> Option<R> {
        self.ctx.charge().then(|| compile(&self.ctx.cancel()))
    }

    /// True once a limit (the deadline, the budget, Ctrl-C) stops the run.
    pub(crate) fn stopped(&self) -> bool {
        self.ctx.limits.should_stop()
    }

    /// `text` with as many of `edits` (non-overlapping) applied as keep
    /// the ICE `oracle` tells: all of them when that keeps it, in one
    /// test; else the engine's ddmin over the edits left out, whose result
    /// is 1-minimal: applying any one edit still left out loses the ICE.
    pub(crate) fn most_applied<T: TellsIce + ?Sized>(
        &self,
        oracle: &T,
        text: &str,
        edits: &[Edit],
    ) -> Result<String, OracleError> {
        if edits.is_empty() {
            return Ok(text.to_string());
        }
        let left_out = LeftOut {
            text,
            edits,
            oracle,
        };
        let ctx = Context {
            jobs: self.ctx.jobs,
            limits: self.ctx.limits,
            cache: self.ctx.cache,
            counters: self.ctx.counters,
            observer: &(),
        };
        let all = ctx.test(&left_out, &Candidate::whole(&[]), &ctx.cancel())?;
        let left = match all.is_some_and(Outcome::is_interesting) {
            true => Vec::new(),
            false if self.stopped() || edits.len() < 2 => (0..edits.len()).collect(),
            false => {
                let every = (0..edits.len()).collect();
                let reduction = ddmin(every, &left_out, &DdminOptions::default(), &ctx);
                reduction.map_err(|e| e.source)?.atoms
            }
        };
        Ok(left_out.render(&left))
    }
}

/// The engine's oracle over the edits left out of a text: a candidate
/// (indices into `edits`) is the text with every other edit applied.
struct LeftOut<'a, T: ?Sized> {
    text: &'a str,
    edits: &'a [Edit],
    oracle: &'a T,
}

impl<T: ?Sized> LeftOut<'_, T> {
    /// `text` with every edit applied but those at `left` (ascending).
    fn render<'i>(&self, left: impl IntoIterator<Item = &'i usize>) -> String {
        let mut left = left.into_iter().peekable();
        let mut applied = Vec::with_capacity(self.edits.len());
        for (i, edit) in self.edits.iter().enumerate() {
            if left.next_if(|&&l| l == i).is_none() {
                applied.push(edit.clone());
            }
        }
        apply(self.text, applied)
    }
}

impl<T: TellsIce + ?Sized> Oracle<usize> for LeftOut<'_, T> {
    fn test(
        &self,
        candidate: &Candidate<'_, usize>,
        cancel: &Cancel<'_>,
    ) -> Result<Option<Outcome>, OracleError> {
        let text = self.render(candidate.iter());
        self.oracle.same_ice(text.as_bytes(), cancel).outcome()
    }

    /// The rendered text's, as the cache keys a whole text: a text the
    /// syntax reducer meets again is answered.
    fn cache_key(&self, candidate: &Candidate<'_, usize>) -> Option<u128> {
        let text = self.render(candidate.iter());
        Some(Candidate::whole(text.as_bytes()).content_hash())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Reducer, StopReason};
    use crate::job::ice::oracle::Verdict;

    /// Keeps the ICE while the text holds `r;`, and `p;` too unless `q;`
    /// is gone.
    struct Needs;

    impl TellsIce for Needs {
        fn same_ice(&self, text: &[u8], _: &Cancel<'_>) -> Verdict {
            let text = String::from_utf8_lossy(text);
            let keeps = text.contains("r;") && (text.contains("p;") || !text.contains("q;"));
            match keeps {
                true => Verdict::Same,
                false => Verdict::Other,
            }
        }
    }

    fn deletions(text: &str) -> Vec<Edit> {
        (0..text.len())
            .step_by(2)
            .map(|i| Edit::deletion(i..i + 2))
            .collect()
    }

    /// Halving the deletions (the search prune had) keeps `p;` here: it
    /// deletes `q;` alone first, and never tries `p;` again after. ddmin's
    /// result is 1-minimal; the same call again is answered by the cache.
    #[test]
    fn as_many_edits_as_keep_the_ice_are_applied_and_a_repeat_costs_no_test() {
        let text = "p;q;r;";
        let reducer = Reducer::new();
        let tester = Tester::of(reducer.context());
        let applied = tester.most_applied(&Needs, text, &deletions(text));
        assert_eq!(applied.unwrap(), "r;");
        let tests = reducer.tests();
        let again = tester.most_applied(&Needs, text, &deletions(text));
        assert_eq!(again.unwrap(), "r;");
        assert_eq!(reducer.tests(), tests, "the repeat was tested again");
        assert!(tester.keeps(&Needs, b"r;").unwrap());
        assert_eq!(reducer.tests(), tests);
    }

    /// A step's tests are the reduction's: a budget stops them, and a
    /// compilation for diagnostics is charged as one.
    #[test]
    fn the_budget_stops_a_step_s_tests_and_its_compilations() {
        let text = "p;q;r;";
        let reducer = Reducer::new().max_tests(2);
        let tester = Tester::of(reducer.context());
        assert_eq!(tester.compile(|_| 7), Some(7));
        let applied = tester.most_applied(&Needs, text, &deletions(text)).unwrap();
        // The budget ran out before any could be applied.
        assert_eq!(applied, text);
        assert_eq!(reducer.tests(), 2);
        assert_eq!(tester.compile(|_| 7), None);
        assert!(tester.stopped());
        assert_eq!(reducer.stop_reason(), Some(StopReason::MaxTests));
    }
}
