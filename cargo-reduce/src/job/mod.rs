//! The one reduction workflow. Every mode reduces an input the same way:
//! check it (it must fail, and fail alike each time), reduce it, run the
//! result once more, write it atomically, and end with one message. The
//! modes differ only in where inputs come from and which oracle runs them:
//! that is a [`Subject`] ([`mod@file`]: a file and a test command; [`fuzz_mode`]: a
//! fuzz artifact in a worker pool).
//!
//! Nothing here prints: every event is a [`Message`] handed to [`Events`],
//! which the CLI renders as human lines or JSON.

pub(crate) mod ci;
pub(crate) mod corpus;
pub(crate) mod coverage;
pub(crate) mod file;
pub(crate) mod fuzz_mode;
mod group;
pub(crate) mod ice;
pub(crate) mod message;
mod progress;
mod replay_cache;
pub(crate) mod run;
pub(crate) mod shell;
pub(crate) mod threads;
mod write;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub(crate) use message::Message;
pub(crate) use progress::View;

use crate::engine::{
    Context, Counters, DdminOptions, Limits, OracleError, OutcomeCache, StopReason,
};
use crate::error::{Error, Exit};
use crate::output::{shown, Destination};
pub(crate) use crate::syntax::LangChoice;
use crate::unit::ByteAtom;
use message::{ArtifactFields, Finished, Phases, Started, StepTests};
use progress::{Progress, TestsOnly};

/// Where a job's messages go; the CLI renders them.
pub(crate) trait Events: Sync {
    /// One event.
    fn emit(&self, message: &Message);
    /// How a reduction shows its progress.
    fn view(&self) -> Box<dyn View + '_>;
}

/// How to reduce, whatever the input: parallelism, budgets, the ddmin
/// variant, the cache, and Ctrl-C.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    /// Tests in parallel.
    pub jobs: usize,
    /// Stop after this many test runs in all (the final check included).
    pub max_tests: Option<u64>,
    /// Stop after this long.
    pub max_time: Option<Duration>,
    /// The ddmin variant.
    pub ddmin: DdminOptions,
    /// Answer repeated candidates from the outcome cache.
    pub cache: bool,
    /// Set by Ctrl-C.
    pub interrupt: Arc<AtomicBool>,
}

impl Settings {
    /// The limits of one reduction: `max_tests` keeps one test in reserve
    /// for the final check, `max_time` counts from `started`.
    fn limits(&self, started: Instant) -> Limits {
        let mut limits = Limits::none().with_interrupt(self.interrupt.clone());
        if let Some(max) = self.max_tests {
            limits = limits.with_max_tests(max.saturating_sub(1));
        }
        if let Some(max) = self.max_time {
            limits = limits.with_max_time(max.saturating_sub(started.elapsed()));
        }
        limits
    }

    /// The worker pools' stop flag: Ctrl-C ends the tests running.
    pub(crate) fn stop_flag(&self) -> crate::fuzz::pool::StopFlag {
        crate::fuzz::pool::StopFlag::new(self.interrupt.clone())
    }
}

/// What one reduction shares between its steps.
pub(crate) struct Run<'a> {
    /// The settings.
    pub settings: &'a Settings,
    /// The reduction's limits.
    pub limits: &'a Limits,
    /// Only Ctrl-C: for the input's own checks, which no budget cuts short.
    pub interrupt_only: &'a Limits,
    /// Tests and cache hits.
    pub counters: &'a Counters,
    cache: Option<&'a OutcomeCache>,
    progress: &'a Progress<'a>,
    side: TestsOnly<'a>,
    events: &'a dyn Events,
}

impl Run<'_> {
    /// The engine context over `A` atoms.
    pub(crate) fn context<A: ByteAtom>(&self) -> Context<'_, A> {
        Context {
            jobs: self.settings.jobs,
            limits: self.limits,
            cache: self.cache,
            counters: self.counters,
            observer: self.progress,
        }
    }

    /// The engine context of a reduction of something besides the result
    /// (an ICE's auxiliary crate): its tests show in the progress, its
    /// sizes are not taken for the result's.
    pub(crate) fn side_context<A: ByteAtom>(&self) -> Context<'_, A> {
        Context {
            observer: &self.side,
            ..self.context()
        }
    }

    /// The engine context over atoms that are not bytes (a command line's
    /// flags): without the cache, whose keys would hash them like byte
    /// candidates', and without progress, which counts bytes.
    pub(crate) fn plain_context<A>(&self) -> Context<'_, A> {
        Context {
            jobs: self.settings.jobs,
            limits: self.limits,
            cache: None,
            counters: self.counters,
            observer: &(),
        }
    }

    /// Forgets every cached outcome: the oracle changed (an ICE's
    /// dependency taken in or built beside), so a text's outcome may have.
    pub(crate) fn oracle_changed(&self) {
        if let Some(cache) = self.cache {
            cache.clear();
        }
    }

    /// Emits `message`.
    pub(crate) fn emit(&self, message: &Message) {
        self.events.emit(message);
    }

    /// A new pass (over `unit` atoms) begins.
    pub(crate) fn start_pass(&self, unit: &str) {
        self.progress.start_pass(unit);
    }
}

