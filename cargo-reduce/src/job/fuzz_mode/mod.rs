//! Fuzz mode: every failing input of the project's fuzz crates (or the
//! ones named), reduced in-process: libFuzzer's artifacts and the crashes
//! and hangs of AFL++ instances. The targets are built once against their
//! engine's stand-in; each input is reproduced, reduced in its target's
//! worker pool while it fails the same way, checked, and written as
//! `minimized-from-<name>` in its target's `artifacts/<target>/`.

mod also;
mod build_targets;
mod duplicates;
pub(super) mod limits;
mod outcomes;
mod pools;
mod roles;
mod sanitize;
mod select;
mod subject;
mod summary;
mod triage;

pub(super) use also::write as write_also_found;
pub(crate) use also::AlsoFound;
pub(super) use build_targets::{build, Binaries, TargetKey};
pub(crate) use duplicates::Duplicates;
pub(super) use sanitize::{
    address_toolchain, asan_tells_more, build_first, crash_may_be_asan_s, Purpose,
};
pub(crate) use select::{discover, warn_about_stray_artifacts};
pub(crate) use subject::Reduction;
pub(super) use subject::{named, reduce_one};
pub(crate) use summary::{Row, Summary};

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{Events, Message, Settings};
use crate::engine::StopReason;
use crate::error::{Error, Exit};
use crate::fuzz::pool::{Exits, Failure, PoolOptions, StopFlag, WorkerPool};
use crate::fuzz::project::{
    Artifact, ArtifactKind, Engine, FuzzProject, Origin, Selection, TargetSettings,
    MINIMIZED_PREFIX,
};
use crate::job::group::Role;
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
    /// The options whose meaning belongs to a target, as the command line
    /// gives them (`--match`, `--timeout`, `--rss-limit-mb`, `--sanitizer`,
    /// `--lang`, `--strategy`, `--effort`, `--slow-unit-secs`): each one
    /// given wins over the target's `Cargo.toml` settings ([`Work::options`]).
    pub options: TargetSettings,
}

impl FuzzRequest {
    /// The options of `target` of `project`: the command line's over its
    /// `Cargo.toml` settings.
    pub(crate) fn options_of(&self, project: &FuzzProject, target: &str) -> TargetSettings {
        project.settings_of(target).under(self.options)
    }
}

/// The worker pool's options for `jobs` workers running a target with
/// `options` (the command line's over its `Cargo.toml`'s): its timeout and
/// memory limit, else libFuzzer's defaults.
pub(crate) fn pool_options(jobs: usize, options: &TargetSettings, stop: StopFlag) -> PoolOptions {
    PoolOptions {
        jobs,
        timeout: options.timeout.unwrap_or(DEFAULT_TIMEOUT),
        rss_limit_mb: options.rss_limit_mb.unwrap_or(DEFAULT_RSS_LIMIT_MB),
        stop,
        ..PoolOptions::default()
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
    /// Its target's options: the command line's over its `Cargo.toml`'s
    /// ([`FuzzRequest::options_of`]).
    pub options: TargetSettings,
}

impl Work {
    /// Its target, as builds know it.
    pub(in crate::job) fn key(&self) -> TargetKey {
        (self.project, self.target.clone())
    }

    /// The limits it runs under where they are not its pool's, under the
    /// command line's `flags` ([`InputLimits::of`]).
    fn limits(&self, flags: &TargetSettings) -> limits::InputLimits {
        limits::InputLimits::of(&self.artifact, &self.options, flags)
    }

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
        self.artifact.fails_by_time()
    }

    /// `target/name`: the name of the reduction, without its prefix (for
    /// AFL inputs, the instance, id and signal).
    fn name(&self) -> String {
        let output = self.artifact.output.file_name().unwrap_or_default();
        let output = output.to_string_lossy();
        let name = output.strip_prefix(MINIMIZED_PREFIX).unwrap_or(&output);
        format!("{}/{name}", self.target)
    }

    /// The input's path when its name does not say it: an AFL++ input
    /// (whose reduction is named apart from it), or a file outside
    /// `artifacts/<target>/`, which the summary's `target/name` would
    /// otherwise place there.
    fn from(&self) -> Option<PathBuf> {
        let path = &self.artifact.path;
        let in_artifacts = artifacts_folder_of(path).is_some_and(|n| n == self.target.as_str());
        (matches!(self.artifact.origin, Origin::Afl(_)) || !in_artifacts).then(|| path.clone())
    }
}

