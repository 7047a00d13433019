//! Fuzz mode: every failing input of the project's fuzz crates (or the
//! ones named), reduced in-process: libFuzzer's artifacts and the crashes
//! and hangs of AFL++ instances. The targets are built once against their
//! engine's stand-in; each input is reproduced, reduced in its target's
//! worker pool while it fails the same way, checked, and written as
//! `minimized-from-<name>` in its target's `artifacts/<target>/`.

mod build_targets;
pub(super) mod limits;
mod sanitize;
mod subject;
mod triage;

pub(super) use build_targets::build;
pub(super) use sanitize::toolchain as asan_toolchain;
pub(super) use subject::{named, reduce_one};

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::message::SkipCause;
use super::{Events, LangChoice, Message, Settings};
use crate::engine::StopReason;
use crate::error::{Error, Exit};
use crate::fuzz::oracle::MatchLevel;
use crate::fuzz::pool::{Exits, Failure, PoolOptions, WorkerPool};
use crate::fuzz::project::{
    self, Artifact, ArtifactKind, Engine, FuzzProject, Origin, Search, MINIMIZED_PREFIX,
};
use crate::fuzz::sanitizer::{self, AsanToolchain, Sanitizer};
use crate::fuzz::shrink::Effort;
use crate::job::group::Role;
use crate::syntax::Strategy;

