//! `cargo reduce ci`: regression minimization in a project's CI. Every
//! stored failing input of every fuzz target (artifacts, AFL++ crashes and
//! hangs, the regression ledger, ClusterFuzz testcases, with `--corpus`
//! the corpus) is replayed once in its target's worker pool; failures are
//! grouped by signature and classified against the ledger as new, known or
//! fixed; new failures (and ledger entries a budget cut short before) are
//! minimized within `--budget`, smallest input first; `--update` files them
//! in the ledger. The result is a [`CiReport`], which the CLI renders.

mod also_found;
mod asan;
mod cache;
mod classify;
pub(crate) mod emit;
mod findings;
pub(crate) mod inputs;
pub(crate) mod ledger;
mod minimize;
pub(crate) mod replay;
pub(crate) mod report;
pub(crate) mod update;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::fuzz_mode::limits::{InputLimits, LimitsOverride};
use super::fuzz_mode::{self, Binaries, FuzzRequest};
use super::message::unplaced_timeout_warning;
use super::{Events, Message, Settings};
use crate::error::{Error, Exit};
use crate::fuzz::oracle::MatchLevel;
use crate::fuzz::pool::{Failure, MessageForm, PoolOptions, WorkerPool};
use crate::fuzz::project::{FuzzProject, TargetSettings};
use crate::job::replay_cache::{content_hash, ReplayCache};
use cache::Minimized;
use classify::Ledgered;
use inputs::{Input, Shard};
use ledger::Entry;
use report::{CiReport, Status};

/// The minimization budget without `--budget`.
pub(crate) const DEFAULT_BUDGET: Duration = Duration::from_secs(300);

/// What `cargo reduce ci` was asked to do.
#[derive(Debug, Clone)]
pub(crate) struct CiRequest {
    /// The options shared with `cargo reduce` (crates, targets, limits,
    /// `--match`, `--effort`).
    pub fuzz: FuzzRequest,
    /// `--budget`: minimization time in all.
    pub budget: Duration,
    /// `--update`: file new failures in the ledger.
    pub update: bool,
    /// `--prune-fixed`: move fixed entries to `fixed/`.
    pub prune_fixed: bool,
    /// `--corpus [ROOT]`: replay the corpus too.
    pub corpus: Option<CorpusRoot>,
    /// `--shard K/N`.
    pub shard: Option<Shard>,
    /// Where outcomes are remembered.
    pub cache: Cache,
    /// `--emit-tests PATH` and what the tests expect.
    pub emit_tests: Option<(PathBuf, emit::Expect)>,
}

/// Where `ci --corpus` finds each target's corpus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CorpusRoot {
    /// `<fuzz dir>/corpus`, where `cargo fuzz` keeps it.
    InFuzzDir,
    /// A folder of the same layout elsewhere (`ROOT/<target>/`).
    At(PathBuf),
}

impl CorpusRoot {
    /// The folder of `target`'s corpus in `project`.
    pub(crate) fn of(&self, project: &FuzzProject, target: &str) -> PathBuf {
        match self {
            CorpusRoot::InFuzzDir => project.corpus_dir(target),
            CorpusRoot::At(root) => root.join(target),
        }
    }

    /// A root given on the command line must hold the corpus of at least
    /// one target: a target's own folder given as the root would
    /// otherwise replay nothing, silently.
    fn check(&self, projects: &[FuzzProject]) -> Result<(), Error> {
        let CorpusRoot::At(root) = self else {
            return Ok(());
        };
        let names: Vec<&str> = projects
            .iter()
            .flat_map(|p| p.targets.iter().map(|t| t.name.as_str()))
            .collect();
        if names.iter().any(|name| root.join(name).is_dir()) {
            return Ok(());
        }
        Err(Error::new(
            Exit::BadInput,
            format!(
                "corpus root `{}` has no folder named after a fuzz target ({}); --corpus takes the folder that holds `<target>/` folders, such as fuzz/corpus",
                root.display(),
                names.join(", ")
            ),
        ))
    }
}

/// Where `ci` remembers replay outcomes and minimizations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cache {
    /// Nowhere (`--no-cache`).
    Off,
    /// `<target dir>/cargo-reduce/ci-cache` of the first fuzz crate found.
    InTargetDir,
    /// This folder (`--cache-dir`).
    At(PathBuf),
}

