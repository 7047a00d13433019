//! `cargo reduce corpus`: per target, its corpus replayed in the coverage
//! build (`BuildKind::Coverage`), each passing input's features taken from
//! the workers, the smallest set that keeps every feature chosen (`cover`)
//! and written (`write`: a new directory, or the corpus replaced in one
//! step); failing inputs grouped by signature, reported, and kept as
//! artifacts.

mod cover;
mod merge;
mod record;
mod shrink;
pub(super) mod write;

pub(crate) use merge::{run as merge, MergeRequest};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::ci::inputs::{files_in, read_all, Shard};
use super::fuzz_mode::{self, TargetKey};
use super::message::{unplaced_timeout_warning, Build};
use super::write as job_write;
use super::{Events, Message, Settings};
use crate::engine::{Limits, StopReason};
use crate::error::{Error, Exit};
use crate::fuzz::pool::{
    CoveragePool, DecodeCrew, Failure, Outcome, PoolError, PoolOptions, Replayed, StopFlag,
};
use crate::fuzz::project::{sha1_hex, Engine, FuzzProject, Selection, TargetSettings};
use crate::fuzz::sanitizer::Sanitizer;
use crate::fuzz::standin::BuildKind;
use cover::Item;
use record::{InputRecord, ShardRecord, TargetRecord};
use shrink::{Converged, Entry, Round, Shrinker};
use write::Mode;

/// An input running longer is reported as a timeout rather than waited
/// out (libFuzzer's merge waits 1200 s).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// libFuzzer's `-rss_limit_mb`.
const DEFAULT_RSS_LIMIT_MB: u64 = 2048;

/// What to do about an output directory that would lose files.
const OUTPUT_HINT: &str =
    "give --output a new or empty directory, or use --in-place to replace the corpus";

/// What `cargo reduce corpus` was asked.
#[derive(Debug, Clone, Default)]
pub(crate) struct CorpusRequest {
    /// The crates and targets.
    pub selection: Selection,
    /// `--corpus DIR`s, instead of `fuzz/corpus/<target>/` (one target).
    pub corpora: Vec<PathBuf>,
    /// `--output DIR` [default: `<fuzz dir>/corpus-min/<target>/`].
    pub out: Option<PathBuf>,
    /// `--in-place`: the (first) corpus directory is replaced.
    pub in_place: bool,
    /// `--timeout` [default: 10 s].
    pub timeout: Option<Duration>,
    /// `--rss-limit-mb` [default: 2048].
    pub rss_limit_mb: Option<u64>,
    /// `--shrink`: each kept input reduced while it keeps its features.
    pub shrink: bool,
    /// `--shard K/N`: only this machine's share of each corpus.
    pub shard: Option<Shard>,
    /// `--features-out FILE`: the share's features recorded there, for
    /// `corpus merge`, and no set written.
    pub features_out: Option<PathBuf>,
    /// `--sanitizer address`: the features of the AddressSanitizer
    /// coverage build (any other choice: the uninstrumented one's);
    /// `None`: each target's `Cargo.toml` setting, else `none`.
    pub sanitizer: Option<Sanitizer>,
}

/// One target's corpus, read.
struct Plan {
    project: usize,
    target: String,
    /// Its corpus directories, the first the one `--in-place` replaces.
    dirs: Vec<PathBuf>,
    /// Its distinct inputs (identical files once: the first by path).
    inputs: Vec<Input>,
    /// Where its set goes, checked before anything is built; `None` in a
    /// run that records features (`--features-out`) and writes no set.
    out: Option<PathBuf>,
}

/// One distinct input.
pub(super) struct Input {
    pub(super) path: PathBuf,
    pub(super) bytes: Vec<u8>,
    /// The SHA-1 of its bytes, in hex: its name in the output, as libFuzzer
    /// names corpus files.
    sha1: String,
}