/// The name of the `artifacts/<name>/` folder that holds `path`, if one
/// does (a bare name given inside it is in it too): whether an input is
/// its target's artifact decides where its results go and whether the
/// summary names it by its path.
fn artifacts_folder_of(path: &Path) -> Option<String> {
    let resolved = std::path::absolute(path).ok()?;
    let folder = resolved.parent()?;
    let in_artifacts = folder.parent()?.file_name()? == "artifacts";
    in_artifacts.then(|| Some(folder.file_name()?.to_string_lossy().into_owned()))?
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
    // A named input that is not there is refused before any warning.
    let work = select::select_work(request, &projects, events)?;
    select::warn_about_instances(&projects, events);
    if request.artifacts.is_empty() {
        select::warn_about_stray_artifacts(&projects, &request.selection, events);
    }
    let mut summary = Summary::new(&projects);
    if work.iter().all(|w| w.done) {
        return Ok(summary);
    }
    super::check_temp_dir()?;
    let sanitizers = Sanitizers::new(&work)?;
    let binaries = sanitizers.build(&projects, &work, settings, events)?;
    let options = target_options(&projects, &work, cx)?;
    let mut pools = Pools::start(&work, &binaries, &options, &mut summary, events);
    let probed = sanitize::probe_all(&projects, &work, &mut pools, &sanitizers, &options, cx)?;
    let Some(roles) = roles::assign(&work, &projects, &pools, probed, cx, &mut summary) else {
        summary.exit = Exit::Interrupted;
        return Ok(summary);
    };
    if request.artifacts.is_empty() {
        duplicates::record_run(&projects, &work, &roles.roles);
    }
    reduce_all(&projects, &work, roles, &pools, cx, &mut summary);
    Ok(summary)
}

/// Reduces each input whose role says so (in its pool), and reports the
/// duplicates; then, in a run that does not name its inputs, the other
/// failures the reductions filed ([`reduce_found`]); stops at Ctrl-C.
fn reduce_all(
    projects: &[FuzzProject],
    work: &[Work],
    mut roles: Roles,
    pools: &Pools,
    cx: Context<'_>,
    summary: &mut Summary,
) {
    let mut failures = known_failures(work, &roles);
    let mut found = VecDeque::new();
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
                let filing = AlsoFoundFiling {
                    known: &mut failures,
                    projects,
                    pool,
                };
                if reduce_and_file(item, known, filing, &mut found, cx, summary) {
                    summary.exit = Exit::Interrupted;
                    summary.not_started = still_to_reduce(&roles, pools, i + 1) + found.len();
                    return;
                }
            }
        }
    }
    reduce_found(found, &mut failures, projects, cx, summary);
}

/// An artifact a reduction filed, to reduce in the pool of its target
/// that found it.
type Found<'p> = (Work, &'p WorkerPool);

/// Reduces the artifacts the reductions filed (and those theirs file), each
/// once: each is a failure the run did not know, so a run leaves none of
/// its own making for the next. Stops at Ctrl-C.
fn reduce_found(
    mut found: VecDeque<Found<'_>>,
    failures: &mut also::Known,
    projects: &[FuzzProject],
    cx: Context<'_>,
    summary: &mut Summary,
) {
    while let Some((item, pool)) = found.pop_front() {
        let filing = AlsoFoundFiling {
            known: failures,
            projects,
            pool,
        };
        if reduce_and_file(&item, None, filing, &mut found, cx, summary) {
            summary.exit = Exit::Interrupted;
            summary.not_started = found.len();
            return;
        }
    }
}