impl CiRequest {
    /// The cache folder, once [`Cache::InTargetDir`] is resolved (`run`
    /// does that from the crates it finds).
    fn cache_dir(&self) -> Option<&Path> {
        match &self.cache {
            Cache::At(dir) => Some(dir),
            Cache::Off | Cache::InTargetDir => None,
        }
    }
}

/// One target's share of the run.
struct TargetRun {
    project: usize,
    package: String,
    name: String,
    /// Its target's options: the command line's over its `Cargo.toml`'s.
    options: TargetSettings,
    source: PathBuf,
    fuzz_dir: PathBuf,
    /// Its workspace's root, which panic locations are relative to.
    workspace_root: PathBuf,
    entries: Vec<Entry>,
    inputs: Vec<Input>,
    /// How long reading the inputs took.
    read_time: Duration,
    /// Per input: its failure (`None`: passed) and whether the cache said so.
    outcomes: Vec<(Option<Failure>, bool)>,
    groups: Vec<Group>,
}

/// Inputs of one target that fail alike.
struct Group {
    id: String,
    /// The id without the panic's line and column.
    unmoored: String,
    failure: Failure,
    members: Vec<usize>,
    status: Status,
    reduced: Option<Minimized>,
    /// The ledger entry it has (known) or was given (`--update`).
    ledger: Option<PathBuf>,
}

impl Group {
    /// The smallest member (then the first by path): minimized first.
    fn smallest<'i>(&self, inputs: &'i [Input]) -> &'i Input {
        self.members
            .iter()
            .map(|&i| &inputs[i])
            .min_by(|a, b| {
                (a.bytes.len(), &a.artifact.path).cmp(&(b.bytes.len(), &b.artifact.path))
            })
            .expect("a group has members")
    }
}

/// Runs `cargo reduce ci`.
pub(crate) fn run(
    request: &CiRequest,
    settings: &Settings,
    events: &dyn Events,
) -> Result<CiReport, Error> {
    let started = Instant::now();
    check_budget(request.budget)?;
    let projects = fuzz_mode::discover(&request.fuzz.selection)?;
    let request = &with_cache_dir(request, &projects);
    let mut runs = gather(&projects, request, settings)?;
    super::check_temp_dir()?;
    let binaries = build(&projects, &runs, settings, events)?;
    let pools = replay_all(&projects, &mut runs, &binaries, request, settings, events)?;
    minimize_all(&mut runs, &projects, &pools, request, settings, events)?;
    let mut report = findings::build(&runs, request, started.elapsed());
    file(&mut report, &projects, &runs, request)?;
    emit_findings(&report, events);
    Ok(report)
}

/// Minimizes what `minimize` says within the budget, then the other
/// failures those minimizations ran into that the run does not know, and
/// theirs, until none is new.
fn minimize_all(
    runs: &mut [TargetRun],
    projects: &[FuzzProject],
    pools: &Pools,
    request: &CiRequest,
    settings: &Settings,
    events: &dyn Events,
) -> Result<(), Error> {
    let started = Instant::now();
    loop {
        minimize::minimize(runs, pools, request, started, settings, events);
        if also_found::add(runs, projects, events)? == 0 {
            return Ok(());
        }
    }
}

/// A budget of zero leaves nothing to minimize with.
fn check_budget(budget: Duration) -> Result<(), Error> {
    match budget.is_zero() {
        true => Err(Error::new(
            Exit::Usage,
            "--budget 0 leaves no time to minimize new failures; give a duration such as 90s or 5m",
        )),
        false => Ok(()),
    }
}

/// `request` with its cache in the first project's target directory when
/// it has no place of its own.
fn with_cache_dir(request: &CiRequest, projects: &[FuzzProject]) -> CiRequest {
    match (&request.cache, projects.first()) {
        (Cache::InTargetDir, Some(project)) => CiRequest {
            cache: Cache::At(project.target_dir.join("cargo-reduce").join("ci-cache")),
            ..request.clone()
        },
        _ => request.clone(),
    }
}

/// The binaries of the targets with inputs, built once (on the ASan build
/// for those set to `address`).
fn build(
    projects: &[FuzzProject],
    runs: &[TargetRun],
    settings: &Settings,
    events: &dyn Events,
) -> Result<Binaries, Error> {
    let targets: Vec<_> = runs
        .iter()
        .filter(|run| !run.inputs.is_empty())
        .map(|run| ((run.project, run.name.clone()), run.options.sanitizer()))
        .collect();
    let asan = fuzz_mode::address_toolchain(targets.iter().map(|(_, choice)| *choice))?;
    let build = (fuzz_mode::Purpose::Reproduce, asan.as_ref());
    fuzz_mode::build_first(projects, &targets, build, settings, events)
}