/// A reduction's result.
#[derive(Debug, Clone)]
pub(crate) struct Reduced<E = ()> {
    /// The reduced bytes.
    pub bytes: Vec<u8>,
    /// How long the check of the result took, when the reduction already
    /// made it (a hang's probes do); the workflow then skips its own.
    pub checked: Option<Duration>,
    /// What the subject gives back besides the bytes ([`Subject::Extra`]).
    pub extra: E,
}

impl<E> Reduced<E> {
    /// A result still to be checked, with what the subject adds.
    pub(crate) fn unchecked(bytes: Vec<u8>, extra: E) -> Self {
        Reduced {
            bytes,
            checked: None,
            extra,
        }
    }
}

/// What one mode does with one input.
pub(crate) trait Subject {
    /// What a reduction gives back besides the bytes (an ICE's MCVE: the
    /// command line that crashes rustc on it and its auxiliary crates);
    /// `()` for the others.
    type Extra;
    /// What `reduction-started` says about how the input is tested.
    fn how(&self) -> message::How;
    /// Checks the input: it must fail, the same way every time. Counts its
    /// tests in `run.counters`.
    fn check(&mut self, input: &[u8], run: &Run<'_>) -> Result<(), Error>;
    /// Reduces `input`; on an oracle error, the best bytes so far with it.
    fn reduce(
        &self,
        input: Vec<u8>,
        run: &Run<'_>,
    ) -> Result<Reduced<Self::Extra>, (Vec<u8>, OracleError)>;
    /// Runs the result once more: it must still fail the same way. An
    /// error with [`Exit::Interrupted`] means Ctrl-C stopped the check: the
    /// result is then written as the best so far, not 1-minimal.
    fn verify(&self, reduced: &Reduced<Self::Extra>, run: &Run<'_>) -> Result<(), Error>;
    /// What fuzz mode adds to `reduction-finished` for `reduced`, written
    /// to `output` (none in `file` mode).
    fn describe(&self, _reduced: &[u8], _output: &Path) -> Option<Described> {
        None
    }
}

/// A fuzz artifact's failure and value, for `reduction-finished`.
#[derive(Debug, Clone)]
pub(crate) struct Described {
    /// The fuzz target.
    pub target: String,
    /// The failure's signature.
    pub failure: String,
    /// The short id of what `--match` compares of it.
    pub failure_id: String,
    /// How serious the failure is.
    pub severity: crate::fuzz::pool::Severity,
    /// A typed target's value, as its `Debug` form.
    pub debug: Option<String>,
    /// `cargo reduce run …` for the result, quoted for a shell.
    pub run: String,
}

/// One input to reduce and where its result goes.
pub(crate) struct Job<'a> {
    /// The input's path (never opened for writing).
    pub input: &'a Path,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Where the result goes, checked before the first test.
    pub output: &'a Destination,
    /// Where a result that is not 1-minimal goes instead, so that it never
    /// stands under the final name (fuzz mode's `partial-from-<name>`, which
    /// the next run finishes; ice's `NAME.ice.partial.rs`); `None`: to
    /// `output` too.
    pub partial: Option<Partial<'a>>,
    /// The pass label the progress display starts with.
    pub label: String,
}

/// The place of a [`Job`]'s result that is not 1-minimal.
#[derive(Clone, Copy)]
pub(crate) struct Partial<'a> {
    /// Where it goes.
    pub destination: &'a Destination,
    /// Whether a result no smaller than the input is left unwritten, the
    /// input file standing as the best so far (fuzz mode's artifact: a
    /// copy beside it would be taken for progress). Ice mode's input is a
    /// crate made one file, no file of the user's: its copy is written.
    pub input_stands: bool,
}

/// A finished reduction, as the summary needs it.
#[derive(Debug, Clone)]
pub(crate) struct Done<E = ()> {
    /// Where the result was written.
    pub output: PathBuf,
    /// The reduced bytes' size.
    pub reduced: usize,
    /// The reduced bytes, as written.
    pub bytes: Vec<u8>,
    /// Tests run, checks included.
    pub tests: u64,
    /// Why a limit stopped it, if one did (then not 1-minimal).
    pub stopped: Option<StopReason>,
    /// What fuzz mode adds.
    pub described: Option<Described>,
    /// What the subject gave back besides the bytes.
    pub extra: E,
}

