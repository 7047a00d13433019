//! `cargo reduce [ARTIFACT…]`: minimize cargo-fuzz crash artifacts
//! in-process.
//!
//! Discover the fuzz crates and their artifacts, build the targets once
//! against the libfuzzer-sys stand-in, then for each artifact: reproduce
//! it, reduce it in the target's worker pool while it fails the same way,
//! and write `minimized-from-<name>` beside it. A summary table ends the
//! run; `--message-format json` prints one `reduction-finished` per
//! artifact instead.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use serde::Serialize;

use super::options::{parse_seconds, LangArg, ReduceOptions};
use super::report::{Finished, ReductionProgress, Reporter};
use crate::engine::{Context, Counters, OutcomeCache, StopReason};
use crate::error::{CliError, Exit};
use crate::fuzz::build;
use crate::fuzz::minimize::{self, ArtifactError, Method, Minimized};
use crate::fuzz::oracle::{HarnessOracle, MatchLevel};
use crate::fuzz::pool::{FailureKind, PoolOptions, WorkerPool};
use crate::fuzz::project::{self, Artifact, ArtifactKind, FuzzProject};
use crate::output::write_atomically;
use crate::syntax::{Lang, Strategy};

/// Arguments of the default command.
#[derive(Debug, Clone, Args)]
pub struct FuzzArgs {
    /// Artifacts to reduce [default: every artifact that has no
    /// `minimized-from-*` copy yet].
    #[arg(value_name = "ARTIFACT")]
    pub artifacts: Vec<PathBuf>,
    /// Path to Cargo.toml (of the project or of its fuzz crate).
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// Fuzz crate(s) to work on.
    #[arg(short, long, value_name = "SPEC")]
    pub package: Vec<String>,
    /// Only this fuzz target (inferred from an artifact's directory).
    #[arg(long, value_name = "NAME")]
    pub target: Option<String>,
    /// Reduce artifacts that already have a minimized copy, too.
    #[arg(long)]
    pub force: bool,
    /// How closely the reduced input must fail like the artifact.
    #[arg(long = "match", value_enum, default_value_t, value_name = "LEVEL")]
    pub matching: MatchLevel,
    /// A test running longer fails as a timeout [default: 1 s].
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub timeout: Option<Duration>,
    /// Reduce the artifacts as source text of this language (rust, js,
    /// text, or auto: by content), syntax-aware, instead of as bytes; for
    /// targets whose inputs are programs.
    #[arg(long, value_name = "LANG")]
    pub lang: Option<LangArg>,
    /// Syntax-aware strategy with --lang, as `file --strategy` takes it
    /// [default: best].
    #[arg(long, value_name = "STRATEGY", requires = "lang")]
    pub strategy: Option<Strategy>,
    /// Memory limit per worker, in MB (libFuzzer's -rss_limit_mb).
    #[arg(long, value_name = "MB", default_value_t = 2048)]
    pub rss_limit_mb: u64,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub reduce: ReduceOptions,
}

const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1);

/// One artifact to reduce.
struct Job {
    project: usize,
    target: String,
    artifact: Artifact,
}

/// What became of one artifact.
struct Row {
    name: String,
    original: usize,
    reduced: Option<usize>,
    tests: u64,
    elapsed: Duration,
    note: String,
    debug: Option<String>,
}

/// The per-artifact `reduction-finished` JSON message: file mode's, plus
/// the target, the failure and a typed target's `Debug` form.
#[derive(Serialize)]
struct ArtifactFinished<'a> {
    #[serde(flatten)]
    finished: Finished<'a>,
    target: &'a str,
    failure: String,
    debug: Option<&'a str>,
    phases: Phases,
}

/// Wall time of each phase of one artifact's reduction, in seconds
/// (microsecond precision); `elapsed_s` is their sum. The reproduction and
/// the final check are bound by the failure itself (a timeout artifact's
/// runs take the whole timeout); the reduction phase is what the algorithms
/// and the pool decide.
#[derive(Serialize, Clone, Copy)]
struct Phases {
    /// Running the artifact [`minimize::REPRODUCE_RUNS`] times.
    reproduce_s: f64,
    /// ddmin and canonicalization (with a timeout artifact's probes and
    /// their checks).
    reduce_s: f64,
    /// The result's final check and its writing.
    verify_s: f64,
}