/// Runs `cargo reduce corpus`: each target's set written, or with
/// `--features-out` its share's features recorded.
pub(crate) fn run(
    request: &CorpusRequest,
    settings: &Settings,
    events: &dyn Events,
) -> Result<Exit, Error> {
    check_request(request)?;
    // One budget for the whole run: `--max-time` counts from here.
    let limits = settings.limits(Instant::now());
    let projects = fuzz_mode::discover(&request.selection)?;
    let (plans, skipped) = plan(&projects, request, settings.jobs)?;
    warn_skipped(&skipped, events);
    let targets: Vec<(TargetKey, Sanitizer)> = plans
        .iter()
        .map(|p| {
            (
                p.key(),
                sanitizer_of(request, &projects[p.project], &p.target),
            )
        })
        .collect();
    let asan = fuzz_mode::address_toolchain(targets.iter().map(|(_, choice)| *choice))?;
    let build = (fuzz_mode::Purpose::Coverage, asan.as_ref());
    let binaries = fuzz_mode::build_first(&projects, &targets, build, settings, events)?;
    let jobs = fuzz_mode::workers(settings.jobs, events);
    let mut record = request
        .features_out
        .as_ref()
        .map(|_| ShardRecord::new(request.shard.unwrap_or(Shard { index: 1, count: 1 })));
    for plan in &plans {
        if settings.interrupt.load(Ordering::SeqCst) {
            return Err(interrupted());
        }
        let project = &projects[plan.project];
        let binary = binaries[&(plan.project, plan.target.clone())].clone()?;
        let plain = || -> Result<PathBuf, Error> {
            let targets = [plan.key()];
            let mut built =
                fuzz_mode::build(&projects, &targets, BuildKind::Plain, settings, events)?;
            let key = (plan.project, plan.target.clone());
            built.remove(&key).expect("the target was built")
        };
        let target = Target {
            project,
            binary: &binary,
            options: PoolOptions {
                stop: settings.stop_flag(),
                ..pool_options(request, jobs, project, &plan.target)?
            },
            plain: &plain,
            limits: &limits,
        };
        match &mut record {
            Some(record) => record.targets.push(record_target(plan, &target, events)?),
            None => minimize_target(plan, target, request, settings, events)?,
        }
    }
    if let (Some(record), Some(path)) = (&record, &request.features_out) {
        record.write(path)?;
        record.report(path, events);
    }
    Ok(Exit::Success)
}

/// Refuses flags that do not go together: a shard records, the merge
/// writes.
fn check_request(request: &CorpusRequest) -> Result<(), Error> {
    let usage = |what: &str| Err(Error::new(Exit::Usage, what.to_string()));
    if request.shard.is_some() && request.features_out.is_none() {
        return usage("--shard K/N records the share's features: name the file with --features-out FILE, and merge the files with `cargo reduce corpus merge`");
    }
    if request.features_out.is_some()
        && (request.in_place || request.out.is_some() || request.shrink)
    {
        return usage("--features-out records features and writes no corpus: --output, --in-place and --shrink belong to a run without it (or to `corpus merge`, which takes --output and --in-place)");
    }
    Ok(())
}

/// `--features-out`: one target's share replayed, its failures reported
/// (and kept as artifacts, as without shards), every input's features
/// recorded.
fn record_target(
    plan: &Plan,
    target: &Target<'_>,
    events: &dyn Events,
) -> Result<TargetRecord, Error> {
    let project = target.project;
    let (inputs, counters) = match plan.inputs.is_empty() {
        true => (Vec::new(), 0),
        false => {
            let pool = start_pool(plan, target)?;
            let replayed = replay(plan, &pool, events)?;
            report_failures(plan, project, &replayed, events)?;
            let counters = counters(&replayed);
            let inputs = plan
                .inputs
                .iter()
                .zip(replayed)
                .map(|(input, r)| InputRecord {
                    path: input.path.clone(),
                    sha1: input.sha1.clone(),
                    size: input.bytes.len(),
                    failure: r.outcome.failure().map(|f| f.signature().to_string()),
                    features: r.features,
                })
                .collect();
            (inputs, counters)
        }
    };
    Ok(TargetRecord {
        package: project.package.clone(),
        target: plan.target.clone(),
        dirs: plan.dirs.clone(),
        out: project.corpus_min_dir(&plan.target),
        counters,
        inputs,
    })
}

/// The coverage pool of a target.
fn start_pool(plan: &Plan, target: &Target<'_>) -> Result<CoveragePool, Error> {
    CoveragePool::start(target.binary, target.options.clone())
        .map_err(|e| Error::caused(Exit::Failure, format!("cannot start {}", plan.target), e))
}

