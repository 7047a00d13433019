//! `cargo reduce coverage` (and `ci --coverage`): line coverage of each
//! target's inputs. The inputs are replayed in the coverage reports' build
//! (`BuildKind::Lines`: every block counted, line tables), each one's covered counters read from its
//! features, mapped to source lines through the PC table and the binary's
//! line tables (`fuzz::lines`), what the workers ran as they started
//! counted for every input, kept to the files the report is about and to
//! code that is not derived (`report`, `derived`), and written per target
//! and merged as an lcov tracefile (`lcov`) and HTML (`html`), one
//! directory swapped in whole (`write`).

mod derived;
mod html;
mod lcov;
mod report;
mod write;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::ci::inputs::read_all;
use super::ci::{ledger, CorpusRoot};
use super::corpus::{self, read_inputs, CorpusRequest};
use super::fuzz_mode::{self, TargetKey};
use super::{Events, Message, Settings};
use crate::error::{Error, Exit};
use crate::fuzz::lines::{LineMap, SourceCounts};
use crate::fuzz::pool::{CoveragePool, Outcome, PcTableFile, PoolError, PoolOptions, Replayed};
use crate::fuzz::project::{FuzzProject, Selection};
use crate::fuzz::standin::BuildKind;
use report::{Coverage, Scope};

/// libFuzzer's feature space (`kFeatureSetSize`): a counter's index is
/// read from its features, which wrap past it.
const FEATURE_SET_SIZE: u64 = 1 << 21;

/// The report's folder without `--output`, beside the fuzz crate's
/// `corpus/`: not `coverage/`, where `cargo fuzz coverage` writes its own.
const DEFAULT_DIR: &str = "coverage-report";

/// What `cargo reduce coverage` was asked.
#[derive(Debug, Clone, Default)]
pub(crate) struct CoverageRequest {
    /// The crates and targets.
    pub selection: Selection,
    /// Which corpus of each target is measured.
    pub corpus: CorpusChoice,
    /// The regression ledger's inputs too (`ci --coverage`).
    pub ledger: bool,
    /// `--output DIR` [default: `<fuzz dir>/coverage-report/`].
    pub out: Option<PathBuf>,
    /// How the report is made.
    pub options: CoverageOptions,
}

/// Which corpus of each target a report measures.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum CorpusChoice {
    /// `coverage`'s default: `fuzz/corpus/<target>/` and the `queue/` of
    /// each AFL++ instance that ran the target, as `corpus` reads them.
    #[default]
    Own,
    /// `coverage --corpus DIR…` (one target).
    Dirs(Vec<PathBuf>),
    /// `ci --coverage --corpus [ROOT]`: the corpus `ci` replays.
    Root(CorpusRoot),
    /// `ci --coverage` without `--corpus`: none (the ledger only).
    None,
}

impl CorpusChoice {
    /// The folders of `target`'s corpus (a missing one holds nothing).
    fn dirs(&self, project: &FuzzProject, target: &str) -> Vec<PathBuf> {
        match self {
            CorpusChoice::Own => corpus::default_dirs(project, target),
            CorpusChoice::Dirs(dirs) => dirs.clone(),
            CorpusChoice::Root(root) => vec![root.of(project, target)],
            CorpusChoice::None => Vec::new(),
        }
    }

    /// `--corpus DIR`s, which name one target's corpus.
    fn named(&self) -> &[PathBuf] {
        match self {
            CorpusChoice::Dirs(dirs) => dirs,
            _ => &[],
        }
    }
}

/// How a report is made (`coverage`'s and `ci --coverage`'s).
#[derive(Debug, Clone, Default)]
pub(crate) struct CoverageOptions {
    /// `--include-deps`: dependencies' files too.
    pub include_deps: bool,
    /// `--timeout` [default: 10 s].
    pub timeout: Option<Duration>,
    /// `--rss-limit-mb` [default: 2048].
    pub rss_limit_mb: Option<u64>,
}

/// One target's inputs.
#[derive(Debug)]
struct InputSet {
    project: usize,
    target: String,
    /// The distinct inputs (identical files once), with a path of each.
    inputs: Vec<(PathBuf, Vec<u8>)>,
}