/// The pools that stay: those of targets with something to minimize.
pub(super) type Pools = HashMap<String, (PathBuf, WorkerPool)>;

/// A target's inputs replayed on one of its builds: that build's binary
/// and pool, the pool's options, and how long the replays took.
struct OnBuild {
    binary: PathBuf,
    pool: WorkerPool,
    options: PoolOptions,
    time: Duration,
}

/// Replays every target's inputs on the build it starts on; then the
/// targets under `auto` whose crash inputs passed there, on their ASan
/// builds, made at once (`asan`); groups and classifies each target's
/// failures. The pools of the targets with something to minimize.
fn replay_all(
    projects: &[FuzzProject],
    runs: &mut [TargetRun],
    binaries: &Binaries,
    request: &CiRequest,
    settings: &Settings,
    events: &dyn Events,
) -> Result<Pools, Error> {
    let jobs = fuzz_mode::workers(settings.jobs, events);
    let mut pools = Pools::new();
    let mut waiting = Vec::new();
    for (i, run) in runs.iter_mut().enumerate() {
        if run.inputs.is_empty() {
            continue;
        }
        let replayed = replay_first(run, projects, binaries, jobs, request, settings)?;
        match asan::wants_asan(run, projects[run.project].engine) {
            true => waiting.push((i, replayed)),
            false => pools.extend(settle(run, replayed, events)),
        }
    }
    let targets: Vec<&TargetRun> = waiting.iter().map(|(i, _)| &runs[*i]).collect();
    let asan_binaries = asan::build_all(projects, &targets, settings, events)?;
    for (i, replayed) in waiting {
        let run = &mut runs[i];
        let asan_binary = asan_binaries.get(&(run.project, run.name.clone()));
        let replayed = asan::replay_on(run, replayed, asan_binary, request)?;
        pools.extend(settle(run, replayed, events));
    }
    Ok(pools)
}

/// Replays `run`'s inputs on the build it starts on (`binaries`).
fn replay_first(
    run: &mut TargetRun,
    projects: &[FuzzProject],
    binaries: &Binaries,
    jobs: usize,
    request: &CiRequest,
    settings: &Settings,
) -> Result<OnBuild, Error> {
    let binary = binaries[&(run.project, run.name.clone())].clone()?;
    let base = fuzz_mode::pool_options(jobs, &run.options, settings.stop_flag());
    let options = PoolOptions {
        detect_leaks: asan::has_leaks(run),
        ..fuzz_mode::engine_options(&base, projects[run.project].engine)?
    };
    let pool = WorkerPool::start(&binary, options.clone())
        .map_err(|e| Error::caused(Exit::Failure, format!("cannot start {}", run.name), e))?;
    let started = Instant::now();
    replay(run, &pool, &binary, request, &options)?;
    Ok(OnBuild {
        binary,
        pool,
        options,
        time: started.elapsed(),
    })
}

/// Groups and classifies `run`'s failures (replayed) and says so; its
/// pool, when it has something to minimize (others end here).
fn settle(
    run: &mut TargetRun,
    replayed: OnBuild,
    events: &dyn Events,
) -> Option<(String, (PathBuf, WorkerPool))> {
    group(run);
    warn_unplaced_timeouts(run, events);
    emit_replayed(run, run.read_time + replayed.time, events);
    let needed = run.groups.iter().any(|g| minimize::needed(run, g));
    needed.then(|| (key(run), (replayed.binary, replayed.pool)))
}

/// Files the report: `--update` (new failures into the ledger),
/// `--prune-fixed`, `--emit-tests`.
fn file(
    report: &mut CiReport,
    projects: &[FuzzProject],
    runs: &[TargetRun],
    request: &CiRequest,
) -> Result<(), Error> {
    if request.update {
        let dirs: HashMap<(String, String), PathBuf> = runs
            .iter()
            .map(|r| {
                let dir = ledger::ledger_dir(&r.fuzz_dir, &r.name);
                ((r.package.clone(), r.name.clone()), dir)
            })
            .collect();
        update::file_new(report, &|package, target| {
            dirs.get(&(package.to_string(), target.to_string()))
                .cloned()
        })?;
    }
    if request.prune_fixed {
        update::prune_fixed(report)?;
    }
    if let Some((path, expect)) = &request.emit_tests {
        emit_tests(path, *expect, projects, runs, request)?;
    }
    Ok(())
}