/// Every selected target's corpus, read; targets without one are left out
/// (an error when none has one) and named.
fn plan(
    projects: &[FuzzProject],
    request: &CorpusRequest,
    threads: usize,
) -> Result<(Vec<Plan>, Vec<String>), Error> {
    let targets = selected_targets(projects, &request.corpora)?;
    let names: Vec<&str> = targets.iter().map(|&(_, target)| target).collect();
    let mut plans = Vec::new();
    let mut skipped = Vec::new();
    // `corpus/<target>` files, not folders, of the targets skipped.
    let mut misplaced = Vec::new();
    for (project, target) in targets {
        let dirs = match request.corpora.is_empty() {
            true => default_dirs(&projects[project], target),
            false => request.corpora.clone(),
        };
        if request.in_place {
            refuse_afl_queue(in_place_dir(&dirs))?;
            refuse_failing_inputs(in_place_dir(&dirs), &projects[project])?;
        }
        let mut inputs = read_inputs(&dirs, threads)?;
        if inputs.is_empty() {
            let file = request
                .corpora
                .is_empty()
                .then(|| misplaced_file(&projects[project], target));
            let name = skipped_name(target, projects[project].engine, &names);
            skipped.push(match file.flatten() {
                Some(file) => {
                    let named = format!("{name} (`{}` is a file, not a folder)", file.display());
                    misplaced.push(file);
                    named
                }
                None => name,
            });
        } else {
            if let Some(shard) = request.shard {
                inputs.retain(|i| shard.takes(target, &i.sha1));
            }
            let out = match request.features_out {
                Some(_) => None,
                None => Some(output_dir(&dirs, &projects[project], target, request)?),
            };
            let target = target.to_string();
            plans.push(Plan {
                project,
                target,
                dirs,
                inputs,
                out,
            });
        }
    }
    if plans.is_empty() {
        let message = match (request.corpora.as_slice(), misplaced.as_slice()) {
            ([], [file, ..]) => format!(
                "no corpus to minimize: `{}` is a file, not a folder of inputs; make it a folder that holds the inputs, or name one with --corpus DIR",
                crate::output::from_cwd(file).display()
            ),
            ([], []) => "no corpus to minimize: no file in the fuzz crate's `corpus/<target>/` (or an AFL++ instance's `queue/`) of the selected targets; name one with --corpus DIR".to_string(),
            (dirs, _) => format!(
                "no corpus to minimize: no input file in {}; name a folder of inputs with --corpus DIR",
                crate::output::list_paths(dirs)
            ),
        };
        return Err(Error::new(Exit::BadInput, message));
    }
    if let (Some(out), [_, _, ..]) = (&request.out, plans.as_slice()) {
        let names: Vec<&str> = plans.iter().map(|p| p.target.as_str()).collect();
        return Err(Error::new(
            Exit::Usage,
            format!(
                "--output `{}` is one target's set, and {} targets have a corpus ({}); name one with --fuzz-target NAME, or leave --output out (each set goes to its crate's corpus-min/<target>/, or under --out-dir DIR)",
                out.display(),
                names.len(),
                names.join(", ")
            ),
        ));
    }
    Ok((plans, skipped))
}

/// Warns of the targets `skipped` for having no corpus, if any.
pub(super) fn warn_skipped(skipped: &[String], events: &dyn Events) {
    if !skipped.is_empty() {
        events.emit(&Message::Warning {
            message: format!(
                "no corpus for {} target(s), skipped: {}",
                skipped.len(),
                skipped.join(", ")
            ),
        });
    }
}

/// The selected targets (project index, name); `--corpus DIR`s (`corpora`)
/// name one target's corpus and must be directories. Among several
/// targets, the one whose corpus the directories are is chosen
/// ([`corpus_owner`]).
pub(super) fn selected_targets<'p>(
    projects: &'p [FuzzProject],
    corpora: &[PathBuf],
) -> Result<Vec<(usize, &'p str)>, Error> {
    let mut targets: Vec<(usize, &str)> = projects
        .iter()
        .enumerate()
        .flat_map(|(p, project)| project.targets.iter().map(move |t| (p, t.name.as_str())))
        .collect();
    for dir in corpora {
        if !dir.is_dir() {
            let what = match dir.exists() {
                true => "is not a directory",
                false => "does not exist",
            };
            return Err(Error::new(
                Exit::BadInput,
                format!(
                    "corpus `{}` {what}; pass a directory of inputs",
                    dir.display()
                ),
            ));
        }
    }
    if let Some(owner) = corpus_owner(projects, &targets, corpora) {
        targets = vec![owner];
    }
    if !corpora.is_empty() && targets.len() != 1 {
        let one_name = targets.len() > 1 && targets.windows(2).all(|pair| pair[0].1 == pair[1].1);
        let choose = if one_name {
            format!(
                "`{}` is a target of both engines: choose one with --engine libfuzzer|afl",
                targets[0].1
            )
        } else {
            "choose one with --fuzz-target NAME".to_string()
        };
        return Err(Error::new(
            Exit::Usage,
            format!(
                "--corpus names the corpus of one target, and {} targets are selected; {choose}",
                targets.len()
            ),
        ));
    }
    Ok(targets)
}