/// One target's coverage.
struct Measured {
    project: usize,
    target: String,
    inputs: usize,
    failing: usize,
    coverage: Coverage,
}

/// Runs `cargo reduce coverage`.
pub(crate) fn run(
    request: &CoverageRequest,
    settings: &Settings,
    events: &dyn Events,
) -> Result<Exit, Error> {
    let projects = fuzz_mode::discover(&request.selection)?;
    let (sets, skipped) = corpora(&projects, request, settings.jobs)?;
    corpus::warn_skipped(&skipped, events);
    let out = match &request.out {
        Some(out) => out.clone(),
        None => projects[sets[0].project].output_root().join(DEFAULT_DIR),
    };
    report(&projects, &sets, &out, &request.options, settings, events)?;
    Ok(Exit::Success)
}

/// Replays every set in its target's coverage build and writes the
/// reports to `out`: one directory per target, the merged one around
/// them.
fn report(
    projects: &[FuzzProject],
    sets: &[InputSet],
    out: &Path,
    options: &CoverageOptions,
    settings: &Settings,
    events: &dyn Events,
) -> Result<(), Error> {
    write::check_output(out)?;
    let targets: Vec<TargetKey> = sets.iter().map(|s| (s.project, s.target.clone())).collect();
    let binaries = fuzz_mode::build(projects, &targets, BuildKind::Lines, settings, events)?;
    let jobs = fuzz_mode::workers(settings.jobs, events);
    let mut measured = Vec::new();
    for set in sets {
        let project = &projects[set.project];
        let binary = binaries[&(set.project, set.target.clone())].clone()?;
        let pool = PoolOptions {
            stop: settings.stop_flag(),
            ..pool_options(options, jobs, project, &set.target)?
        };
        measured.push(measure(
            set,
            project,
            &binary,
            pool,
            options,
            &settings.interrupt,
        )?);
    }
    write_reports(projects, &measured, out, events)
}