/// A message per failure and per fixed entry.
fn emit_findings(report: &CiReport, events: &dyn Events) {
    for failure in &report.failures {
        events.emit(&Message::CiFailure(failure.clone()));
    }
    for fixed in &report.fixed {
        events.emit(&Message::CiFixed(fixed.clone()));
    }
}

/// Writes the test file of `--emit-tests`: one test per entry of the
/// ledger as it is now (after `--update` and `--prune-fixed`).
fn emit_tests(
    path: &Path,
    expect: emit::Expect,
    projects: &[FuzzProject],
    runs: &[TargetRun],
    request: &CiRequest,
) -> Result<(), Error> {
    let mut cases = Vec::new();
    for run in runs {
        let manifest = &projects[run.project].manifest_path;
        for entry in ledger::load(&ledger::ledger_dir(&run.fuzz_dir, &run.name))? {
            cases.push(emit::Case {
                manifest: manifest.clone(),
                target: run.name.clone(),
                id: entry_id(run, &entry),
                input: entry.input,
            });
        }
    }
    // A level of the command line's, else none: `ci replay` then takes
    // each target's own, as this run did.
    let level = request.fuzz.options.matching.map(name_of);
    emit::write(path, level.as_deref(), expect, &cases).map_err(|e| emit_error(path, e))?;
    Ok(())
}

/// `--emit-tests PATH` checked before anything runs: a file of a crate.
pub(crate) fn check_emit_tests(path: &Path) -> Result<(), Error> {
    crate::output::check_kept_file(path)?;
    emit::checked_crate_root(path).map_err(|e| emit_error(path, e))?;
    Ok(())
}

fn emit_error(path: &Path, e: std::io::Error) -> Error {
    Error::caused(
        Exit::Usage,
        format!("cannot write the tests `{}`", path.display()),
        e,
    )
}

fn key(run: &TargetRun) -> String {
    format!("{}\0{}", run.project, run.name)
}

/// Each target's ledger entries and inputs (this shard's), checking the
/// ledger first: a folder that names no target, a corrupt sidecar, or with
/// `--update` a folder that cannot be written stops the run before any
/// build.
fn gather(
    projects: &[FuzzProject],
    request: &CiRequest,
    settings: &Settings,
) -> Result<Vec<TargetRun>, Error> {
    if let Some(corpus) = &request.corpus {
        corpus.check(projects)?;
    }
    let mut runs = Vec::new();
    for (p, project) in projects.iter().enumerate() {
        let names: Vec<&str> = project.targets.iter().map(|t| t.name.as_str()).collect();
        // A package with targets of both engines is two projects in one
        // folder: a ledger folder may be named after either's target.
        let all_names: Vec<&str> = projects
            .iter()
            .filter(|other| other.fuzz_dir == project.fuzz_dir)
            .flat_map(|other| other.targets.iter().map(|t| t.name.as_str()))
            .collect();
        if request.fuzz.selection.fuzz_target.is_none() {
            if let Some(stray) = ledger::strays(&project.fuzz_dir, &all_names).first() {
                return Err(Error::new(
                    Exit::BadInput,
                    format!(
                        "ledger folder `{}` names no fuzz target of `{}` (its targets: {}); rename it after its target or remove it",
                        stray.display(),
                        project.package,
                        all_names.join(", ")
                    ),
                ));
            }
        }
        let testcases = inputs::clusterfuzz_testcases(&project.fuzz_dir, &names);
        for target in &project.targets {
            let dir = ledger::ledger_dir(&project.fuzz_dir, &target.name);
            if request.update {
                ledger::check_writable(&dir)?;
            }
            let entries = ledger::load(&dir)?;
            let cases: Vec<PathBuf> = testcases
                .iter()
                .filter(|(t, _)| *t == target.name)
                .map(|(_, path)| path.clone())
                .collect();
            let corpus = request.corpus.as_ref().map(|c| c.of(project, &target.name));
            let read_started = Instant::now();
            let mut inputs =
                inputs::collect(target, &entries, &cases, corpus.as_deref(), settings.jobs)?;
            let read_time = read_started.elapsed();
            if let Some(shard) = request.shard {
                inputs.retain(|i| shard.takes(&target.name, &i.hash));
            }
            runs.push(TargetRun {
                project: p,
                package: project.package.clone(),
                name: target.name.clone(),
                options: request.fuzz.options_of(project, &target.name),
                source: target.source.clone(),
                fuzz_dir: project.fuzz_dir.clone(),
                workspace_root: project.workspace_root.clone(),
                entries,
                inputs,
                read_time,
                outcomes: Vec::new(),
                groups: Vec::new(),
            });
        }
    }
    Ok(runs)
}