/// The one target of `targets` whose corpus every `--corpus` directory
/// is, as `cargo fuzz` lays them out: its `fuzz/corpus/<target>/` itself,
/// else a folder named after it (a copy of that corpus). `None` when no
/// target or more than one is.
fn corpus_owner<'p>(
    projects: &[FuzzProject],
    targets: &[(usize, &'p str)],
    corpora: &[PathBuf],
) -> Option<(usize, &'p str)> {
    if corpora.is_empty() || targets.len() < 2 {
        return None;
    }
    let dirs: Vec<Option<PathBuf>> = corpora.iter().map(|d| d.canonicalize().ok()).collect();
    let own_dir = |&(p, t): &(usize, &str)| {
        let own = projects[p].corpus_dir(t).canonicalize().ok();
        own.is_some() && dirs.iter().all(|dir| *dir == own)
    };
    let named = |&(_, t): &(usize, &str)| {
        dirs.iter().all(|dir| {
            dir.as_ref()
                .is_some_and(|dir| dir.file_name() == Some(t.as_ref()))
        })
    };
    only_one(targets, own_dir).or_else(|| only_one(targets, named))
}

/// The one item of `items` that `matches`, if exactly one does.
fn only_one<T: Copy>(items: &[T], matches: impl Fn(&T) -> bool) -> Option<T> {
    let mut found = items.iter().filter(|item| matches(item));
    match (found.next(), found.next()) {
        (Some(&item), None) => Some(item),
        _ => None,
    }
}

/// A target's corpus without `--corpus`: `fuzz/corpus/<target>/` (unless
/// it is a file: [`misplaced_file`]), and the `queue/` of each AFL++
/// instance that ran it.
pub(crate) fn default_dirs(project: &FuzzProject, target: &str) -> Vec<PathBuf> {
    let own = project.corpus_dir(target);
    let mut dirs: Vec<PathBuf> = misplaced_file(project, target)
        .is_none()
        .then_some(own)
        .into_iter()
        .collect();
    let queues = project
        .instances
        .iter()
        .filter(|(_, ran)| ran.as_deref() == Some(target))
        .map(|(instance, _)| instance.dir.join("queue"));
    dirs.extend(queues);
    dirs
}

/// The corpus directory `--in-place` replaces: the first that exists (an
/// afl.rs target without `fuzz/corpus/<target>/` has only its queues, which
/// are refused, rather than a new folder made for the set).
fn in_place_dir(dirs: &[PathBuf]) -> &Path {
    dirs.iter().find(|d| d.is_dir()).unwrap_or(&dirs[0])
}

/// `fuzz/corpus/<target>` if it is a file rather than a folder: it holds
/// no corpus, and one target's mistake must not stop the others'.
fn misplaced_file(project: &FuzzProject, target: &str) -> Option<PathBuf> {
    let own = project.corpus_dir(target);
    std::fs::metadata(&own)
        .is_ok_and(|meta| !meta.is_dir())
        .then_some(own)
}

/// How a skipped target is named among the selected targets' `names`:
/// with its engine where another crate has a target of that name (a
/// `[[bin]]` built for both engines is one target of each, and the other
/// one may have a corpus: "skipped: parse" beside "Minimized parse").
fn skipped_name(target: &str, engine: Engine, names: &[&str]) -> String {
    match names.iter().filter(|&&name| name == target).count() {
        0 | 1 => target.to_string(),
        _ => format!("{target} ({})", engine.as_str()),
    }
}

/// How many input files `dir` holds, read as a corpus is (its nested
/// folders too, hidden files left out): 0 for a missing folder, `None`
/// for one that cannot be read.
pub(crate) fn count_inputs(dir: &Path) -> Option<usize> {
    files_in(dir).ok().map(|files| files.len())
}

/// `--in-place` never writes inside an AFL++ output directory: afl-fuzz
/// owns its `queue/` (and imports from every sibling with one).
fn refuse_afl_queue(dir: &Path) -> Result<(), Error> {
    let in_instance = dir
        .ancestors()
        .skip(1)
        .any(crate::fuzz::project::campaign::is_instance);
    match in_instance || crate::fuzz::project::campaign::is_instance(dir) {
        true => Err(Error::new(
            Exit::Usage,
            format!(
                "--in-place would write inside the AFL++ instance of `{}`, which afl-fuzz owns; write the set elsewhere with --output DIR",
                dir.display()
            ),
        )),
        false => Ok(()),
    }
}

/// `--in-place` never replaces a folder of failing inputs (the fuzz
/// crate's `artifacts/` or its ledger, `regressions/`), nor one that holds
/// them: the set keeps the inputs that cover, and would drop the crashes,
/// which are no corpus.
fn refuse_failing_inputs(dir: &Path, project: &FuzzProject) -> Result<(), Error> {
    let canonical = |path: &Path| std::fs::canonicalize(path).ok();
    let Some(dir) = canonical(dir) else {
        return Ok(());
    };
    let guarded = [
        project.fuzz_dir.join("artifacts"),
        project.fuzz_dir.join(crate::fuzz::project::LEDGER_DIR),
    ];
    let target_folders = project.targets.iter().map(|t| t.artifacts_dir.clone());
    let inside = guarded
        .into_iter()
        .chain(target_folders)
        .filter_map(|folder| canonical(&folder))
        .find(|folder| dir.starts_with(folder) || folder.starts_with(&dir));
    match inside {
        Some(folder) => Err(Error::new(
            Exit::Usage,
            format!(
                "--in-place would replace `{}`, which is or holds a folder of failing inputs (`{}`), not a corpus; minimize a corpus folder, or write the set elsewhere with --output DIR",
                crate::output::from_cwd(&dir).display(),
                crate::output::from_cwd(&folder).display()
            ),
        )),
        None => Ok(()),
    }
}

/// The distinct files of `dirs`, the first of each content kept.
pub(super) fn read_inputs(dirs: &[PathBuf], threads: usize) -> Result<Vec<Input>, Error> {
    let mut paths = Vec::new();
    for dir in dirs {
        // A missing `fuzz/corpus/<target>/` has none.
        paths.extend(files_in(dir)?);
    }
    let contents = read_all(paths.iter().map(PathBuf::as_path).collect(), threads);
    let mut seen = std::collections::HashSet::new();
    let mut inputs = Vec::new();
    for (path, bytes) in paths.into_iter().zip(contents) {
        let bytes = bytes.map_err(|e| {
            Error::caused(
                Exit::BadInput,
                format!("cannot read input `{}`", path.display()),
                e,
            )
        })?;
        let sha1 = sha1_hex(&bytes);
        if seen.insert(sha1.clone()) {
            inputs.push(Input { path, bytes, sha1 });
        }
    }
    Ok(inputs)
}

impl Plan {
    /// Its target, as builds know it.
    fn key(&self) -> TargetKey {
        (self.project, self.target.clone())
    }
}

/// Which coverage build counts `target`'s features: `--sanitizer`, else
/// its `Cargo.toml` setting; `address` or the uninstrumented one (`auto`,
/// which this mode's flag does not take, is its default, `none`).
fn sanitizer_of(request: &CorpusRequest, project: &FuzzProject, target: &str) -> Sanitizer {
    match request.sanitizer.or(project.settings_of(target).sanitizer) {
        Some(Sanitizer::Address) => Sanitizer::Address,
        _ => Sanitizer::None,
    }
}

/// The pool's options for `target`: `-j` workers, the request's limits,
/// else the target's `Cargo.toml` settings, else libFuzzer's.
pub(super) fn pool_options(
    request: &CorpusRequest,
    jobs: usize,
    project: &FuzzProject,
    target: &str,
) -> Result<PoolOptions, Error> {
    let limits = project.settings_of(target).under(TargetSettings {
        timeout: request.timeout,
        rss_limit_mb: request.rss_limit_mb,
        ..TargetSettings::default()
    });
    let base = PoolOptions {
        jobs,
        timeout: limits.timeout.unwrap_or(DEFAULT_TIMEOUT),
        rss_limit_mb: limits.rss_limit_mb.unwrap_or(DEFAULT_RSS_LIMIT_MB),
        ..PoolOptions::default()
    };
    fuzz_mode::engine_options(&base, project.engine)
}

/// What minimizing one target needs besides its plan.
struct Target<'a> {
    project: &'a FuzzProject,
    /// Its coverage build.
    binary: &'a Path,
    options: PoolOptions,
    /// Its plain build, for a typed target's decoder with `--shrink`
    /// (built on first use).
    plain: &'a dyn Fn() -> Result<PathBuf, Error>,
    /// The run's budget (`--max-time`, Ctrl-C), which stops `--shrink`.
    limits: &'a Limits,
}

