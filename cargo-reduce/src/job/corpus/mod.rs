//! `cargo reduce corpus`: per target, its corpus replayed in the coverage
//! build (`BuildKind::Coverage`), each passing input's features taken from
//! the workers, the smallest set that keeps every feature chosen (`cover`)
//! and written (`write`: a new directory, or the corpus replaced in one
//! step); failing inputs grouped by signature, reported, and kept as
//! artifacts.

mod cover;
mod write;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::ci::inputs::{files_in, read_all};
use super::fuzz_mode::{self, Work};
use super::{Events, Message, Settings};
use crate::error::{Error, Exit};
use crate::fuzz::pool::{CoveragePool, Failure, FailureKind, Outcome, PoolOptions, Replayed};
use crate::fuzz::project::{Artifact, FuzzProject, Selection};
use crate::fuzz::standin::BuildKind;
use cover::Item;
use write::Mode;

/// An input running longer is reported as a timeout rather than waited
/// out (libFuzzer's merge waits 1200 s).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// libFuzzer's `-rss_limit_mb`.
const DEFAULT_RSS_LIMIT_MB: u64 = 2048;

/// What `cargo reduce corpus` was asked.
#[derive(Debug, Clone, Default)]
pub(crate) struct CorpusRequest {
    /// The crates and targets.
    pub selection: Selection,
    /// `--corpus DIR`s, instead of `fuzz/corpus/<target>/` (one target).
    pub corpora: Vec<PathBuf>,
    /// `--out DIR` [default: `<fuzz dir>/corpus-min/<target>/`].
    pub out: Option<PathBuf>,
    /// `--in-place`: the (first) corpus directory is replaced.
    pub in_place: bool,
    /// `--timeout` [default: 10 s].
    pub timeout: Option<Duration>,
    /// `--rss-limit-mb` [default: 2048].
    pub rss_limit_mb: Option<u64>,
}

/// One target's corpus, read.
struct Plan {
    project: usize,
    target: String,
    /// Its corpus directories, the first the one `--in-place` replaces.
    dirs: Vec<PathBuf>,
    /// Its distinct inputs (identical files once: the first by path).
    inputs: Vec<Input>,
}

/// One distinct input.
struct Input {
    path: PathBuf,
    bytes: Vec<u8>,
    /// The SHA-1 of its bytes, in hex: its name in the output, as libFuzzer
    /// names corpus files.
    sha1: String,
}

/// Runs `cargo reduce corpus`.
pub(crate) fn run(
    request: &CorpusRequest,
    settings: &Settings,
    events: &dyn Events,
) -> Result<Exit, Error> {
    let projects = fuzz_mode::discover(&request.selection)?;
    let plans = plan(&projects, request, settings.jobs)?;
    let work: Vec<Work> = plans.iter().map(|p| p.work()).collect();
    let binaries = fuzz_mode::build(&projects, &work, BuildKind::Coverage, settings, events)?;
    let jobs = fuzz_mode::workers(settings.jobs, events);
    for plan in &plans {
        if settings.interrupt.load(Ordering::SeqCst) {
            return Err(interrupted());
        }
        let project = &projects[plan.project];
        let binary = binaries[&(plan.project, plan.target.clone())].clone()?;
        let options = pool_options(request, jobs, project)?;
        minimize_target(plan, project, &binary, options, request, settings, events)?;
    }
    Ok(Exit::Success)
}