/// Replays every input of `run` once: from the cache when its outcome on
/// this build is known, else in batches that share limits (an AFL++ hang
/// runs under its campaign's timeout), in parallel in the pool.
fn replay(
    run: &mut TargetRun,
    pool: &WorkerPool,
    binary: &Path,
    request: &CiRequest,
    options: &PoolOptions,
) -> Result<(), Error> {
    let mut cache = ReplayCache::open(request.cache_dir(), binary, &options.outcome_key());
    let special =
        |input: &Input| InputLimits::of(&input.artifact, &run.options, &request.fuzz.options);
    let cache_key = |input: &Input| format!("{}{}", input.hash, special(input).key_suffix());
    run.outcomes = vec![(None, false); run.inputs.len()];
    let mut batches: BTreeMap<_, Vec<usize>> = BTreeMap::new();
    for (i, input) in run.inputs.iter().enumerate() {
        match cache.get(&cache_key(input)) {
            Some(failure) => run.outcomes[i] = (failure, true),
            None => batches.entry(special(input)).or_default().push(i),
        }
    }
    for (limits, members) in batches {
        let _limits = LimitsOverride::new(pool, limits);
        let bytes: Vec<&[u8]> = members.iter().map(|&i| &run.inputs[i].bytes[..]).collect();
        let round = pool
            .first_accepted(&bytes, &|_| false)
            .map_err(|e| Error::of_pool(format!("replaying {}", run.name), e))?;
        for (&i, outcome) in members.iter().zip(round.outcomes) {
            let failure = outcome.and_then(|o| o.failure().cloned());
            cache.put(&cache_key(&run.inputs[i]), failure.as_ref());
            run.outcomes[i] = (failure, false);
        }
    }
    // The cache is an optimization: a full disk must not fail the run.
    let _ = cache.save();
    Ok(())
}

/// Groups `run`'s failing inputs by signature at its `match` level and
/// classifies each group against the ledger.
fn group(run: &mut TargetRun) {
    let level = run.options.matching();
    place_timeouts(run, level);
    let mut groups: BTreeMap<String, Group> = BTreeMap::new();
    for (i, (failure, _)) in run.outcomes.iter().enumerate() {
        let Some(failure) = failure else { continue };
        let key = level.key(&failure.signature());
        let id = key.id();
        groups
            .entry(id.clone())
            .or_insert_with(|| Group {
                id,
                unmoored: key.unmoored().id(),
                failure: failure.clone(),
                members: Vec::new(),
                status: Status::New,
                reduced: None,
                ledger: None,
            })
            .members
            .push(i);
    }
    run.groups = groups.into_values().collect();
    let ids: Vec<(String, String)> = run.entries.iter().map(|e| entry_keys(run, e)).collect();
    let ledgered = ledgered(run, &ids);
    let statuses = classify::classify(&seen(run), &ledgered);
    for (group, (status, entry)) in run.groups.iter_mut().zip(statuses) {
        group.status = status;
        group.ledger = entry.map(|e| run.entries[e].input.clone());
        group.reduced = entry.and_then(|e| entry_minimized(&run.entries[e]));
    }
}

/// A known failure's minimized input: its ledger entry's, when that is
/// minimal (one a budget cut short is minimized again).
fn entry_minimized(entry: &Entry) -> Option<Minimized> {
    if !entry.sidecar.minimal {
        return None;
    }
    Some(Minimized {
        bytes: std::fs::read(&entry.input).ok()?,
        minimal: true,
        debug: entry.sidecar.debug.clone(),
        others: Vec::new(),
    })
}