/// Reduces `job` with `subject`: check, reduce, verify, write, report.
/// On an oracle error the best result so far is still written, and the
/// error says where.
pub(crate) fn reduce<S: Subject>(
    subject: &mut S,
    job: Job<'_>,
    settings: &Settings,
    events: &dyn Events,
) -> Result<Done<S::Extra>, Error> {
    let started = Instant::now();
    let _exclusive = lock_output(job.output)?;
    let how = subject.how();
    let syntax = message::syntax_aware(&how);
    events.emit(&started_message(&job, how));
    let state = RunState::new(settings, started);
    let view = events.view();
    let progress = Progress::new(
        (view.as_ref(), events),
        &state.counters,
        (job.input.to_path_buf(), &job.bytes),
        syntax,
        started,
    );
    let run = state.run(settings, &progress, events);
    subject.check(&job.bytes, &run)?;
    let checked_at = Instant::now();
    progress.start_pass(&job.label);
    let result = subject.reduce(job.bytes.clone(), &run);
    progress.finish(match &result {
        Ok(reduced) => &reduced.bytes,
        Err((best, _)) => best,
    });
    let steps = progress.steps();
    let times = Times {
        started,
        checked_at,
        reduced_at: Instant::now(),
    };
    let reduced = match result {
        Ok(reduced) => reduced,
        Err((best, e)) => return Err(failed(&job, &run, &best, e)?),
    };
    let stopped = verified(subject, &reduced, &run)?;
    said_stopped(&job, &run, stopped);
    let output = written(&job, &reduced.bytes, stopped.is_none())?;
    Ok(finished(
        subject,
        &job,
        reduced,
        Ended {
            output,
            stopped,
            steps,
            times,
        },
        &run,
    ))
}

/// `reduction-started`.
fn started_message(job: &Job<'_>, how: message::How) -> Message {
    Message::ReductionStarted(Started {
        input: job.input.to_path_buf(),
        output: job.output.path().to_path_buf(),
        original_bytes: job.bytes.len(),
        how,
    })
}

/// What a [`Run`] borrows: the reduction's counters, limits and cache.
struct RunState {
    counters: Counters,
    limits: Limits,
    interrupt_only: Limits,
    cache: OutcomeCache,
}

impl RunState {
    /// A reduction's state as `settings` ask, its time counted from
    /// `started`.
    fn new(settings: &Settings, started: Instant) -> Self {
        RunState {
            counters: Counters::default(),
            limits: settings.limits(started),
            interrupt_only: Limits::none().with_interrupt(settings.interrupt.clone()),
            cache: OutcomeCache::new(),
        }
    }

    /// The [`Run`] its steps share.
    fn run<'a>(
        &'a self,
        settings: &'a Settings,
        progress: &'a Progress<'a>,
        events: &'a dyn Events,
    ) -> Run<'a> {
        Run {
            settings,
            limits: &self.limits,
            interrupt_only: &self.interrupt_only,
            counters: &self.counters,
            cache: settings.cache.then_some(&self.cache),
            progress,
            side: TestsOnly(progress),
            events,
        }
    }
}

/// When the stages of one reduction ended.
struct Times {
    started: Instant,
    checked_at: Instant,
    reduced_at: Instant,
}

/// How a reduction ended: where its result went, why it stopped short,
/// its steps and times.
struct Ended {
    output: PathBuf,
    stopped: Option<StopReason>,
    steps: Vec<StepTests>,
    times: Times,
}

/// Why the result is not 1-minimal, if it is not, once it is checked
/// again (unless the reduction checked it, or Ctrl-C stopped it). Ctrl-C
/// during the check makes the result the best so far.
fn verified<S: Subject>(
    subject: &S,
    reduced: &Reduced<S::Extra>,
    run: &Run<'_>,
) -> Result<Option<StopReason>, Error> {
    let stopped = run.limits.stop_reason();
    if reduced.checked.is_some() || stopped == Some(StopReason::Interrupted) {
        return Ok(stopped);
    }
    match subject.verify(reduced, run) {
        Err(e) if e.exit() == Exit::Interrupted => {
            run.limits.stop(StopReason::Interrupted);
            Ok(run.limits.stop_reason())
        }
        Err(e) => Err(e),
        Ok(()) => Ok(stopped),
    }
}

/// `reduction-stopped`, when a limit stopped the reduction.
fn said_stopped(job: &Job<'_>, run: &Run<'_>, stopped: Option<StopReason>) {
    if let Some(reason) = stopped {
        run.emit(&Message::ReductionStopped {
            input: Some(job.input.to_path_buf()),
            why: reason.into(),
        });
    }
}