fn seconds(duration: Duration) -> f64 {
    (duration.as_secs_f64() * 1e6).round() / 1e6
}

/// Runs `cargo reduce [ARTIFACT…]`.
pub fn run(
    args: &FuzzArgs,
    reporter: &Reporter,
    interrupt: Arc<AtomicBool>,
) -> Result<Exit, CliError> {
    let mut projects = project::discover(args.manifest_path.as_deref(), &args.package)?;
    if let Some(target) = &args.target {
        project::select_target(&mut projects, target)?;
    }
    let jobs = select_jobs(args, &projects)?;
    if jobs.is_empty() {
        let count: usize = projects
            .iter()
            .flat_map(|p| &p.targets)
            .map(|t| t.artifacts.len())
            .sum();
        reporter.status("Finished", format!("nothing to reduce: {count} artifact(s) found, all with a minimized copy (use --force to redo them)"));
        return Ok(Exit::Success);
    }
    let binaries = build(&projects, &jobs, reporter)?;
    let mut pools: HashMap<&Path, WorkerPool> = HashMap::new();
    let mut rows = Vec::new();
    let mut exit = Exit::Success;
    for job in &jobs {
        let binary = &binaries[&(job.project, job.target.clone())];
        let pool = match pools.get(binary.as_path()) {
            Some(pool) => pool,
            None => {
                let pool = WorkerPool::start(binary, pool_options(args)).map_err(|e| {
                    CliError::new(Exit::Failure, format!("cannot start {}: {e}", job.target))
                })?;
                pools.entry(binary.as_path()).or_insert(pool)
            }
        };
        let started = Instant::now();
        match reduce_one(job, pool, args, reporter, interrupt.clone()) {
            Ok((row, stopped)) => {
                rows.push(row);
                if stopped == Some(StopReason::Interrupted) {
                    exit = Exit::Interrupted;
                    break;
                }
            }
            Err(e) => {
                reporter.error(&e);
                if exit == Exit::Success {
                    exit = e.exit;
                }
                rows.push(Row {
                    name: display_name(job),
                    original: job.artifact.size as usize,
                    reduced: None,
                    tests: 0,
                    elapsed: started.elapsed(),
                    note: short_reason(&e),
                    debug: None,
                });
            }
        }
    }
    if !reporter.is_json() {
        print_table(&rows);
    }
    Ok(exit)
}

/// The artifacts to reduce: the named ones, or every one not yet reduced.
fn select_jobs(args: &FuzzArgs, projects: &[FuzzProject]) -> Result<Vec<Job>, CliError> {
    if !args.artifacts.is_empty() {
        return args
            .artifacts
            .iter()
            .map(|path| {
                let found = project::locate_artifact(projects, path, args.target.as_deref())?;
                let target = projects[found.project].targets[found.target].name.clone();
                Ok(Job {
                    project: found.project,
                    target,
                    artifact: found.artifact,
                })
            })
            .collect();
    }
    let mut jobs = Vec::new();
    for (p, project) in projects.iter().enumerate() {
        for target in &project.targets {
            for artifact in target
                .artifacts
                .iter()
                .filter(|a| args.force || a.minimized.is_none())
            {
                jobs.push(Job {
                    project: p,
                    target: target.name.clone(),
                    artifact: artifact.clone(),
                });
            }
        }
    }
    Ok(jobs)
}

