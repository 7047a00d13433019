//! Shrinking one failing input in its target's worker pool, whose binary
//! is already built: reproduce it (the same failure every time, in fresh
//! test processes), reduce its bytes by the chosen [`Method`] (ddmin,
//! canonicalization and the searches [`Effort`] allows; typed or syntax
//! reduction), with shorter probe timeouts for a hang, and verify the
//! result once more. Building the targets is `fuzz::standin`'s and writing
//! the result is the job layer's (`job::fuzz_mode`).
//!
//! Nothing here prints; the CLI reports progress through the engine's
//! observer and the values returned.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::engine::search::SEED;
use crate::engine::{
    canonicalize, ddmin, drop_values, search, values, Context, DdminOptions, OracleError,
    SearchOptions, StopReason,
};
use crate::fuzz::oracle::{HarnessOracle, MatchLevel};
use crate::fuzz::pool::{DecodeCrew, Failure, FailureKind, PoolError, WorkerPool};
use crate::syntax::{self, Lang, Strategy};
use crate::typed::{self, TypedOptions};

pub(crate) use super::effort::Effort;

/// Runs of an artifact before reducing: all must fail, the same way.
pub(crate) const REPRODUCE_RUNS: usize = 3;

/// Why an artifact cannot be reduced.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ArtifactError {
    /// The artifact runs without failing.
    #[error("`{}` does not reproduce: the target ran it {REPRODUCE_RUNS} times without failing{hint}", path.display())]
    DoesNotReproduce {
        /// The artifact.
        path: PathBuf,
        /// What to try.
        hint: String,
    },
    /// The artifact fails in some runs only, or differently between runs.
    #[error("`{}` is flaky: {what}; skipped", path.display())]
    Flaky {
        /// The artifact.
        path: PathBuf,
        /// What was seen.
        what: String,
    },
    /// The reduced input no longer failed the same way when checked again.
    #[error("the reduced `{}` failed differently when checked again ({seen}): the target is nondeterministic; nothing written", path.display())]
    Unstable {
        /// The artifact.
        path: PathBuf,
        /// The failure seen in the check.
        seen: String,
    },
    /// The worker pool failed.
    #[error(transparent)]
    Pool(#[from] PoolError),
}

/// Runs `bytes` [`REPRODUCE_RUNS`] times, each in test processes fresh
/// from the init code (as `cargo fuzz run` runs an artifact); returns the
/// failure when every run fails with the same signature at `level`, the
/// level the reduction's oracle compares at ([`one_failure`]: a timeout
/// whose stack could not be taken as any timeout). A timeout artifact's
/// runs go in parallel, since each waits the whole timeout
/// ([`WorkerPool::run_fresh_copies`]).
pub(crate) fn reproduce(
    pool: &WorkerPool,
    path: &Path,
    bytes: &[u8],
    timeout_artifact: bool,
    level: MatchLevel,
) -> Result<Failure, ArtifactError> {
    let outcomes = match timeout_artifact {
        true => pool.run_fresh_copies(bytes, REPRODUCE_RUNS)?,
        false => (0..REPRODUCE_RUNS)
            .map(|_| pool.run_fresh(bytes))
            .collect::<Result<_, _>>()?,
    };
    let failures: Vec<Failure> = outcomes
        .iter()
        .filter_map(|o| o.failure().cloned())
        .collect();
    let Some(first) = failures.first() else {
        return Err(ArtifactError::not_reproduced(path, timeout_artifact));
    };
    if failures.len() < REPRODUCE_RUNS {
        let what = format!(
            "it failed in {} of {REPRODUCE_RUNS} runs ({})",
            failures.len(),
            first.signature()
        );
        return Err(ArtifactError::Flaky {
            path: path.to_path_buf(),
            what,
        });
    }
    match one_failure(&failures, level) {
        Ok(failure) => Ok(failure.clone()),
        Err((one, other)) => Err(ArtifactError::Flaky {
            path: path.to_path_buf(),
            what: format!(
                "it failed differently between runs ({} / {}); a coarser --match (location, kind) compares less of it",
                one.signature(),
                other.signature()
            ),
        }),
    }
}