/// Writes `bytes` where `job`'s result goes (one that is not `minimal` to
/// its partial place, if it has one); returns the path. A partial result
/// no smaller than the input is not written where the input stands as the
/// best so far ([`Partial::input_stands`]).
fn written(job: &Job<'_>, bytes: &[u8], minimal: bool) -> Result<PathBuf, Error> {
    let output = match job.partial {
        Some(partial) if !minimal && partial.input_stands && bytes == job.bytes.as_slice() => {
            return Ok(job.input.to_path_buf());
        }
        Some(partial) if !minimal => partial.destination,
        _ => job.output,
    };
    write::result(output, bytes, job.input)?;
    if let (true, Some(Destination::File { resolved, .. })) =
        (minimal, job.partial.map(|p| p.destination))
    {
        // An earlier run's partial result (this tool's own file) is done.
        let _ = std::fs::remove_file(resolved);
    }
    Ok(output.path().to_path_buf())
}

/// The error of a reduction an oracle error ended, once the best result
/// so far (`best`) is written (an `Err` here: writing it failed).
fn failed(job: &Job<'_>, run: &Run<'_>, best: &[u8], e: OracleError) -> Result<Error, Error> {
    said_stopped(job, run, run.limits.stop_reason());
    let output = written(job, best, false)?;
    let exit = match e.downcast_ref::<crate::command::CommandError>() {
        Some(e) => crate::error::command_exit(e),
        None => Exit::Failure,
    };
    Ok(Error::caused_with_hint(
        exit,
        format!("reducing `{}` failed", shown(job.input)),
        e,
        format!(
            "the best result so far ({} bytes) is in `{}`",
            best.len(),
            shown(&output)
        ),
    ))
}

/// `reduction-finished`, and the [`Done`] the caller gets.
fn finished<S: Subject>(
    subject: &S,
    job: &Job<'_>,
    reduced: Reduced<S::Extra>,
    ended: Ended,
    run: &Run<'_>,
) -> Done<S::Extra> {
    let Times {
        started,
        checked_at,
        reduced_at,
    } = ended.times;
    let checked = reduced.checked.unwrap_or_default();
    let phases = Phases {
        reproduce_s: message::seconds(checked_at - started, 6),
        reduce_s: message::seconds(reduced_at - checked_at - checked, 6),
        verify_s: message::seconds(reduced_at.elapsed() + checked, 6),
    };
    let elapsed = started.elapsed();
    // Not part of the reduction: a typed value's Debug form costs a
    // one-off worker.
    let described = subject.describe(&reduced.bytes, &ended.output);
    let counters = run.counters;
    run.emit(&Message::ReductionFinished(Finished {
        input: job.input.to_path_buf(),
        output: ended.output.clone(),
        original_bytes: job.bytes.len(),
        reduced_bytes: reduced.bytes.len(),
        tests_run: counters.tests(),
        cache_hits: counters.cache_hits(),
        elapsed_s: message::seconds(elapsed, 3),
        minimal: ended.stopped.is_none(),
        stopped: ended.stopped.map(Into::into),
        steps: ended.steps,
        artifact: described.as_ref().map(|d| ArtifactFields {
            target: d.target.clone(),
            failure: d.failure.clone(),
            failure_id: d.failure_id.clone(),
            severity: d.severity,
            debug: d.debug.clone(),
            run: d.run.clone(),
            phases,
        }),
    }));
    Done {
        output: ended.output,
        reduced: reduced.bytes.len(),
        bytes: reduced.bytes,
        tests: counters.tests(),
        stopped: ended.stopped,
        described,
        extra: reduced.extra,
    }
}

/// The exclusive right to write `output` for this run (see
/// [`crate::output::lock`]).
fn lock_output(output: &Destination) -> Result<std::fs::File, Error> {
    match crate::output::lock(output) {
        Ok(Some(file)) => Ok(file),
        Ok(None) => Err(Error::new(
            Exit::OutputBusy,
            format!(
                "another cargo-reduce run is writing `{}`: wait for it to finish, or choose another output",
                shown(output.path())
            ),
        )),
        Err(e) => Err(temp_dir_error(e)),
    }
}

/// Checks that the temporary directory can be written: fuzz mode's build
/// and worker pool need it (each worker's stderr is kept there), so an
/// unusable one is refused before building, as its own error.
pub(crate) fn check_temp_dir() -> Result<(), Error> {
    crate::output::check_temp_dir().map_err(temp_dir_error)
}

/// The error for a temporary directory that cannot be written.
fn temp_dir_error(e: std::io::Error) -> Error {
    Error::caused_with_hint(
        Exit::Environment,
        format!(
            "the temporary directory `{}` cannot be written",
            shown(&std::env::temp_dir())
        ),
        e,
        "set TMPDIR to a writable directory",
    )
}