/// Replays one target's corpus, reports its failures, writes the set.
fn minimize_target(
    plan: &Plan,
    target: Target<'_>,
    request: &CorpusRequest,
    settings: &Settings,
    events: &dyn Events,
) -> Result<(), Error> {
    let started = Instant::now();
    let project = target.project;
    let out = plan
        .out
        .clone()
        .expect("a run that writes a set has its output");
    let pool = start_pool(plan, &target)?;
    let replayed = replay(plan, &pool, events)?;
    if settings.interrupt.load(Ordering::SeqCst) {
        return Err(interrupted());
    }
    let failing = report_failures(plan, project, &replayed, events)?;
    let (corpus_features, set) = choose_set(plan, &replayed, target.options.jobs);
    let (all, set) = settle(plan, &target, (corpus_features.clone(), set), "set", events)?;
    // Ctrl-C while the set was chosen (seconds on a large corpus): nothing
    // written, as during the replay.
    if settings.interrupt.load(Ordering::SeqCst) {
        return Err(interrupted());
    }
    let (all, shrunk) = match request.shrink {
        true => shrink_set(set, &pool, (plan, &target), all, settings, events)?,
        false => {
            let unshrunk = Converged {
                set,
                rounds: 0,
                stopped: None,
            };
            (all, unshrunk)
        }
    };
    let set = shrunk.set;
    let files: Vec<(String, &[u8])> = set
        .iter()
        .map(|e| (e.sha1.clone(), e.bytes.as_slice()))
        .collect();
    let mode = match request.in_place {
        true => Mode::InPlace,
        false => Mode::Output,
    };
    write::write_set(&out, &files, mode)?;
    events.emit(&Message::CorpusMinimized {
        package: project.package.clone(),
        target: plan.target.clone(),
        files_before: plan.inputs.len(),
        bytes_before: plan.inputs.iter().map(|i| i.bytes.len() as u64).sum(),
        files_after: files.len(),
        bytes_after: files.iter().map(|f| f.1.len() as u64).sum(),
        features: all.len(),
        features_lost: missing(&corpus_features, &all),
        edges: edges(&all, counters(&replayed)),
        build: Some(match sanitizer_of(request, project, &plan.target) {
            Sanitizer::Address => Build::CoverageAsan,
            _ => Build::Coverage,
        }),
        failing,
        rejected: rejected(&replayed),
        shrink_rounds: shrunk.rounds,
        shrink_stopped: shrunk.stopped.map(Into::into),
        output: out,
        elapsed_s: started.elapsed().as_secs_f64(),
    });
    if shrunk.stopped == Some(StopReason::Interrupted) {
        return Err(Error::new(
            Exit::Interrupted,
            "interrupted while shrinking: the set written keeps every feature, its inputs not all shrunk",
        ));
    }
    Ok(())
}