/// Builds every target the jobs need, one cargo build per project.
fn build(
    projects: &[FuzzProject],
    jobs: &[Job],
    reporter: &Reporter,
) -> Result<HashMap<(usize, String), PathBuf>, CliError> {
    let mut binaries = HashMap::new();
    for (p, project) in projects.iter().enumerate() {
        let mut targets: Vec<&str> = jobs
            .iter()
            .filter(|j| j.project == p)
            .map(|j| j.target.as_str())
            .collect();
        targets.sort_unstable();
        targets.dedup();
        if targets.is_empty() {
            continue;
        }
        let started = Instant::now();
        let spinner = reporter.spinner(format!(
            "{} ({}) against the libfuzzer-sys stand-in",
            project.package,
            targets.join(", ")
        ));
        let built = build::build_workers(project, &targets);
        if let Some(spinner) = spinner {
            spinner.finish_and_clear();
        }
        let built = built.map_err(|e| {
            CliError::new(
                Exit::BuildFailed,
                format!("cannot build fuzz crate `{}`: {e}", project.package),
            )
        })?;
        reporter.status(
            "Built",
            format!(
                "{} target(s) of {} in {:.1}s",
                targets.len(),
                project.package,
                started.elapsed().as_secs_f64()
            ),
        );
        reporter.message(&serde_json::json!({"reason": "build-finished", "package": project.package, "targets": targets, "elapsed_s": started.elapsed().as_secs_f64()}));
        for (target, binary) in targets.iter().zip(built) {
            binaries.insert((p, target.to_string()), binary);
        }
    }
    Ok(binaries)
}

fn pool_options(args: &FuzzArgs) -> PoolOptions {
    PoolOptions {
        jobs: args.reduce.jobs(),
        timeout: args.timeout.unwrap_or(DEFAULT_TIMEOUT),
        rss_limit_mb: args.rss_limit_mb,
        ..PoolOptions::default()
    }
}

/// Reproduces, reduces, checks and writes one artifact.
fn reduce_one(
    job: &Job,
    pool: &WorkerPool,
    args: &FuzzArgs,
    reporter: &Reporter,
    interrupt: Arc<AtomicBool>,
) -> Result<(Row, Option<StopReason>), CliError> {
    let started = Instant::now();
    let path = &job.artifact.path;
    let bytes = std::fs::read(path).map_err(|e| {
        CliError::new(
            Exit::BadInput,
            format!("cannot read artifact `{}`: {e}", path.display()),
        )
    })?;
    let failure = minimize::reproduce(
        pool,
        path,
        &bytes,
        job.artifact.kind == ArtifactKind::Timeout,
    )
    .map_err(artifact_error)?;
    let reproduced_at = Instant::now();
    reporter.message(&serde_json::json!({"reason": "artifact-reproduced", "path": path, "target": job.target, "failure": failure.signature().to_string()}));
    let oracle = HarnessOracle::new(pool, &failure, args.matching);

    let counters = Counters::default();
    for _ in 0..minimize::REPRODUCE_RUNS {
        counters.add_test();
    }
    let limits = args.reduce.limits(interrupt, started);
    let cache = OutcomeCache::new();
    let progress = ReductionProgress::new(reporter, bytes.len());
    progress.start_pass(&display_name(job));
    let ctx = Context {
        jobs: args.reduce.jobs(),
        limits: &limits,
        cache: (!args.reduce.no_cache).then_some(&cache),
        counters: &counters,
        observer: &progress,
    };
    let method = method(args, &bytes);
    let result = if failure.kind == FailureKind::Timeout {
        minimize::minimize_hang(bytes.clone(), &oracle, &method, &ctx)
    } else {
        minimize::minimize(bytes.clone(), &oracle, &method, &ctx)
    };
    progress.finish();
    let steps = progress.steps(&counters);
    let reduced_at = Instant::now();
    let (minimized, error) = match result {
        Ok(m) => (m, None),
        Err((best, e)) => (
            Minimized {
                bytes: best,
                stopped: None,
                checked: None,
            },
            Some(e),
        ),
    };
    let stopped = limits.stop_reason();
    let checked = minimized.checked.unwrap_or_default();
    if minimized.checked.is_none() && stopped != Some(StopReason::Interrupted) && error.is_none() {
        counters.add_test();
        minimize::verify(pool, &oracle, path, &minimized.bytes).map_err(artifact_error)?;
    }
    let output = minimize::minimized_path(path);
    write_atomically(&output, &minimized.bytes, None).map_err(|e| {
        CliError::new(
            Exit::Failure,
            format!("cannot write `{}`: {e}", output.display()),
        )
    })?;
    if let Some(e) = error {
        return Err(CliError::new(
            Exit::Failure,
            format!(
                "reducing `{}` failed: {e}; the best result so far is in `{}`",
                path.display(),
                output.display()
            ),
        ));
    }
    // The reduction ends here; printing a typed value's Debug form is not
    // part of it (it costs a one-off worker).
    let phases = Phases {
        reproduce_s: seconds(reproduced_at - started),
        reduce_s: seconds(reduced_at - reproduced_at - checked),
        verify_s: seconds(reduced_at.elapsed() + checked),
    };
    let elapsed = started.elapsed();
    let debug = pool.debug_format(&minimized.bytes).ok().flatten();
    let signature = failure.signature().to_string();
    reporter.message(&ArtifactFinished {
        finished: Finished::new(
            path,
            &output,
            (bytes.len(), minimized.bytes.len()),
            &counters,
            elapsed,
            stopped.is_none(),
        )
        .with_steps(steps),
        target: &job.target,
        failure: signature.clone(),
        debug: debug.as_deref(),
        phases,
    });
    let note = match stopped {
        None => signature,
        Some(reason) => format!("{signature} (stopped: {}, not 1-minimal)", reason.name()),
    };
    let row = Row {
        name: display_name(job),
        original: bytes.len(),
        reduced: Some(minimized.bytes.len()),
        tests: counters.tests(),
        elapsed,
        note,
        debug,
    };
    Ok((row, stopped))
}

