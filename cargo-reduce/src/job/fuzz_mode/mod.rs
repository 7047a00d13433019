//! Fuzz mode: every failing input of the project's fuzz crates (or the
//! ones named), reduced in-process: libFuzzer's artifacts and the crashes
//! and hangs of AFL++ instances. The targets are built once against their
//! engine's stand-in; each input is reproduced, reduced in its target's
//! worker pool while it fails the same way, checked, and written as
//! `minimized-from-<name>` in its target's `artifacts/<target>/`.

mod also;
mod build_targets;
pub(super) mod limits;
mod pools;
mod roles;
mod sanitize;
mod select;
mod subject;
mod summary;
mod triage;

pub(super) use also::write as write_also_found;
pub(crate) use also::AlsoFound;
pub(super) use build_targets::{build, Binaries};
pub(super) use sanitize::toolchain as asan_toolchain;
pub(crate) use select::discover;
pub(crate) use subject::Reduction;
pub(super) use subject::{named, reduce_one};
pub(crate) use summary::{Row, Summary};

use std::path::PathBuf;
use std::time::Duration;

use super::{Events, LangChoice, Message, Settings};
use crate::engine::StopReason;
use crate::error::{Error, Exit};
use crate::fuzz::oracle::MatchLevel;
use crate::fuzz::pool::{Exits, Failure, PoolOptions};
use crate::fuzz::project::{
    Artifact, ArtifactKind, Engine, FuzzProject, Origin, Selection, TargetSettings,
    MINIMIZED_PREFIX,
};
use crate::fuzz::sanitizer::Sanitizer;
use crate::fuzz::shrink::Effort;
use crate::job::group::Role;
use crate::syntax::Strategy;
use pools::{Pools, TargetOptions};
use roles::Roles;
use sanitize::Sanitizers;

/// What `cargo reduce [ARTIFACT…]` was asked to do.
#[derive(Debug, Clone, Default)]
pub(crate) struct FuzzRequest {
    /// Artifacts named on the command line (none: every unreduced one).
    pub artifacts: Vec<PathBuf>,
    /// The crates and targets (`--manifest-path`, `-p`, `--fuzz-target`,
    /// `--afl-out`).
    pub selection: Selection,
    /// `--force`: reduce artifacts that have a minimized copy, too.
    pub force: bool,
    /// `--all`: reduce every failing input, not one per distinct failure.
    pub all: bool,
    /// `--match`.
    pub matching: MatchLevel,
    /// `--timeout` [default: 1 s].
    pub timeout: Option<Duration>,
    /// `--lang`: reduce the artifacts as source text.
    pub lang: Option<LangChoice>,
    /// `--strategy`, with `--lang`.
    pub strategy: Option<Strategy>,
    /// `--rss-limit-mb` [default: 2048 MB, or an AFL++ input's `-m`].
    pub rss_limit_mb: Option<u64>,
    /// `--slow-unit-secs`: a `slow-unit-*` artifact fails by running longer
    /// than this (libFuzzer's `-report_slow_units`, default 10 s).
    pub slow_unit: Option<Duration>,
    /// `--effort`: how far a byte reduction searches past ddmin.
    pub effort: Effort,
    /// `--sanitizer`: which build reproduces an artifact.
    pub sanitizer: Sanitizer,
}

impl FuzzRequest {
    /// The worker pool's options for `jobs` workers running a target with
    /// `settings` (its `Cargo.toml`'s): the request's timeout and memory
    /// limit, else the target's, else libFuzzer's defaults.
    pub(crate) fn pool_options(&self, jobs: usize, settings: TargetSettings) -> PoolOptions {
        let limits = settings.under(TargetSettings {
            timeout: self.timeout,
            rss_limit_mb: self.rss_limit_mb,
        });
        PoolOptions {
            jobs,
            timeout: limits.timeout.unwrap_or(DEFAULT_TIMEOUT),
            rss_limit_mb: limits.rss_limit_mb.unwrap_or(DEFAULT_RSS_LIMIT_MB),
            ..PoolOptions::default()
        }
    }
}