impl ArtifactError {
    /// An artifact at `path` that ran [`REPRODUCE_RUNS`] times without
    /// failing (a timeout artifact: within the timeout).
    pub(crate) fn not_reproduced(path: &Path, timeout_artifact: bool) -> ArtifactError {
        let hint = match timeout_artifact {
            true => " within the timeout; raise --timeout if it is slow rather than endless",
            false => "",
        };
        ArtifactError::DoesNotReproduce {
            path: path.to_path_buf(),
            hint: hint.to_string(),
        }
    }
}

/// The failure that `failures`, runs of one input, all are at `level`, or
/// two that differ (a timeout whose stack could not be taken differs from
/// no other timeout, see [`MatchLevel::matches`]). A placed timeout stands
/// for unplaced ones.
fn one_failure(failures: &[Failure], level: MatchLevel) -> Result<&Failure, (&Failure, &Failure)> {
    let placed = failures
        .iter()
        .find(|f| !f.signature().is_unplaced_timeout());
    let first = placed.or(failures.first()).expect("at least one failure");
    let expected = first.signature();
    let differs = |f: &&Failure| !level.matches(&expected, &f.signature());
    match failures.iter().find(differs) {
        Some(other) => Err((first, other)),
        None => Ok(first),
    }
}

/// A minimized artifact.
#[derive(Debug, Clone)]
pub(crate) struct Minimized {
    /// The reduced bytes.
    pub bytes: Vec<u8>,
    /// Why the reduction stopped early, if it did (then not 1-minimal).
    pub stopped: Option<StopReason>,
    /// How long the check of the result under the real timeout took, when
    /// the minimization made it ([`minimize_hang`] does).
    pub checked: Option<Duration>,
}

/// Whether canonicalization lowers byte values for a failure of `kind`: not
/// for out-of-memory, where lower values (smaller sizes) approach the limit
/// from below, so each step fills up to the whole memory budget and none
/// makes the input plainer.
fn lowers_values(kind: FailureKind) -> bool {
    kind != FailureKind::Oom
}

/// How an artifact is reduced.
#[derive(Debug, Clone)]
pub(crate) enum Method {
    /// ddmin over bytes, then afl-tmin-style canonicalization, then the
    /// search the effort allows.
    Bytes(DdminOptions, Effort),
    /// Syntax-aware reduction, for targets whose inputs are source text
    /// (a JavaScript engine, a parser).
    Syntax(Lang, Strategy),
}

/// How many times the pool's timeout a timed-out candidate runs under when
/// its verdict is settled ([`minimize`]).
const SETTLE_FACTOR: u32 = 4;

/// Reduces `bytes` through `oracle` by `method`, then settles the verdicts
/// that were timeouts: the candidates smaller than the result that timed
/// out (of a failure that is not a timeout) run again, smallest first,
/// under [`SETTLE_FACTOR`] times the timeout. The first that fails as
/// looked for is reduced from in turn; one still running counts as not
/// failing (an endless loop, such as another bug's, would not end on a
/// machine that much faster either). So the result is 1-minimal whatever
/// the machine's speed, within that factor; larger candidates that timed
/// out do not bear on it. On an oracle error, returns the best bytes found
/// so far with it.
pub(crate) fn minimize(
    bytes: Vec<u8>,
    oracle: &HarnessOracle<'_>,
    method: &Method,
    ctx: &Context<'_, u8>,
) -> Result<Minimized, (Vec<u8>, OracleError)> {
    let mut minimized = reduce_by(bytes, oracle, method, ctx)?;
    while minimized.stopped.is_none() {
        let settled = settle(oracle, &minimized.bytes, ctx);
        match settled.map_err(|e| (minimized.bytes.clone(), e))? {
            Some(smaller) => minimized = reduce_by(smaller, oracle, method, ctx)?,
            None => {
                minimized.stopped = ctx.limits.stop_reason();
                break;
            }
        }
    }
    Ok(minimized)
}