/// Every feature of the replayed corpus, and the set that keeps them all
/// (`cover::minimize` on up to `threads` threads), each kept input with
/// its features.
fn choose_set(plan: &Plan, replayed: &[Replayed], threads: usize) -> (Vec<u32>, Vec<Entry>) {
    let items: Vec<Item<'_>> = plan
        .inputs
        .iter()
        .zip(replayed)
        .map(|(input, r)| Item {
            size: input.bytes.len(),
            key: &input.sha1,
            features: &r.features,
        })
        .collect();
    let set = cover::minimize(&items, threads)
        .into_iter()
        .map(|i| Entry::new(plan.inputs[i].bytes.clone(), replayed[i].features.clone()))
        .collect();
    (cover::all_features(&items), set)
}

/// Rounds of [`settle`] at most: each one that goes on drops an input.
const SETTLE_ROUNDS: usize = 4;

/// The set replayed on its own as the next run reads it (a fresh pool, in
/// the order of its file names) and covered again, until that changes
/// nothing; with the features of that replay. An input whose hit counts
/// depend on what its worker ran before (a quick-xml input, after a
/// crashing input had restarted its worker) covered features in the
/// corpus's replay that it did not in the set's, and a second run dropped
/// an input and two features. A warning counts the features of the
/// corpus's replay that the set's lacks.
fn settle(
    plan: &Plan,
    target: &Target<'_>,
    (all, mut set): (Vec<u32>, Vec<Entry>),
    set_name: &str,
    events: &dyn Events,
) -> Result<(Vec<u32>, Vec<Entry>), Error> {
    for _ in 0..SETTLE_ROUNDS {
        set.sort_by(|a, b| a.sha1.cmp(&b.sha1));
        let bytes: Vec<&[u8]> = set.iter().map(|e| e.bytes.as_slice()).collect();
        let replayed = start_pool(plan, target)?
            .replay(&bytes)
            .map_err(|e| match e {
                PoolError::Interrupted => interrupted(),
                e => Error::caused(Exit::Failure, "cannot replay the minimized set", e),
            })?;
        if replayed.iter().any(|r| r.outcome != Outcome::Passed) {
            break; // Flaky: the corpus's replay stands.
        }
        let next: Vec<Entry> = set
            .iter()
            .zip(replayed)
            .map(|(e, r)| Entry::new(e.bytes.clone(), r.features))
            .collect();
        let kept = cover::minimize(&shrink::items(&next), target.options.jobs);
        let settled = kept.len() == next.len();
        set = kept.into_iter().map(|i| next[i].clone()).collect();
        if settled {
            let own = cover::all_features(&shrink::items(&set));
            warn_unsettled(plan, missing(&all, &own), set_name, events);
            return Ok((own, set));
        }
    }
    Ok((all, set))
}