/// `options` for the targets of a crate of `engine`: which exits of a
/// test fail it, as the engine counts them (afl.rs: `AFL_CRASH_EXITCODE`).
pub(crate) fn engine_options(options: &PoolOptions, engine: Engine) -> Result<PoolOptions, Error> {
    let exits = match engine {
        Engine::LibFuzzer => Exits::Fail,
        Engine::Afl => {
            crate::fuzz::engines::afl::exits().map_err(|e| Error::new(Exit::Usage, e))?
        }
    };
    Ok(PoolOptions {
        exits,
        ..options.clone()
    })
}

/// The timeout without `--timeout` (libFuzzer's `-timeout` for replays).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1);
/// The memory limit without `--rss-limit-mb` (libFuzzer's default).
const DEFAULT_RSS_LIMIT_MB: u64 = 2048;

/// libFuzzer's `-report_slow_units` default.
const DEFAULT_SLOW_UNIT: Duration = Duration::from_secs(10);

/// What every stage of a run reads.
#[derive(Clone, Copy)]
pub(in crate::job) struct Context<'a> {
    pub request: &'a FuzzRequest,
    pub settings: &'a Settings,
    pub events: &'a dyn Events,
}

/// One artifact to reduce, or to replay only (`done`: it has a minimized
/// copy, and its failure may make others duplicates).
#[derive(Clone)]
pub(super) struct Work {
    /// Index of its fuzz crate.
    pub project: usize,
    /// Its target.
    pub target: String,
    /// The input, and where its reduction goes.
    pub artifact: Artifact,
    /// Whether it only needs replaying.
    pub done: bool,
}

impl Work {
    /// Its row in the summary, with `result`.
    fn row(&self, elapsed: Duration, result: Result<Reduction, Error>) -> Row {
        Row {
            name: self.name(),
            from: self.from(),
            original: self.artifact.size as usize,
            elapsed,
            result,
        }
    }

    /// Whether it fails by taking too long.
    fn is_timeout(&self) -> bool {
        matches!(
            self.artifact.kind,
            ArtifactKind::Timeout | ArtifactKind::SlowUnit
        )
    }

    /// `target/name`: the name of the reduction, without its prefix (for
    /// AFL inputs, the instance, id and signal).
    fn name(&self) -> String {
        let output = self.artifact.output.file_name().unwrap_or_default();
        let output = output.to_string_lossy();
        let name = output.strip_prefix(MINIMIZED_PREFIX).unwrap_or(&output);
        format!("{}/{name}", self.target)
    }

    /// The input's path, for AFL++ inputs (whose reduction is named apart
    /// from them).
    fn from(&self) -> Option<PathBuf> {
        matches!(self.artifact.origin, Origin::Afl(_)).then(|| self.artifact.path.clone())
    }
}

/// Reduces the artifacts `request` selects.
pub(crate) fn run(
    request: &FuzzRequest,
    settings: &Settings,
    events: &dyn Events,
) -> Result<Summary, Error> {
    let cx = Context {
        request,
        settings,
        events,
    };
    let projects = discover(&request.selection)?;
    select::warn_about_instances(&projects, events);
    let work = select::select_work(request, &projects, events)?;
    let mut summary = Summary::new(&projects);
    if work.iter().all(|w| w.done) {
        return Ok(summary);
    }
    super::check_temp_dir()?;
    let sanitizers = Sanitizers::new(request.sanitizer)?;
    let binaries = build(
        &projects,
        &work,
        sanitizers.first_build(&work),
        settings,
        events,
    )?;
    let options = target_options(&projects, &work, cx)?;
    let mut pools = Pools::start(&work, &binaries, &options, &mut summary, events);
    let probed = sanitize::probe_all(&projects, &work, &mut pools, &sanitizers, &options, cx)?;
    let Some(roles) = roles::assign(&work, &pools, probed, cx, &mut summary) else {
        summary.exit = Exit::Interrupted;
        return Ok(summary);
    };
    reduce_all(&work, roles, &pools, cx, &mut summary);
    Ok(summary)
}