/// The smallest candidate below `result` whose timeout, run again under
/// [`SETTLE_FACTOR`] times the timeout, turns out to be the failure looked
/// for. None when every one settles as not failing, or when a limit or
/// Ctrl-C stopped the settling (`ctx`'s limits then say which).
fn settle(
    oracle: &HarnessOracle<'_>,
    result: &[u8],
    ctx: &Context<'_, u8>,
) -> Result<Option<Vec<u8>>, OracleError> {
    let mut candidates = oracle.take_timed_out(result.len());
    let charged = candidates.iter().take_while(|_| ctx.charge()).count();
    candidates.truncate(charged);
    if candidates.is_empty() {
        return Ok(None);
    }
    let timeout = oracle.pool().timeout() * SETTLE_FACTOR;
    match oracle.first_settled(&candidates, timeout) {
        Ok(found) => {
            let smaller = found.map(|i| candidates.swap_remove(i));
            if let Some(smaller) = &smaller {
                ctx.observer.reduced(smaller);
            }
            Ok(smaller)
        }
        Err(PoolError::Interrupted) => {
            ctx.limits.stop(StopReason::Interrupted);
            Ok(None)
        }
        Err(err) => Err(err.into()),
    }
}

/// Reduces `bytes` through `oracle` by `method`, once. On an oracle error,
/// returns the best bytes found so far with it.
fn reduce_by(
    bytes: Vec<u8>,
    oracle: &HarnessOracle<'_>,
    method: &Method,
    ctx: &Context<'_, u8>,
) -> Result<Minimized, (Vec<u8>, OracleError)> {
    match method {
        Method::Bytes(options, effort) => minimize_bytes(bytes, oracle, options, *effort, ctx),
        Method::Syntax(lang, strategy) => {
            let reduced = syntax::reduce_in(&bytes, *lang, strategy, oracle, ctx)
                .map_err(|e| (e.best, e.source))?;
            Ok(Minimized {
                bytes: reduced.atoms,
                stopped: reduced.stopped,
                checked: None,
            })
        }
    }
}

/// ddmin over bytes, then canonicalization (not of an input the typed
/// passes will lower), then the search `effort` allows (its steps named,
/// with ddmin's and canonicalization's, when there is one).
fn minimize_bytes(
    bytes: Vec<u8>,
    oracle: &HarnessOracle<'_>,
    options: &DdminOptions,
    effort: Effort,
    ctx: &Context<'_, u8>,
) -> Result<Minimized, (Vec<u8>, OracleError)> {
    let budget = effort.budget();
    let searching = budget.candidates > 0;
    let bytes = if values::worth_it(&bytes) {
        if searching {
            ctx.step("drop-values");
        }
        let original = bytes.clone();
        drop_values(bytes, oracle, ctx).map_err(|e| (original, e))?
    } else {
        bytes
    };
    if searching {
        ctx.step("ddmin");
    }
    let reduced = ddmin(bytes, oracle, options, ctx).map_err(|e| (e.best, e.source))?;
    if reduced.stopped.is_some() {
        return Ok(Minimized {
            bytes: reduced.atoms,
            stopped: reduced.stopped,
            checked: None,
        });
    }
    let fallback = reduced.atoms.clone();
    let lower = lowers_values(oracle.expected().kind);
    let decoder = match oracle.pool().decoder() {
        Ok(decoder) => decoder,
        Err(err) => return Err((fallback, err.into())),
    };
    let typed_lowers = searching
        && lower
        && decodes(decoder.as_deref(), &reduced.atoms).map_err(|e| (fallback.clone(), e))?;
    let bytes = if typed_lowers {
        reduced.atoms
    } else {
        if searching {
            ctx.step("canonical");
        }
        canonicalize(reduced.atoms, oracle, lower, ctx).map_err(|e| (fallback, e))?
    };
    let bytes = if searching && ctx.limits.stop_reason().is_none() {
        let options = SearchOptions {
            budget,
            ddmin: *options,
            lower_values: lower,
            seed: SEED,
        };
        let typed = effort.typed(options.ddmin, lower);
        search_all(bytes, oracle, decoder.as_deref(), &options, &typed, ctx)?
    } else {
        bytes
    };
    Ok(Minimized {
        bytes,
        stopped: ctx.limits.stop_reason(),
        checked: None,
    })
}