/// How many of `features` (sorted) `kept` (sorted) lacks.
fn missing(features: &[u32], kept: &[u32]) -> usize {
    features
        .iter()
        .filter(|f| kept.binary_search(f).is_err())
        .count()
}

/// Says how many features of the corpus's replay the set's own lacks.
fn warn_unsettled(plan: &Plan, missing: usize, set_name: &str, events: &dyn Events) {
    if missing > 0 {
        events.emit(&Message::Warning {
            message: format!(
                "{missing} feature(s) of the corpus of {} came in its replay but not in the {set_name}'s own: hit counts that vary with what ran before an input (libFuzzer counts them as they fall too)",
                plan.target
            ),
        });
    }
}

/// `--shrink`: the set shrunk to its fixed point in the coverage pool
/// (`shrink`), a typed target's values through its plain build's decoder;
/// short of it when the run's limits stop it. Then, unless stopped,
/// replayed and covered again as the next run reads it ([`settle`]): its
/// features counted by that replay, so that a feature a shrunk input
/// lost, whatever the cause, is counted missing and said, never claimed.
fn shrink_set(
    set: Vec<Entry>,
    pool: &CoveragePool,
    (plan, target): (&Plan, &Target<'_>),
    all: Vec<u32>,
    settings: &Settings,
    events: &dyn Events,
) -> Result<(Vec<u32>, Converged), Error> {
    let decoder = match pool.typed_input() {
        true => {
            let plain = (target.plain)()?;
            // Stopped by the shrink's limits, between its tests.
            let options = PoolOptions {
                jobs: 1,
                stop: StopFlag::default(),
                ..target.options.clone()
            };
            let decoder = DecodeCrew::start(&plain, &options)
                .map_err(|e| Error::caused(Exit::Failure, "cannot start the decoder", e))?;
            Some(decoder)
        }
        false => None,
    };
    let view = events.view();
    let started = Instant::now();
    let round_ended = |round: &Round| {
        events.emit(&Message::CorpusShrinkRound {
            package: target.project.package.clone(),
            target: plan.target.clone(),
            round: round.number,
            files: round.files,
            bytes_before: round.bytes_before,
            bytes_after: round.bytes_after,
            elapsed_s: started.elapsed().as_secs_f64(),
        });
    };
    let shrinker = Shrinker {
        view: view.as_ref(),
        round_ended: &round_ended,
        pool,
        decoder: decoder.as_ref(),
        allowed: &all,
        jobs: target.options.jobs,
        ddmin: settings.ddmin,
        limits: target.limits,
    };
    let converged = shrinker.converge(set);
    view.finish();
    let converged = converged
        .map_err(|e| Error::new(Exit::Failure, format!("cannot shrink the corpus: {e}")))?;
    if converged.stopped.is_some() {
        return Ok((all, converged));
    }
    let (all, set) = settle(plan, target, (all, converged.set), "shrunk set", events)?;
    Ok((all, Converged { set, ..converged }))
}

/// Every input of `plan` run once in the coverage build of its target,
/// the count shown as it goes (a progress bar on a terminal).
fn replay(plan: &Plan, pool: &CoveragePool, events: &dyn Events) -> Result<Vec<Replayed>, Error> {
    let bytes: Vec<&[u8]> = plan.inputs.iter().map(|i| i.bytes.as_slice()).collect();
    let view = events.view();
    let replayed = pool.replay_counted(&bytes, &mut |done| {
        view.counted(&plan.target, done, bytes.len());
    });
    view.finish();
    replayed.map_err(|e| match e {
        PoolError::Interrupted => interrupted(),
        e => {
            let what = format!("cannot replay the corpus of {}", plan.target);
            Error::caused(Exit::Failure, what, e)
        }
    })
}

/// Passing inputs with no feature: rejected, or too short for their type.
fn rejected(replayed: &[Replayed]) -> usize {
    replayed
        .iter()
        .filter(|r| r.outcome == Outcome::Passed && r.features.is_empty())
        .count()
}

fn interrupted() -> Error {
    Error::new(Exit::Interrupted, "interrupted; nothing more was written")
}

/// Where the set goes: `--output`, the corpus itself with `--in-place`, or
/// `<fuzz dir>/corpus-min/<target>/`; an output directory may not be one
/// of the corpus directories, nor a directory of the user's files.
fn output_dir(
    dirs: &[PathBuf],
    project: &FuzzProject,
    target: &str,
    request: &CorpusRequest,
) -> Result<PathBuf, Error> {
    if request.in_place {
        return Ok(in_place_dir(dirs).to_path_buf());
    }
    let out = match &request.out {
        Some(out) => out.clone(),
        None => project.corpus_min_dir(target),
    };
    if dirs.iter().any(|d| crate::output::same_file(d, &out)) {
        return Err(Error::new(
            Exit::Usage,
            format!(
                "--output `{}` is a corpus being minimized; use --in-place to replace it",
                out.display()
            ),
        ));
    }
    // Inside a corpus, the set would be read as part of it next time.
    if let Some(dir) = dirs.iter().find(|d| crate::output::within(&out, d)) {
        return Err(Error::new(
            Exit::Usage,
            format!(
                "--output `{}` is inside the corpus `{}`; give a directory outside it, or use --in-place to replace the corpus",
                out.display(),
                dir.display()
            ),
        ));
    }
    write::check_output(&out, "corpus", OUTPUT_HINT)?;
    Ok(out)
}

/// Edges covered (libFuzzer's `cov`): the counters (of a build with
/// `counters`) of the features below the stack depth's.
fn edges(features: &[u32], counters: u32) -> usize {
    let mut edges: Vec<u32> = features
        .iter()
        .filter(|&&f| u64::from(f) < u64::from(counters) * 8)
        .map(|f| f / 8)
        .collect();
    edges.dedup();
    edges.len()
}

/// The counter count of the replays' build.
fn counters(replayed: &[Replayed]) -> u32 {
    replayed.iter().map(|r| r.counters).max().unwrap_or(0)
}

/// Groups the failing inputs as `cargo reduce` and `ci` group them (by
/// their signatures at the target's match level: a panic's message is not
/// compared at the default, `stack`); for each group, the smallest is kept
/// as an artifact (unless there) and the group reported. The number of
/// failing inputs.
fn report_failures(
    plan: &Plan,
    project: &FuzzProject,
    replayed: &[Replayed],
    events: &dyn Events,
) -> Result<usize, Error> {
    let level = project.settings_of(&plan.target).matching();
    let mut groups: BTreeMap<String, Vec<(usize, &Failure)>> = BTreeMap::new();
    for (i, r) in replayed.iter().enumerate() {
        if let Outcome::Failed(failure) = &r.outcome {
            let id = level.key(&failure.signature()).id();
            groups.entry(id).or_default().push((i, failure));
        }
    }
    let artifacts_dir = project.results_dir(&plan.target);
    let mut failing = 0;
    for (id, members) in groups {
        failing += members.len();
        // The group's smallest input, whose failure the report names.
        let (smallest, failure) = members
            .iter()
            .map(|&(i, failure)| (&plan.inputs[i], failure))
            .min_by(|(a, _), (b, _)| (a.bytes.len(), &a.path).cmp(&(b.bytes.len(), &b.path)))
            .expect("a group has members");
        let name = format!(
            "{}{}",
            job_write::artifact_prefix(failure.kind),
            smallest.sha1
        );
        let artifact = match job_write::file_with_content(&artifacts_dir, &smallest.bytes) {
            Some(there) => there,
            None => job_write::artifact(&artifacts_dir, &name, &smallest.bytes)?.0,
        };
        let unplaced = unplaced_timeout_warning(failure, &smallest.path);
        events.emit(&Message::CorpusFailure {
            package: project.package.clone(),
            target: plan.target.clone(),
            failure: failure.signature().to_string(),
            failure_id: id,
            inputs: members
                .iter()
                .map(|&(i, _)| plan.inputs[i].path.clone())
                .collect(),
            artifact,
        });
        if let Some(message) = unplaced {
            events.emit(&Message::Warning { message });
        }
    }
    Ok(failing)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `[[bin]]` built for both engines is a target of each: the one
    /// skipped is named with its engine (parse-changelog's `parse`).
    #[test]
    fn a_skipped_target_is_named_with_its_engine_where_its_name_is_not_enough() {
        let names = ["parse", "parse", "other"];
        assert_eq!(
            skipped_name("parse", Engine::LibFuzzer, &names),
            "parse (libfuzzer)"
        );
        assert_eq!(skipped_name("other", Engine::Afl, &names), "other");
    }
}