/// Places each of `run`'s timeouts whose stack could not be taken where
/// the run's or the ledger's only placed timeout is, if there is one
/// ([`MatchLevel::only_placed_timeout`]): on a loaded machine a hang's
/// stack can be lost, and its replay would count as a new failure.
fn place_timeouts(run: &mut TargetRun, level: MatchLevel) {
    let ledgered = run.entries.iter().filter_map(|e| e.sidecar.signature());
    let seen = run.outcomes.iter().filter_map(|(f, _)| f.as_ref());
    let known: Vec<_> = seen.map(Failure::signature).chain(ledgered).collect();
    let Some(place) = level.only_placed_timeout(&known).cloned() else {
        return;
    };
    let unplaced = run.outcomes.iter_mut().filter_map(|(f, _)| f.as_mut());
    for failure in unplaced.filter(|f| f.signature().is_unplaced_timeout()) {
        failure.location.clone_from(&place.location);
        failure.call_path.clone_from(&place.call_path);
    }
}

/// Warns of each group that is a timeout whose stack could not be taken
/// and that [`place_timeouts`] could not place: the warning says why.
fn warn_unplaced_timeouts(run: &TargetRun, events: &dyn Events) {
    for group in &run.groups {
        let path = &group.smallest(&run.inputs).artifact.path;
        if let Some(message) = unplaced_timeout_warning(&group.failure, path) {
            events.emit(&Message::Warning { message });
        }
    }
}

/// A ledger entry's id at `run`'s level (see [`entry_keys`]).
fn entry_id(run: &TargetRun, entry: &Entry) -> String {
    entry_keys(run, entry).0
}

/// A ledger entry's id and unmoored id at `run`'s level, from its recorded
/// signature. An entry whose message was normalized in an earlier form
/// (`--match message` only compares messages) takes the ids of the failure
/// of `run` whose message, normalized that way, is the entry's.
fn entry_keys(run: &TargetRun, entry: &Entry) -> (String, String) {
    let level = run.options.matching();
    let signature = entry.sidecar.signature().expect("checked when loaded");
    let key = level.key(&signature);
    let form = entry.sidecar.message_form();
    if level >= MatchLevel::Message && form != MessageForm::CURRENT {
        let same = |g: &&Group| level.key(&g.failure.signature_in(form)) == key;
        if let Some(group) = run.groups.iter().find(same) {
            return (group.id.clone(), group.unmoored.clone());
        }
    }
    (key.id(), key.unmoored().id())
}

/// The failures seen, for classification: each group's ids and the
/// ledger entries among its inputs.
fn seen(run: &TargetRun) -> Vec<classify::Seen<'_>> {
    run.groups
        .iter()
        .map(|g| classify::Seen {
            keys: classify::Keys {
                id: &g.id,
                unmoored: &g.unmoored,
            },
            from_entries: g
                .members
                .iter()
                .filter_map(|&m| run.inputs[m].ledger)
                .collect(),
        })
        .collect()
}

fn ledgered<'a>(run: &TargetRun, ids: &'a [(String, String)]) -> Vec<Ledgered<'a>> {
    ids.iter()
        .enumerate()
        .map(|(i, (id, unmoored))| Ledgered {
            keys: classify::Keys { id, unmoored },
            replayed: run.inputs.iter().any(|input| input.ledger == Some(i)),
        })
        .collect()
}

fn emit_replayed(run: &TargetRun, elapsed: Duration, events: &dyn Events) {
    events.emit(&Message::CiReplayed {
        package: run.package.clone(),
        target: run.name.clone(),
        inputs: run.inputs.len(),
        failing: run.outcomes.iter().filter(|o| o.0.is_some()).count(),
        cached: run.outcomes.iter().filter(|o| o.1).count(),
        failures: run.groups.len(),
        elapsed_s: super::message::seconds(elapsed, 6),
    });
}

/// The report's `matching`: the command line's level, or the default
/// (a target's `Cargo.toml` may set its own, which its failures record).
fn level_name(request: &CiRequest) -> String {
    name_of(request.fuzz.options.matching())
}

/// A level as `--match` spells it.
pub(super) fn name_of(level: MatchLevel) -> String {
    format!("{level:?}").to_lowercase()
}

pub(crate) fn tool() -> String {
    format!("cargo-reduce {}", env!("CARGO_PKG_VERSION"))
}

/// A path as reports show it: relative to the current directory when
/// under it.
pub(crate) fn shown(path: &Path) -> String {
    crate::output::from_cwd(path).display().to_string()
}

/// The exit status of a run that found `report`: new failures fail it;
/// known ones too with `fail_on_known`.
pub(crate) fn exit_of(report: &CiReport, fail_on_known: bool) -> Exit {
    if report.count(Status::New) > 0 {
        Exit::NewFailures
    } else if fail_on_known && report.count(Status::Known) > 0 {
        Exit::KnownFailures
    } else {
        Exit::Success
    }
}