/// Whether `decoder` decodes `bytes`. An input the typed passes read and
/// lower is not canonicalized: `typed-lower` takes each value to the
/// lowest its type allows, while canonicalization's `'0'` bytes make a
/// `u16` 12,336, and the tests until `typed-lower` pay for it
/// (imbl-vector-rrb in `bench/realworld/`: a collection of that many
/// elements per test, until `typed-lower` ran first in each round).
fn decodes(decoder: Option<&DecodeCrew>, bytes: &[u8]) -> Result<bool, OracleError> {
    match decoder {
        Some(decoder) => Ok(decoder.decode_input(bytes)?.is_some()),
        None => Ok(false),
    }
}

/// The searches past ddmin and canonicalization: for a typed target, the
/// typed reduction first (it makes the structural cuts the byte search
/// would take many candidates to find), then the byte search with the
/// whole budget (a byte string the target parses is opaque to the typed
/// passes: gimli's DWARF sections, whose inner lengths only the byte
/// search's two-byte edits lower), then the typed reduction again if
/// the search changed anything, so that the result's values are the
/// lowest the type allows (the byte search ranks `'0'` lowest, the type
/// ranks `0` lowest).
fn search_all(
    bytes: Vec<u8>,
    oracle: &HarnessOracle<'_>,
    decoder: Option<&DecodeCrew>,
    options: &SearchOptions,
    typed_options: &TypedOptions,
    ctx: &Context<'_, u8>,
) -> Result<Vec<u8>, (Vec<u8>, OracleError)> {
    let typed = |bytes: Vec<u8>| match decoder {
        Some(decoder) if ctx.limits.stop_reason().is_none() => {
            typed::reduce(bytes, oracle, decoder, typed_options, ctx)
                .map_err(|e| (e.best, e.source))
        }
        _ => Ok(bytes),
    };
    let bytes = typed(bytes)?;
    let searched = search(bytes.clone(), oracle, options, ctx).map_err(|e| (e.best, e.source))?;
    if searched == bytes {
        return Ok(searched);
    }
    typed(searched)
}

/// A probe's result when Ctrl-C stopped the probe or its check: the best
/// so far, written as a partial result (not minimal). It is not known to
/// hang under the full timeout; the next run checks it under that timeout
/// before resuming from it, and starts from the artifact if it does not.
fn unchecked_on_interrupt(minimized: Minimized) -> Minimized {
    Minimized {
        stopped: Some(StopReason::Interrupted),
        checked: None,
        ..minimized
    }
}

/// The shortest timeout a timeout artifact is reduced under.
const FIRST_PROBE: Duration = Duration::from_millis(25);

/// The first probe is at most this fraction of the timeout: AFL++ hangs
/// come with an `exec_timeout` of tens of milliseconds, which a 25 ms probe
/// would barely shorten.
const PROBE_FRACTION: u32 = 10;

/// No probe is shorter than this: below it a scheduling hiccup alone would
/// look like a hang.
const SHORTEST_PROBE: Duration = Duration::from_millis(2);

/// The timeouts a timeout artifact is reduced under, shortest first, the
/// last being `timeout` itself. A hang is usually endless, so a candidate
/// still running after a short probe almost always hangs, and each
/// interesting candidate then costs the probe instead of the whole timeout
/// (libFuzzer's 1 s, for every step of `tmin`). A probe's result is
/// checked under the real timeout; when it finishes within it (a slow, not
/// endless, candidate was taken for a hang), the reduction starts over from
/// the artifact under a probe 4× longer.
pub(crate) fn probe_timeouts(timeout: Duration) -> Vec<Duration> {
    let first = FIRST_PROBE
        .min(timeout / PROBE_FRACTION)
        .max(SHORTEST_PROBE);
    let mut probes: Vec<Duration> = std::iter::successors(Some(first), |p| Some(*p * 4))
        .take_while(|p| *p < timeout)
        .collect();
    probes.push(timeout);
    probes
}