/// Every selected target's corpus, read; targets without one are left out
/// (an error when none has one).
fn plan(
    projects: &[FuzzProject],
    request: &CorpusRequest,
    threads: usize,
) -> Result<Vec<Plan>, Error> {
    let targets: Vec<(usize, &str)> = projects
        .iter()
        .enumerate()
        .flat_map(|(p, project)| project.targets.iter().map(move |t| (p, t.name.as_str())))
        .collect();
    if !request.corpora.is_empty() && targets.len() != 1 {
        return Err(Error::new(
            Exit::Usage,
            format!(
                "--corpus names the corpus of one target, and {} targets are selected; choose one with --fuzz-target NAME",
                targets.len()
            ),
        ));
    }
    for dir in &request.corpora {
        if !dir.is_dir() {
            return Err(Error::new(
                Exit::BadInput,
                format!(
                    "corpus `{}` is not a directory; pass a directory of inputs",
                    dir.display()
                ),
            ));
        }
    }
    let mut plans = Vec::new();
    for (project, target) in targets {
        let dirs = match request.corpora.is_empty() {
            true => vec![projects[project].fuzz_dir.join("corpus").join(target)],
            false => request.corpora.clone(),
        };
        let inputs = read_inputs(&dirs, threads)?;
        if !inputs.is_empty() {
            let target = target.to_string();
            plans.push(Plan {
                project,
                target,
                dirs,
                inputs,
            });
        }
    }
    if plans.is_empty() {
        return Err(Error::new(
            Exit::BadInput,
            "no corpus to minimize: no file in `fuzz/corpus/<target>/` of the selected targets; name one with --corpus DIR",
        ));
    }
    Ok(plans)
}

/// The distinct files of `dirs`, the first of each content kept.
fn read_inputs(dirs: &[PathBuf], threads: usize) -> Result<Vec<Input>, Error> {
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
        let sha1 = sha1_smol::Sha1::from(&bytes).digest().to_string();
        if seen.insert(sha1.clone()) {
            inputs.push(Input { path, bytes, sha1 });
        }
    }
    Ok(inputs)
}

impl Plan {
    /// The build's view of it (the build needs the target only).
    fn work(&self) -> Work {
        let first = &self.inputs[0];
        Work {
            project: self.project,
            target: self.target.clone(),
            artifact: Artifact::plain(first.path.clone(), first.bytes.len() as u64),
            done: true,
        }
    }
}

/// The pool's options: `-j` workers, the request's limits or libFuzzer's.
fn pool_options(
    request: &CorpusRequest,
    jobs: usize,
    project: &FuzzProject,
) -> Result<PoolOptions, Error> {
    let base = PoolOptions {
        jobs,
        timeout: request.timeout.unwrap_or(DEFAULT_TIMEOUT),
        rss_limit_mb: request.rss_limit_mb.unwrap_or(DEFAULT_RSS_LIMIT_MB),
        ..PoolOptions::default()
    };
    fuzz_mode::engine_options(&base, project.engine)
}

/// Replays one target's corpus, reports its failures, writes the set.
fn minimize_target(
    plan: &Plan,
    project: &FuzzProject,
    binary: &Path,
    options: PoolOptions,
    request: &CorpusRequest,
    settings: &Settings,
    events: &dyn Events,
) -> Result<(), Error> {
    let started = Instant::now();
    let output = output_dir(plan, project, request)?;
    let replayed = replay(plan, binary, options)?;
    if settings.interrupt.load(Ordering::SeqCst) {
        return Err(interrupted());
    }
    let failing = report_failures(plan, project, &replayed, events)?;
    let items: Vec<Item<'_>> = plan
        .inputs
        .iter()
        .zip(&replayed)
        .map(|(input, r)| Item {
            size: input.bytes.len(),
            key: &input.sha1,
            features: &r.features,
        })
        .collect();
    let kept = cover::minimize(&items);
    let files: Vec<(String, &[u8])> = kept
        .iter()
        .map(|&i| (plan.inputs[i].sha1.clone(), plan.inputs[i].bytes.as_slice()))
        .collect();
    let mode = match request.in_place {
        true => Mode::InPlace,
        false => Mode::Output,
    };
    write::write_set(&output, &files, mode)?;
    let all = cover::all_features(&items);
    events.emit(&Message::CorpusMinimized {
        package: project.package.clone(),
        target: plan.target.clone(),
        files_before: plan.inputs.len(),
        bytes_before: plan.inputs.iter().map(|i| i.bytes.len() as u64).sum(),
        files_after: files.len(),
        bytes_after: files.iter().map(|f| f.1.len() as u64).sum(),
        features: all.len(),
        edges: edges(&all, &replayed),
        failing,
        rejected: rejected(&replayed),
        output,
        elapsed_s: started.elapsed().as_secs_f64(),
    });
    Ok(())
}