/// Bytes, or with `--lang` syntax-aware (`auto`: by content, since
/// artifacts have no extension).
fn method(args: &FuzzArgs, bytes: &[u8]) -> Method {
    let lang = match args.lang {
        None => return Method::Bytes(args.reduce.ddmin_options()),
        Some(LangArg::Auto) => Lang::detect(None, bytes),
        Some(LangArg::Is(lang)) => lang,
    };
    Method::Syntax(lang, args.strategy.unwrap_or(Strategy::Best))
}

fn display_name(job: &Job) -> String {
    format!("{}/{}", job.target, job.artifact.name)
}

fn artifact_error(e: ArtifactError) -> CliError {
    let exit = match &e {
        ArtifactError::DoesNotReproduce { .. } => Exit::NotInteresting,
        ArtifactError::Flaky { .. } | ArtifactError::Unstable { .. } => Exit::Flaky,
        ArtifactError::Pool(_) => Exit::Failure,
    };
    CliError::new(exit, e.to_string())
}

fn short_reason(e: &CliError) -> String {
    match e.exit {
        Exit::NotInteresting => "skipped: does not reproduce".into(),
        Exit::Flaky => "skipped: flaky".into(),
        _ => "failed".into(),
    }
}

/// The summary: artifact, original → reduced bytes, tests, time, failure.
fn print_table(rows: &[Row]) {
    let header = ["ARTIFACT", "BYTES", "TESTS", "TIME", "FAILURE"];
    let cells: Vec<[String; 5]> = rows
        .iter()
        .map(|r| {
            let bytes = match r.reduced {
                Some(reduced) => format!("{} → {reduced}", r.original),
                None => format!("{}", r.original),
            };
            [
                r.name.clone(),
                bytes,
                r.tests.to_string(),
                format!("{:.2}s", r.elapsed.as_secs_f64()),
                r.note.clone(),
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..4)
        .map(|i| {
            cells
                .iter()
                .map(|c| c[i].chars().count())
                .chain([header[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |c: [&str; 5]| {
        format!(
            "{:<w0$}  {:>w1$}  {:>w2$}  {:>w3$}  {}",
            c[0],
            c[1],
            c[2],
            c[3],
            c[4],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
            w3 = widths[3]
        )
    };
    println!("{}", line(header));
    for c in &cells {
        println!("{}", line([&c[0], &c[1], &c[2], &c[3], &c[4]]));
    }
    for r in rows.iter().filter(|r| r.debug.is_some()) {
        println!(
            "\n{} as the target sees it:\n{}",
            r.name,
            r.debug.as_deref().unwrap_or_default()
        );
    }
}