/// What `cargo reduce [ARTIFACT…]` was asked to do.
#[derive(Debug, Clone, Default)]
pub(crate) struct FuzzRequest {
    /// Artifacts named on the command line (none: every unreduced one).
    pub artifacts: Vec<PathBuf>,
    /// `--manifest-path`.
    pub manifest_path: Option<PathBuf>,
    /// `-p`: only these fuzz crates.
    pub packages: Vec<String>,
    /// `--fuzz-target`.
    pub target: Option<String>,
    /// `--afl-out`: AFL++ output directories to take inputs from, besides
    /// those found in the project.
    pub afl_out: Vec<PathBuf>,
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
    /// Where discovery looks.
    pub(crate) fn search(&self) -> Search<'_> {
        Search {
            manifest_path: self.manifest_path.as_deref(),
            packages: &self.packages,
            afl_out: &self.afl_out,
        }
    }

    /// The worker pool's options for `jobs` workers: the request's timeout
    /// and memory limit, or libFuzzer's defaults.
    pub(crate) fn pool_options(&self, jobs: usize) -> PoolOptions {
        PoolOptions {
            jobs,
            timeout: self.timeout.unwrap_or(DEFAULT_TIMEOUT),
            rss_limit_mb: self.rss_limit_mb.unwrap_or(DEFAULT_RSS_LIMIT_MB),
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

/// Why `leak-*` artifacts are not reduced.
const LEAK_SKIPPED: &str = "leaks are found by LeakSanitizer, which the in-process stand-in does not run; reduce it with `cargo fuzz tmin` on a sanitizer build";

/// What became of one artifact.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    /// `target/artifact-name`.
    pub name: String,
    /// The input's path, when the name does not say it (AFL++ inputs).
    pub from: Option<PathBuf>,
    /// The artifact's size.
    pub original: usize,
    /// Wall time spent on it.
    pub elapsed: Duration,
    /// The result, or why there is none.
    pub result: Result<super::Done, Error>,
}

/// The whole run.
#[derive(Debug)]
pub(crate) struct Summary {
    /// One row per artifact tried, in order.
    pub rows: Vec<Row>,
    /// Inputs not reduced because another input fails the same way:
    /// (`target/name` of the input, of the one reduced for it).
    pub duplicates: Vec<(String, String)>,
    /// Inputs found (not named) that do not fail any more (their bugs
    /// fixed, or they need another build): information, not an error;
    /// each is an `artifact-skipped` message, and they have no rows.
    pub stale: usize,
    /// Rows of inputs whose target could not be built or started (its
    /// error reported once, before).
    pub not_built: usize,
    /// Artifacts found (also those not tried, being reduced already).
    pub found: usize,
    /// The exit status: the first error's, or interrupted.
    pub exit: Exit,
}

impl Summary {
    /// Nothing done yet, of the artifacts `projects` have.
    fn new(projects: &[FuzzProject]) -> Summary {
        Summary {
            rows: Vec::new(),
            duplicates: Vec::new(),
            stale: 0,
            not_built: 0,
            found: projects
                .iter()
                .flat_map(|p| &p.targets)
                .map(|t| t.artifacts.len())
                .sum(),
            exit: Exit::Success,
        }
    }

    /// Adds `row`; a failed one is reported as an `error` message and sets
    /// the exit status if none is set yet.
    fn record(&mut self, row: Row, events: &dyn Events) {
        if let Err(e) = &row.result {
            self.fail(e, events);
        }
        self.rows.push(row);
    }

    /// Reports `e` as an `error` message; the exit status is its own if
    /// none is set yet.
    fn fail(&mut self, e: &Error, events: &dyn Events) {
        events.emit(&Message::Error {
            message: e.line(),
            exit: e.exit(),
        });
        self.exit = self.exit.or(e.exit());
    }
}

/// The fuzz crates `search` finds, narrowed to `target`.
pub(crate) fn find(search: &Search<'_>, target: Option<&str>) -> Result<Vec<FuzzProject>, Error> {
    let mut projects = project::discover(search)?;
    if let Some(target) = target {
        project::select_target(&mut projects, target)?;
    }
    Ok(projects)
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
    fn row(&self, elapsed: Duration, result: Result<super::Done, Error>) -> Row {
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
    let projects = find(&request.search(), request.target.as_deref())?;
    warn_about_instances(&projects, events);
    let work = select_work(request, &projects, events)?;
    let mut summary = Summary::new(&projects);
    if work.iter().all(|w| w.done) {
        return Ok(summary);
    }
    super::check_temp_dir()?;
    let choice = request.sanitizer;
    let only_asan = match choice {
        Sanitizer::Address => sanitize::toolchain(choice)?,
        Sanitizer::Auto | Sanitizer::None => None,
    };
    // Under `auto`, nightly is looked for only when an input needs it.
    let found = std::cell::OnceCell::new();
    let asan = || match choice {
        Sanitizer::Address => only_asan.as_ref(),
        Sanitizer::Auto => found.get_or_init(AsanToolchain::find).as_ref(),
        Sanitizer::None => None,
    };
    let binaries = build(
        &projects,
        &work,
        only_asan.as_ref().into(),
        settings,
        events,
    )?;
    let asan_binaries;
    let options = project_options(request, settings, &projects, events)?;
    let (mut item_binaries, mut pools) =
        start_pools(&work, &binaries, &options, &mut summary, events);
    let hint = || sanitizer::hint(choice, asan().is_some());
    let mut probed = sanitize::probe(&work, &item_binaries, &pools, request, &hint);
    let retry = sanitize::candidates(&work, &item_binaries, &probed);
    let auto = (choice == Sanitizer::Auto && !retry.is_empty()).then(asan);
    if let Some(toolchain) = auto.flatten() {
        asan_binaries =
            sanitize::build_asan(&projects, &work, &retry, toolchain, settings, events)?;
        let (binaries, pools) = (&mut item_binaries, &mut pools);
        sanitize::retry(
            &work,
            &retry,
            &asan_binaries,
            binaries,
            pools,
            &mut probed,
            request,
            &options,
        )?;
    }
    let binaries = &item_binaries;
    let roles = roles(
        &work,
        binaries,
        &pools,
        probed,
        request,
        settings,
        &mut summary,
        events,
    );
    let Some((roles, known)) = roles else {
        summary.exit = Exit::Interrupted;
        return Ok(summary);
    };
    reduce_all(
        &work,
        &roles,
        known,
        &item_binaries,
        &pools,
        request,
        settings,
        &mut summary,
        events,
    );
    Ok(summary)
}

/// Reduces each input whose role says so (in its pool), and reports the
/// duplicates; stops at Ctrl-C.
#[allow(clippy::too_many_arguments)]
fn reduce_all(
    work: &[Work],
    roles: &[Option<Role>],
    mut known: Vec<Option<Failure>>,
    binaries: &[Option<&Path>],
    pools: &HashMap<&Path, WorkerPool>,
    request: &FuzzRequest,
    settings: &Settings,
    summary: &mut Summary,
    events: &dyn Events,
) {
    for (i, item) in work.iter().enumerate() {
        let (Some(role), Some(binary)) = (roles[i], binaries[i]) else {
            continue;
        };
        match role {
            Role::Done => {}
            Role::Duplicate { of } => {
                if !item.done {
                    duplicate(item, &work[of], known[i].as_ref(), request, summary, events);
                }
            }
            Role::Reduce => {
                let row = reduce_one(
                    item,
                    &pools[binary],
                    known[i].take(),
                    request,
                    settings,
                    events,
                );
                let stopped = row
                    .result
                    .as_ref()
                    .is_ok_and(|d| d.stopped == Some(StopReason::Interrupted));
                summary.record(row, events);
                if stopped {
                    summary.exit = Exit::Interrupted;
                    break;
                }
            }
        }
    }
}

/// Each project's pool options: the request's, with its engine's exits.
fn project_options(
    request: &FuzzRequest,
    settings: &Settings,
    projects: &[FuzzProject],
    events: &dyn Events,
) -> Result<Vec<PoolOptions>, Error> {
    let base = request.pool_options(workers(settings.jobs, events));
    projects
        .iter()
        .map(|p| engine_options(&base, p.engine))
        .collect()
}

/// The work `request` selects, without the artifacts that cannot be
/// reduced with these options (each reported with the reason).
fn select_work(
    request: &FuzzRequest,
    projects: &[FuzzProject],
    events: &dyn Events,
) -> Result<Vec<Work>, Error> {
    let mut work = select(request, projects)?;
    work.retain(|w| match skip_reason(w.artifact.kind, request) {
        Some((cause, why)) if !w.done => {
            events.emit(&Message::ArtifactSkipped {
                path: w.artifact.path.clone(),
                target: w.target.clone(),
                why: why.to_string(),
                cause,
            });
            false
        }
        Some(_) => false,
        None => true,
    });
    Ok(work)
}

/// Each item's binary, its pool started (one per binary). A target that
/// cannot be built or started is reported once, whole, and each of its
/// artifacts' rows says so in a few words.
fn start_pools<'b>(
    work: &[Work],
    binaries: &'b build_targets::Binaries,
    options: &[PoolOptions],
    summary: &mut Summary,
    events: &dyn Events,
) -> (Vec<Option<&'b Path>>, HashMap<&'b Path, WorkerPool>) {
    let mut pools: HashMap<&Path, WorkerPool> = HashMap::new();
    let mut item_binaries = Vec::with_capacity(work.len());
    let mut told = HashSet::new();
    for item in work {
        let ready = match &binaries[&(item.project, item.target.clone())] {
            Ok(binary) if pools.contains_key(binary.as_path()) => Ok(binary.as_path()),
            Ok(binary) => WorkerPool::start(binary, options[item.project].clone())
                .map(|pool| {
                    pools.insert(binary, pool);
                    binary.as_path()
                })
                .map_err(|e| {
                    Error::caused(Exit::Failure, format!("cannot start {}", item.target), e)
                }),
            Err(e) => Err(e.clone()),
        };
        match ready {
            Ok(binary) => item_binaries.push(Some(binary)),
            Err(e) => {
                if told.insert(e.line()) {
                    summary.fail(&e, events);
                }
                if !item.done {
                    let short = Error::new(e.exit(), build_targets::in_a_few_words(&e));
                    summary.rows.push(item.row(Duration::ZERO, Err(short)));
                    summary.not_built += 1;
                }
                item_binaries.push(None);
            }
        }
    }
    (item_binaries, pools)
}

/// Each input's role (`None`: not to reduce), and its failure where the
/// replay found it.
type Roles = (Vec<Option<Role>>, Vec<Option<Failure>>);

/// What becomes of each input, and its failure where replaying found it.
/// Named inputs are each reduced; found ones are replayed and grouped
/// first, and one input per distinct failure is reduced. `None`: Ctrl-C.
#[allow(clippy::too_many_arguments)]
fn roles(
    work: &[Work],
    binaries: &[Option<&Path>],
    pools: &HashMap<&Path, WorkerPool>,
    probed: sanitize::Probed,
    request: &FuzzRequest,
    settings: &Settings,
    summary: &mut Summary,
    events: &dyn Events,
) -> Option<Roles> {
    if !request.artifacts.is_empty() {
        return Some(named_roles(work, binaries, probed, summary, events));
    }
    let interrupted = || settings.interrupt.load(Ordering::SeqCst);
    let replayed = triage::replay_all(work, binaries, pools, probed, request, &interrupted)?;
    Some(found_roles(
        work, binaries, replayed, request, summary, events,
    ))
}

/// The roles of found inputs after replaying them: their groups, the
/// failures known, and rows for those that cannot be reduced. An input
/// that no longer fails is no error: it is summed up (`summary.stale`),
/// each one an `artifact-skipped` message; if none of the inputs fails,
/// that is the run's error.
fn found_roles(
    work: &[Work],
    binaries: &[Option<&Path>],
    replayed: Vec<triage::Replayed>,
    request: &FuzzRequest,
    summary: &mut Summary,
    events: &dyn Events,
) -> Roles {
    let grouping = triage::group(work, binaries, &replayed, request);
    if binaries.iter().any(Option::is_some) {
        events.emit(&Message::FailuresGrouped {
            inputs: grouping.inputs,
            failures: grouping.failures,
        });
    }
    let mut reproduced = 0;
    let mut known = Vec::with_capacity(work.len());
    for (replayed, item) in replayed.into_iter().zip(work) {
        known.push(match replayed {
            triage::Replayed::Failed(failure) => {
                reproduced += 1;
                Some(failure)
            }
            triage::Replayed::Refused(e) if e.exit() == Exit::NotInteresting => {
                stale(item, &e, summary, events);
                None
            }
            triage::Replayed::Refused(e) => {
                summary.record(item.row(Duration::ZERO, Err(e)), events);
                None
            }
            triage::Replayed::Gone => None,
        });
    }
    if reproduced == 0 && summary.stale > 0 && summary.exit == Exit::Success {
        summary.fail(&nothing_reproduces(summary.stale), events);
    }
    (grouping.roles, known)
}

/// Records `item`, found in the project, as no longer failing (`e` says
/// how it was run).
fn stale(item: &Work, e: &Error, summary: &mut Summary, events: &dyn Events) {
    events.emit(&Message::ArtifactSkipped {
        path: item.artifact.path.clone(),
        target: item.target.clone(),
        why: e.line(),
        cause: SkipCause::DoesNotReproduce,
    });
    summary.stale += 1;
}

/// The run's error when none of the `stale` inputs found fails any more.
fn nothing_reproduces(stale: usize) -> Error {
    Error::new(
        Exit::NotInteresting,
        format!("none of the {stale} input(s) to reduce fails any more (their bugs fixed since, or they need another build, such as a sanitizer's): `-v` shows how each was run"),
    )
}

/// The roles of named inputs: each is reduced, but one whose probe failed
/// (it does not reproduce, is flaky) fails its row.
fn named_roles(
    work: &[Work],
    binaries: &[Option<&Path>],
    mut probed: sanitize::Probed,
    summary: &mut Summary,
    events: &dyn Events,
) -> Roles {
    let mut known = Vec::with_capacity(work.len());
    let mut roles = Vec::with_capacity(work.len());
    for (i, binary) in binaries.iter().enumerate() {
        match probed[i].take() {
            Some(Err(e)) => {
                summary.record(work[i].row(Duration::ZERO, Err(e)), events);
                roles.push(None);
                known.push(None);
            }
            probed => {
                roles.push(binary.map(|_| Role::Reduce));
                known.push(probed.and_then(Result::ok));
            }
        }
    }
    (roles, known)
}

/// Reports `item` as failing like `of`, which is (or was) reduced for it.
fn duplicate(
    item: &Work,
    of: &Work,
    known: Option<&Failure>,
    request: &FuzzRequest,
    summary: &mut Summary,
    events: &dyn Events,
) {
    let (failure, id) = known
        .map(|f| named(f, request.matching))
        .unwrap_or_default();
    events.emit(&Message::ArtifactDuplicate {
        path: item.artifact.path.clone(),
        target: item.target.clone(),
        failure,
        failure_id: id,
        same_as: of.artifact.path.clone(),
    });
    summary.duplicates.push((item.name(), of.name()));
}

/// Says which AFL++ instances ran a binary that no target builds (their
/// inputs are not reduced), and which ran a binary that has been rebuilt
/// since (their inputs may not fail as they did).
fn warn_about_instances(projects: &[FuzzProject], events: &dyn Events) {
    let instances = projects
        .iter()
        .flat_map(|p| &p.instances)
        .filter(|(i, _)| !i.inputs.is_empty());
    for (instance, target) in instances {
        let ran = instance.binary.as_ref().map_or_else(
            || "an unknown binary (no cmdline)".into(),
            |b| format!("`{}`", b.display()),
        );
        let message = match (target, instance.rebuilt) {
            (None, _) => format!(
                "AFL++ instance `{}` ran {ran}, which no afl.rs target found here builds: its {} input(s) are skipped; pass --manifest-path of the crate that builds it",
                instance.dir.display(),
                instance.inputs.len()
            ),
            (Some(_), Some(true)) => format!(
                "AFL++ instance `{}` ran {ran}, which has been rebuilt since (its target_hash differs): its inputs are reproduced on the current code, and those that no longer fail are skipped",
                instance.dir.display()
            ),
            _ => continue,
        };
        events.emit(&Message::Warning { message });
    }
}

/// Why an artifact of `kind` cannot be reduced with these options.
fn skip_reason(kind: ArtifactKind, request: &FuzzRequest) -> Option<(SkipCause, &'static str)> {
    match kind {
        ArtifactKind::Leak => Some((SkipCause::Leak, LEAK_SKIPPED)),
        ArtifactKind::Oom if request.rss_limit_mb == Some(0) => Some((
            SkipCause::NoMemoryLimit,
            "--rss-limit-mb 0 turns the memory limit off, so it cannot fail as out-of-memory; give a limit",
        )),
        _ => None,
    }
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

/// The artifacts to reduce: the named ones, or every one not yet reduced.
fn select(request: &FuzzRequest, projects: &[FuzzProject]) -> Result<Vec<Work>, Error> {
    if !request.artifacts.is_empty() {
        return request
            .artifacts
            .iter()
            .map(|path| {
                let found = project::locate_artifact(projects, path, request.target.as_deref())?;
                Ok(Work {
                    target: projects[found.project].targets[found.target].name.clone(),
                    project: found.project,
                    artifact: found.artifact,
                    done: false,
                })
            })
            .collect();
    }
    let mut work = Vec::new();
    for (p, project) in projects.iter().enumerate() {
        for target in &project.targets {
            let pending = |a: &Artifact| request.force || a.minimized.is_none();
            if !target.artifacts.iter().any(pending) {
                // Nothing to reduce: no build, no replay.
                continue;
            }
            for artifact in &target.artifacts {
                work.push(Work {
                    project: p,
                    target: target.name.clone(),
                    artifact: artifact.clone(),
                    done: !pending(artifact),
                });
            }
        }
    }
    Ok(work)
}