/// Every input of `plan` run once in the coverage build of its target.
fn replay(plan: &Plan, binary: &Path, options: PoolOptions) -> Result<Vec<Replayed>, Error> {
    let pool = CoveragePool::start(binary, options)
        .map_err(|e| Error::caused(Exit::Failure, format!("cannot start {}", plan.target), e))?;
    let bytes: Vec<&[u8]> = plan.inputs.iter().map(|i| i.bytes.as_slice()).collect();
    pool.replay(&bytes).map_err(|e| {
        let what = format!("cannot replay the corpus of {}", plan.target);
        Error::caused(Exit::Failure, what, e)
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

/// Where the set goes: `--out`, the corpus itself with `--in-place`, or
/// `<fuzz dir>/corpus-min/<target>/`; an output directory may not be one
/// of the corpus directories, nor a directory of the user's files.
fn output_dir(
    plan: &Plan,
    project: &FuzzProject,
    request: &CorpusRequest,
) -> Result<PathBuf, Error> {
    if request.in_place {
        return Ok(plan.dirs[0].clone());
    }
    let out = match &request.out {
        Some(out) => out.clone(),
        None => project.fuzz_dir.join("corpus-min").join(&plan.target),
    };
    if plan.dirs.iter().any(|d| crate::output::same_file(d, &out)) {
        return Err(Error::new(
            Exit::Usage,
            format!(
                "--out `{}` is a corpus being minimized; use --in-place to replace it",
                out.display()
            ),
        ));
    }
    write::check_output(&out)?;
    Ok(out)
}

/// Edges covered (libFuzzer's `cov`): the counters of the features below
/// the stack depth's.
fn edges(features: &[u32], replayed: &[Replayed]) -> usize {
    let counters = replayed.iter().map(|r| r.counters).max().unwrap_or(0) as u64;
    let mut edges: Vec<u32> = features
        .iter()
        .filter(|&&f| u64::from(f) < counters * 8)
        .map(|f| f / 8)
        .collect();
    edges.dedup();
    edges.len()
}

/// Groups the failing inputs by signature; for each group, the smallest is
/// kept as an artifact (unless there) and the group reported. The number
/// of failing inputs.
fn report_failures(
    plan: &Plan,
    project: &FuzzProject,
    replayed: &[Replayed],
    events: &dyn Events,
) -> Result<usize, Error> {
    let mut groups: BTreeMap<String, (Failure, Vec<usize>)> = BTreeMap::new();
    for (i, r) in replayed.iter().enumerate() {
        if let Outcome::Failed(failure) = &r.outcome {
            let id = failure.signature().id();
            groups
                .entry(id)
                .or_insert_with(|| (failure.clone(), Vec::new()))
                .1
                .push(i);
        }
    }
    let artifacts_dir = project
        .targets
        .iter()
        .find(|t| t.name == plan.target)
        .map_or_else(
            || project.fuzz_dir.join("artifacts").join(&plan.target),
            |t| t.artifacts_dir.clone(),
        );
    let mut failing = 0;
    for (id, (failure, members)) in groups {
        failing += members.len();
        let smallest = members
            .iter()
            .map(|&i| &plan.inputs[i])
            .min_by(|a, b| (a.bytes.len(), &a.path).cmp(&(b.bytes.len(), &b.path)))
            .expect("a group has members");
        let name = format!("{}{}", artifact_prefix(failure.kind), smallest.sha1);
        let (artifact, _) = write::write_artifact(&artifacts_dir, &name, &smallest.bytes)?;
        events.emit(&Message::CorpusFailure {
            package: project.package.clone(),
            target: plan.target.clone(),
            failure: failure.signature().to_string(),
            failure_id: id,
            inputs: members
                .iter()
                .map(|&i| plan.inputs[i].path.clone())
                .collect(),
            artifact,
        });
    }
    Ok(failing)
}

/// libFuzzer's artifact prefix for a failure of `kind`.
fn artifact_prefix(kind: FailureKind) -> &'static str {
    match kind {
        FailureKind::Timeout => "timeout-",
        FailureKind::Oom => "oom-",
        _ => "crash-",
    }
}