/// Reduces each input whose role says so (in its pool), and reports the
/// duplicates; stops at Ctrl-C.
fn reduce_all(
    work: &[Work],
    mut roles: Roles,
    pools: &Pools,
    cx: Context<'_>,
    summary: &mut Summary,
) {
    let mut failures = known_failures(work, &roles, cx);
    for (i, item) in work.iter().enumerate() {
        let (Some(role), Some(pool)) = (roles.roles[i], pools.of(i)) else {
            continue;
        };
        match role {
            Role::Done => {}
            Role::Duplicate { of } if !item.done => {
                let known = roles.known[i].as_ref();
                duplicate(item, &work[of], known, cx, summary);
            }
            Role::Duplicate { .. } => {}
            Role::Reduce => {
                let known = roles.known[i].take();
                let row = reduce_one(item, pool, known, cx);
                let stopped = row
                    .result
                    .as_ref()
                    .is_ok_and(|d| d.stopped == Some(StopReason::Interrupted));
                file_also_found(item, &row, &mut failures, cx, summary);
                summary.record(row, cx.events);
                if stopped {
                    summary.exit = Exit::Interrupted;
                    break;
                }
            }
        }
    }
}

/// The failures of the run's inputs that replaying them found.
fn known_failures(work: &[Work], roles: &Roles, cx: Context<'_>) -> also::Known {
    let mut known = also::Known::default();
    for (item, failure) in work.iter().zip(&roles.known) {
        if let Some(failure) = failure {
            let level = cx.request.matching.other_bug();
            known.add(item, named(failure, level).1);
        }
    }
    known
}

/// Files the failures `row`'s reduction ran into that the run does not
/// know yet (its own failure the oracle never counts as another).
fn file_also_found(
    item: &Work,
    row: &Row,
    known: &mut also::Known,
    cx: Context<'_>,
    summary: &mut Summary,
) {
    let Ok(done) = &row.result else {
        return;
    };
    match also::file(item, &done.extra, known, cx) {
        Ok(filed) => summary.also_found.extend(filed),
        Err(e) => summary.fail(&e, cx.events),
    }
}

/// The pool options of each target with work: the request's limits over
/// its `Cargo.toml` settings, with its engine's exits; leaks looked for
/// where a `leak-*` artifact is to be reduced.
fn target_options(
    projects: &[FuzzProject],
    work: &[Work],
    cx: Context<'_>,
) -> Result<TargetOptions, Error> {
    let jobs = workers(cx.settings.jobs, cx.events);
    let leaks = |item: &Work| {
        let of_target = |w: &&Work| w.project == item.project && w.target == item.target;
        work.iter()
            .filter(of_target)
            .any(|w| w.artifact.kind == ArtifactKind::Leak && !w.done)
    };
    let mut options = TargetOptions::default();
    for item in work {
        let project = &projects[item.project];
        let settings = project.settings_of(&item.target);
        let target = engine_options(&cx.request.pool_options(jobs, settings), project.engine)?;
        let detect_leaks = leaks(item);
        options.insert(
            item,
            PoolOptions {
                detect_leaks,
                ..target
            },
        );
    }
    Ok(options)
}

/// Reports `item` as failing like `of`, which is (or was) reduced for it.
fn duplicate(
    item: &Work,
    of: &Work,
    known: Option<&Failure>,
    cx: Context<'_>,
    summary: &mut Summary,
) {
    let (failure, id) = known
        .map(|f| named(f, cx.request.matching))
        .unwrap_or_default();
    cx.events.emit(&Message::ArtifactDuplicate {
        path: item.artifact.path.clone(),
        target: item.target.clone(),
        failure,
        failure_id: id,
        same_as: of.artifact.path.clone(),
    });
    summary.duplicates.push((item.name(), of.name()));
}

/// Worker processes for `-j jobs`: tests run in-process and use a core
/// each, so more workers than cores only slow every test down (and take
/// start-up time from the budget).
pub(super) fn workers(jobs: usize, events: &dyn Events) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    if jobs <= cores {
        return jobs;
    }
    events.emit(&Message::Warning {
        message: format!("-j {jobs}: using {cores} workers, one per core (tests run in-process)"),
    });
    cores
}