/// [`minimize`] for an artifact whose failure is a timeout, under the
/// [`probe_timeouts`] of the pool's timeout in turn. A probe's result comes
/// back [`checked`](Minimized::checked) under the full timeout; the last
/// attempt's (under the full timeout itself) does not. When a limit stops a
/// probe, its result is kept only if it passes that check, and the
/// artifact's bytes otherwise.
pub(crate) fn minimize_hang(
    bytes: Vec<u8>,
    oracle: &HarnessOracle<'_>,
    method: &Method,
    ctx: &Context<'_, u8>,
) -> Result<Minimized, (Vec<u8>, OracleError)> {
    let pool = oracle.pool();
    let timeout = pool.timeout();
    let probes = probe_timeouts(timeout);
    for &probe in &probes[..probes.len() - 1] {
        pool.set_timeout(probe);
        let result = minimize(bytes.clone(), oracle, method, ctx);
        pool.set_timeout(timeout);
        let mut minimized = result.map_err(|(_, e)| (bytes.clone(), e))?;
        if minimized.stopped == Some(StopReason::Interrupted) {
            return Ok(unchecked_on_interrupt(minimized));
        }
        let started = Instant::now();
        ctx.counters.add_test();
        let outcome = match pool.run(&minimized.bytes) {
            Err(PoolError::Interrupted) => {
                ctx.limits.stop(StopReason::Interrupted);
                return Ok(unchecked_on_interrupt(minimized));
            }
            outcome => outcome.map_err(|e| (bytes.clone(), e.into()))?,
        };
        minimized.checked = Some(started.elapsed());
        if oracle.matches(&outcome) {
            return Ok(minimized);
        }
        if minimized.stopped.is_some() {
            return Ok(Minimized { bytes, ..minimized });
        }
        if let Some(cache) = ctx.cache {
            cache.clear();
        }
    }
    minimize(bytes, oracle, method, ctx)
}