/// Every selected target's inputs (its corpus as `request.corpus` says,
/// and the ledger's), and the names of the targets left out for having
/// none; an error when none has one.
fn corpora(
    projects: &[FuzzProject],
    request: &CoverageRequest,
    threads: usize,
) -> Result<(Vec<InputSet>, Vec<String>), Error> {
    let targets = corpus::selected_targets(projects, request.corpus.named())?;
    let mut sets = Vec::new();
    let mut skipped = Vec::new();
    for (project, target) in targets {
        let fuzz_dir = &projects[project].fuzz_dir;
        let dirs = request.corpus.dirs(&projects[project], target);
        let mut inputs: Vec<(PathBuf, Vec<u8>)> = read_inputs(&dirs, threads)?
            .into_iter()
            .map(|i| (i.path, i.bytes))
            .collect();
        if request.ledger {
            let entries = ledger::load(&ledger::ledger_dir(fuzz_dir, target))?;
            inputs.extend(ledger_inputs(entries, threads)?);
        }
        let mut seen = HashSet::new();
        inputs.retain(|(_, bytes)| seen.insert(bytes.clone()));
        if inputs.is_empty() {
            skipped.push(target.to_string());
            continue;
        }
        let target = target.to_string();
        sets.push(InputSet {
            project,
            target,
            inputs,
        });
    }
    if sets.is_empty() {
        let why = match &request.corpus {
            CorpusChoice::Dirs(dirs) => format!(
                "no file in {}; name a folder that holds the corpus's files",
                dirs.iter()
                    .map(|d| format!("`{}`", d.display()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            _ => "no file in the corpus (or the regression ledger) of the selected targets; \
                  name a corpus with --corpus DIR"
                .to_string(),
        };
        return Err(Error::new(
            Exit::BadInput,
            format!("no input to measure: {why}"),
        ));
    }
    Ok((sets, skipped))
}

/// The inputs of the ledger's `entries`, read.
fn ledger_inputs(
    entries: Vec<ledger::Entry>,
    threads: usize,
) -> Result<Vec<(PathBuf, Vec<u8>)>, Error> {
    let paths: Vec<PathBuf> = entries.into_iter().map(|e| e.input).collect();
    let contents = read_all(paths.iter().map(PathBuf::as_path).collect(), threads);
    paths
        .into_iter()
        .zip(contents)
        .map(|(path, bytes)| match bytes {
            Ok(bytes) => Ok((path, bytes)),
            Err(e) => {
                let what = format!("cannot read input `{}`", path.display());
                Err(Error::caused(Exit::BadInput, what, e))
            }
        })
        .collect()
}

/// The pool's options for `target`: `-j` workers, the request's limits,
/// else the target's `Cargo.toml` settings, else `corpus`'s defaults
/// (libFuzzer's memory limit, 10 s a test).
fn pool_options(
    options: &CoverageOptions,
    jobs: usize,
    project: &FuzzProject,
    target: &str,
) -> Result<PoolOptions, Error> {
    let limits = CorpusRequest {
        timeout: options.timeout,
        rss_limit_mb: options.rss_limit_mb,
        ..CorpusRequest::default()
    };
    corpus::pool_options(&limits, jobs, project, target)
}

fn interrupted() -> Error {
    Error::new(Exit::Interrupted, "interrupted; no report was written")
}

/// Replays one set and maps what it covered to the files of the report.
fn measure(
    set: &InputSet,
    project: &FuzzProject,
    binary: &Path,
    options: PoolOptions,
    report_options: &CoverageOptions,
    interrupt: &AtomicBool,
) -> Result<Measured, Error> {
    let failed = |what: &str, e: &dyn std::fmt::Display| {
        Error::new(Exit::Failure, format!("{what} of {}: {e}", set.target))
    };
    let table_file = PcTableFile::new().map_err(|e| failed("cannot start the replay", &e))?;
    let pool = CoveragePool::start_with_env(binary, options, vec![table_file.env()])
        .map_err(|e| failed("cannot start the coverage build", &e))?;
    let bytes: Vec<&[u8]> = set.inputs.iter().map(|(_, b)| b.as_slice()).collect();
    let replayed = pool.replay(&bytes).map_err(|e| match e {
        PoolError::Interrupted => interrupted(),
        e => failed("cannot replay the inputs", &e),
    })?;
    let table = table_file
        .read(binary)
        .map_err(|e| failed("cannot read the PC table", &e))?;
    let scope = scope(project, report_options.include_deps);
    let file_name = |name: &str| scope.file_name(name);
    let map = LineMap::new(binary, &table, &file_name, interrupt)
        .map_err(|e| failed("cannot map lines", &e))?
        .ok_or_else(interrupted)?;
    let counts = covered_source(&map, &replayed, pool.startup(), table.pcs.len())
        .map_err(|e| failed("cannot count the coverage", &e))?;
    if interrupt.load(Ordering::SeqCst) {
        return Err(interrupted());
    }
    Ok(Measured {
        project: set.project,
        target: set.target.clone(),
        inputs: set.inputs.len(),
        failing: replayed
            .iter()
            .filter(|r| matches!(r.outcome, Outcome::Failed(_)))
            .count(),
        coverage: Coverage::new(counts, &scope),
    })
}

/// Every instrumented line and function, with the passing inputs that
/// reached it: an input's covered counters are its features' edges (a
/// feature below 8 times the counter count is `counter × 8 + bucket`),
/// and those of what its worker ran as it started (`startup`: the
/// target's init code, which every input runs after, as llvm-cov counts
/// it run).
fn covered_source(
    map: &LineMap,
    replayed: &[Replayed],
    startup: &Replayed,
    pcs: usize,
) -> Result<SourceCounts, String> {
    let mut tally = map.tally();
    let startup = covered_counters(startup, pcs)?;
    for r in replayed.iter().filter(|r| !r.features.is_empty()) {
        let edges = covered_counters(r, pcs)?;
        tally.add_input(edges.into_iter().chain(startup.iter().copied()));
    }
    Ok(tally.finish())
}

/// The counters `r` covered (none without features).
fn covered_counters(r: &Replayed, pcs: usize) -> Result<Vec<usize>, String> {
    let counters = u64::from(r.counters);
    if r.features.is_empty() {
        return Ok(Vec::new());
    }
    if counters as usize != pcs {
        return Err(format!("{pcs} blocks in the PC table, {counters} counters"));
    }
    if counters * 8 > FEATURE_SET_SIZE {
        return Err(format!(
            "{counters} counters; a report reads at most {} (libFuzzer's feature space)",
            FEATURE_SET_SIZE / 8
        ));
    }
    Ok(r.features
        .iter()
        .filter(|&&f| u64::from(f) < counters * 8)
        .map(|&f| (f / 8) as usize)
        .collect())
}

/// The files a report of `project` is about: under its workspace root or
/// elsewhere on disk, not generated (the target directory), and the
/// dependencies' (`$CARGO_HOME`) only when asked.
fn scope(project: &FuzzProject, include_deps: bool) -> Scope {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    Scope {
        root: project.workspace_root.clone(),
        build_dirs: vec![project.target_dir.clone()],
        deps_dirs: cargo_home.into_iter().collect(),
        include_deps,
    }
}

/// Writes every target's report and the merged one, and reports them.
fn write_reports(
    projects: &[FuzzProject],
    measured: &[Measured],
    out: &Path,
    events: &dyn Events,
) -> Result<(), Error> {
    let mut files = Vec::new();
    let mut messages = Vec::new();
    let mut merged = Coverage::default();
    let mut used = HashSet::new();
    for m in measured {
        let package = &projects[m.project].package;
        let mut dir = m.target.clone();
        if !used.insert(dir.clone()) {
            dir = format!("{package}-{}", m.target);
        }
        let root = &scope(&projects[m.project], false).shown_from(&m.coverage);
        files.extend(report_files(
            &m.coverage,
            root,
            &m.target,
            &format!("{dir}/"),
        ));
        let names = (Some(package.clone()), Some(m.target.clone()));
        messages.push(message(
            &m.coverage,
            root,
            &out.join(&dir),
            names,
            (m.inputs, m.failing),
        ));
        merged.merge(&m.coverage);
    }
    let root = scope(&projects[measured[0].project], false).shown_from(&merged);
    files.extend(report_files(&merged, &root, "all targets", ""));
    let totals = measured
        .iter()
        .fold((0, 0), |(i, f), m| (i + m.inputs, f + m.failing));
    messages.push(message(&merged, &root, out, (None, None), totals));
    write::write_dir(out, &files)?;
    for message in &messages {
        events.emit(message);
    }
    Ok(())
}

/// The lcov tracefile and HTML pages of `coverage`, under `prefix`.
fn report_files(
    coverage: &Coverage,
    root: &Path,
    test: &str,
    prefix: &str,
) -> Vec<(String, Vec<u8>)> {
    let mut files = vec![(
        format!("{prefix}lcov.info"),
        lcov::tracefile(coverage, test).into_bytes(),
    )];
    for (name, page) in html::pages(coverage, root, &format!("Coverage of {test}")) {
        files.push((format!("{prefix}html/{name}"), page.into_bytes()));
    }
    files
}

/// The `coverage-report` of `coverage` (of `package` and `target`, none
/// when merged), written to `dir`.
fn message(
    coverage: &Coverage,
    root: &Path,
    dir: &Path,
    (package, target): (Option<String>, Option<String>),
    (inputs, failing): (usize, usize),
) -> Message {
    let files = coverage.summary(root);
    Message::CoverageReport {
        package,
        target,
        inputs,
        failing,
        lines_instrumented: files.iter().map(|f| f.lines_instrumented).sum(),
        lines_covered: files.iter().map(|f| f.lines_covered).sum(),
        files,
        lcov: dir.join("lcov.info"),
        html: dir.join("html/index.html"),
    }
}

/// `covered` of `total` as a percentage with one decimal (`-` of none).
pub(crate) fn percent(covered: usize, total: usize) -> String {
    match total {
        0 => "-".to_string(),
        _ => format!("{:.1}%", 100.0 * covered as f64 / total as f64),
    }
}