/// Reduces `item` in the filing's pool (`known`: its failure, if replaying
/// found it), files the other failures its reduction ran into (queued in
/// `found` unless the run names its inputs), and records its row; true if
/// Ctrl-C stopped it.
fn reduce_and_file<'p>(
    item: &Work,
    known: Option<Failure>,
    filing: AlsoFoundFiling<'_, 'p>,
    found: &mut VecDeque<Found<'p>>,
    cx: Context<'_>,
    summary: &mut Summary,
) -> bool {
    let pool = filing.pool;
    let row = reduce_one(item, pool, known, cx);
    let stopped = match &row.result {
        Ok(done) => done.stopped == Some(StopReason::Interrupted),
        // Ctrl-C before the reduction began (reproducing).
        Err(e) => e.exit() == Exit::Interrupted,
    };
    let filed_before = summary.also_found.len();
    file_also_found(item, &row, filing, cx, summary);
    // A run that names its inputs reduces those alone.
    let queued = match cx.request.artifacts.is_empty() {
        true => &summary.also_found[filed_before..],
        false => &[],
    };
    for filed in queued {
        if let Ok(artifact) = Artifact::read(&filed.path) {
            let work = Work {
                artifact,
                done: false,
                ..item.clone()
            };
            found.push_back((work, pool));
        }
    }
    summary.record(row, cx.events);
    stopped
}

/// How many inputs from `from` on were to be reduced (in a pool).
fn still_to_reduce(roles: &Roles, pools: &Pools, from: usize) -> usize {
    (from..roles.roles.len())
        .filter(|&i| roles.roles[i] == Some(Role::Reduce) && pools.of(i).is_some())
        .count()
}

/// The failures of the run's inputs that replaying them found.
fn known_failures(work: &[Work], roles: &Roles) -> also::Known {
    let mut known = also::Known::default();
    for (item, failure) in work.iter().zip(&roles.known) {
        if let Some(failure) = failure {
            let level = item.options.matching().other_bug();
            known.add(item, named(failure, level).1);
        }
    }
    known
}

/// What filing the failures a reduction ran into reads: the failures known
/// so far, and where to learn more of them.
struct AlsoFoundFiling<'a, 'p> {
    known: &'a mut also::Known,
    projects: &'a [FuzzProject],
    /// The pool of the reduction's target.
    pool: &'p WorkerPool,
}

/// Files the failures `row`'s reduction ran into that the run does not
/// know yet (its own failure the oracle never counts as another). In a run
/// that names its inputs, the target's other artifacts are replayed first,
/// once, if a failure is new to the run.
fn file_also_found(
    item: &Work,
    row: &Row,
    filing: AlsoFoundFiling<'_, '_>,
    cx: Context<'_>,
    summary: &mut Summary,
) {
    let Ok(done) = &row.result else {
        return;
    };
    let known = filing.known;
    let named_run = !cx.request.artifacts.is_empty();
    if named_run && known.misses(item, &done.extra) {
        let project = &filing.projects[item.project];
        let target = project.targets.iter().find(|t| t.name == item.target);
        let artifacts = target.map_or(&[][..], |t| &t.artifacts[..]);
        known.learn(item, artifacts, filing.pool, cx.request);
    }
    match also::file(item, &done.extra, known, cx) {
        Ok(filed) => summary.also_found.extend(filed),
        Err(e) => summary.fail(&e, cx.events),
    }
}

/// The pool options of each target with work: its options' limits, with
/// its engine's exits; leaks looked for where a `leak-*` artifact is to be
/// reduced. Ctrl-C ends the tests running (a hang is not waited out).
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
        let engine = projects[item.project].engine;
        let stop = cx.settings.stop_flag();
        let target = engine_options(&pool_options(jobs, &item.options, stop), engine)?;
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
        .map(|f| named(f, item.options.matching()))
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