/// Runs the result once more, in fresh test processes (as the user will
/// run it): it must still fail the same way.
pub(crate) fn verify(
    pool: &WorkerPool,
    oracle: &HarnessOracle<'_>,
    path: &Path,
    bytes: &[u8],
) -> Result<(), ArtifactError> {
    let outcome = pool.run_fresh(bytes)?;
    if oracle.matches(&outcome) {
        return Ok(());
    }
    let seen = outcome
        .failure()
        .map_or_else(|| "no failure".to_string(), |f| f.signature().to_string());
    Err(ArtifactError::Unstable {
        path: path.to_path_buf(),
        seen,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A timeout in `function`, or unplaced (`None`).
    fn timeout(function: Option<&str>) -> Failure {
        Failure {
            location: function.map(String::from),
            call_path: function.into_iter().map(String::from).collect(),
            ..Failure::new(FailureKind::Timeout, "timeout after 3s")
        }
    }

    /// Runs of one hang whose stack could not be taken once are one
    /// failure, placed; two places, or a timeout and a panic, are not.
    #[test]
    fn an_unplaced_timeout_is_the_same_as_a_placed_one() {
        let one = |runs: &[Failure]| {
            one_failure(runs, MatchLevel::Message)
                .cloned()
                .map_err(|_| ())
        };
        let (placed, unplaced) = (timeout(Some("demo::spin")), timeout(None));
        let runs = [unplaced.clone(), placed.clone(), unplaced.clone()];
        assert_eq!(one(&runs).unwrap(), placed);
        let all_unplaced = [unplaced.clone(), unplaced.clone()];
        assert_eq!(one(&all_unplaced).unwrap(), unplaced);
        let elsewhere = [placed.clone(), timeout(Some("demo::wait"))];
        assert!(one(&elsewhere).is_err());
        let panic = Failure::new(FailureKind::Panic, "boom");
        assert!(one(&[unplaced.clone(), panic.clone()]).is_err());
        assert!(one(&[panic, unplaced]).is_err());
    }

    /// Runs are one failure at the level the reduction compares at: two
    /// places of a timeout are one at `--match kind`.
    #[test]
    fn runs_are_compared_at_the_reductions_level() {
        let runs = [timeout(Some("demo::spin")), timeout(Some("demo::wait"))];
        assert!(one_failure(&runs, MatchLevel::Location).is_err());
        assert!(one_failure(&runs, MatchLevel::Kind).is_ok());
    }

    #[test]
    fn probes_grow_4x_up_to_the_timeout() {
        let ms = |v: &[u64]| {
            v.iter()
                .map(|&m| Duration::from_millis(m))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            probe_timeouts(Duration::from_secs(1)),
            ms(&[25, 100, 400, 1000])
        );
        // AFL++'s exec_timeout of 50 ms: a tenth of it first.
        assert_eq!(probe_timeouts(Duration::from_millis(50)), ms(&[5, 20, 50]));
        assert_eq!(probe_timeouts(Duration::from_millis(10)), ms(&[2, 8, 10]));
    }

    /// `slow` sleeps 60 ms, `slow…L` hangs: under the first probe (25 ms)
    /// `slow` looks like a hang, so the probe's result fails the check
    /// under the real timeout and the reduction starts over under a longer
    /// probe, which keeps the `L`. (Quick: the search would go on to
    /// `loop`, another hang, which a timeout's signature cannot tell
    /// apart.)
    #[test]
    fn a_slow_candidate_taken_for_a_hang_makes_the_probe_grow() {
        use crate::engine::Reducer;
        use crate::fuzz::oracle::MatchLevel;
        let pool = crate::fuzz::pool::tests::pool("crashes");
        let artifact = b"slowxL".to_vec();
        let failure = pool.run(&artifact).unwrap().failure().unwrap().clone();
        assert_eq!(failure.kind, FailureKind::Timeout);
        let oracle = HarnessOracle::new(&pool, &failure, MatchLevel::Message);
        let run = Reducer::new();
        let minimized = minimize_hang(
            artifact,
            &oracle,
            &Method::Bytes(DdminOptions::default(), Effort::Quick),
            &run.context(),
        )
        .unwrap();
        assert_eq!(minimized.bytes, b"slowL");
        assert!(minimized.checked.is_some());
        assert_eq!(
            pool.timeout(),
            Duration::from_secs(2),
            "the timeout is restored"
        );
    }

    /// A candidate smaller than the result that timed out runs again under
    /// a longer timeout: one that then fails the same way is reduced from
    /// (`patient` panics after 1.2 s, past the 500 ms timeout), one still
    /// running counts as not failing (`stuck~` never ends), and either
    /// result stands as 1-minimal.
    #[test]
    fn timed_out_candidates_below_the_result_are_settled() {
        use crate::engine::Reducer;
        let pool = crate::fuzz::pool::tests::pool("crashes");
        pool.set_timeout(Duration::from_millis(500));
        let reduce = |artifact: &[u8]| {
            let failure = pool.run(artifact).unwrap().failure().unwrap().clone();
            let oracle = HarnessOracle::new(&pool, &failure, MatchLevel::Message);
            let run = Reducer::new();
            let method = Method::Bytes(DdminOptions::default(), Effort::Quick);
            let minimized = minimize(artifact.to_vec(), &oracle, &method, &run.context()).unwrap();
            (
                String::from_utf8(minimized.bytes).unwrap(),
                minimized.stopped,
            )
        };
        assert_eq!(reduce(b"patient!"), ("patient".to_string(), None));
        assert_eq!(reduce(b"stuck~!"), ("stuck~!".to_string(), None));
    }

    /// Ctrl-C once a probe has shrunk the artifact: its result is kept
    /// (as a partial result, checked by the next run), not the artifact.
    #[test]
    fn ctrl_c_under_a_probe_keeps_the_probes_best() {
        use crate::engine::{Observer, Reducer};
        use crate::fuzz::oracle::MatchLevel;
        use crate::fuzz::pool::tests::stopped_by;
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;
        /// Presses Ctrl-C at the first smaller configuration.
        struct CtrlC(Arc<AtomicBool>);
        impl Observer<u8> for CtrlC {
            fn reduced(&self, _: &[u8]) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let flag = Arc::new(AtomicBool::new(false));
        let pool = stopped_by("crashes", flag.clone());
        let artifact = b"loopxxxxxxxxxxxx".to_vec();
        let failure = pool.run(&artifact).unwrap().failure().unwrap().clone();
        assert_eq!(failure.kind, FailureKind::Timeout);
        let oracle = HarnessOracle::new(&pool, &failure, MatchLevel::Message);
        let run = Reducer::new().interrupt(flag.clone());
        let ctrl_c = CtrlC(flag);
        let ctx = Context {
            observer: &ctrl_c,
            ..run.context()
        };
        let method = Method::Bytes(DdminOptions::default(), Effort::Quick);
        let minimized = minimize_hang(artifact.clone(), &oracle, &method, &ctx).unwrap();
        assert_eq!(minimized.stopped, Some(StopReason::Interrupted));
        assert!(
            minimized.bytes.len() < artifact.len() && minimized.bytes.starts_with(b"loop"),
            "{:?}",
            String::from_utf8_lossy(&minimized.bytes)
        );
    }

    /// `arbitrary` reads `path`'s length from the last byte: ddmin cannot
    /// delete a byte of the path without re-cutting the fields after it;
    /// the typed reduction shortens the path with its length rewritten and
    /// lowers `verb` to 0, so the `Debug` form is the smallest failing
    /// value. `--effort quick` stops where ddmin and canonicalization stop.
    #[test]
    fn the_search_goes_past_ddmin_on_lengths_read_from_the_end() {
        use crate::engine::Reducer;
        use crate::fuzz::oracle::MatchLevel;
        let pool = crate::fuzz::pool::tests::pool("typed_lengths");
        let artifact = b"xx..yyGrm -rf\x06".to_vec();
        let failure = pool.run(&artifact).unwrap().failure().unwrap().clone();
        let oracle = HarnessOracle::new(&pool, &failure, MatchLevel::Message);
        let reduce = |effort| {
            let run = Reducer::new();
            let method = Method::Bytes(DdminOptions::default(), effort);
            let minimized = minimize(artifact.clone(), &oracle, &method, &run.context()).unwrap();
            (minimized.bytes, run.tests())
        };
        let (quick, _) = reduce(Effort::Quick);
        assert_eq!(quick, b"00..000rm\x06");
        let (searched, tests) = reduce(Effort::Default);
        assert_eq!(searched, b"..\0rm\x02");
        assert!(tests < 2_000, "{tests} tests");
        assert_eq!(
            pool.debug_format(&searched).unwrap().unwrap(),
            "Request {\n    path: \"..\",\n    verb: 0,\n    body: \"rm\",\n}"
        );
    }

    /// A target of source text, reduced as JavaScript: whole statements
    /// and arguments go, the call and its parentheses stay.
    #[test]
    fn syntax_aware_reduction_keeps_programs_well_formed() {
        use crate::engine::Reducer;
        use crate::fuzz::oracle::MatchLevel;
        let pool = crate::fuzz::pool::tests::pool("source");
        let artifact = b"let total = 0;\nfor (const x of [1, 2]) {\n  total += x;\n}\nif (total > 2) {\n  app.crash(total, \"now\");\n}\nconsole.log(total);\n".to_vec();
        let failure = pool.run(&artifact).unwrap().failure().unwrap().clone();
        let oracle = HarnessOracle::new(&pool, &failure, MatchLevel::Message);
        let run = Reducer::new();
        let method = Method::Syntax(Lang::JavaScript, Strategy::Best);
        let minimized = minimize(artifact, &oracle, &method, &run.context()).unwrap();
        assert_eq!(String::from_utf8_lossy(&minimized.bytes), "crash()");
    }
}
