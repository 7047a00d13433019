//! `cargo reduce ci` and `cargo reduce ci merge`: the arguments, handed to
//! [`crate::job::ci`] as a request, and the report in the formats CI reads
//! (a table, JSON lines, GitHub annotations and job summary, SARIF, JUnit,
//! and the JSON report shards are merged from).

mod github;
mod junit;
mod output;
mod sarif;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Subcommand, ValueEnum};

use super::options::{FailureOptions, JobsOption, SelectOptions};
use super::render::Reporter;
use crate::engine::DdminOptions;
use crate::error::{Error, Exit};
use crate::fuzz::project::Selection;
use crate::job::ci::emit::Expect;
use crate::job::ci::inputs::Shard;
use crate::job::ci::{self, update, Cache, CiRequest};
use crate::job::coverage::{CorpusChoice, CoverageOptions, CoverageRequest};
use crate::job::fuzz_mode::FuzzRequest;
use crate::job::{Events, Message, Settings};

/// Arguments of `cargo reduce ci`. The option groups shared with `cargo
/// reduce` get help that says what they do here.
#[derive(Debug, Clone, Args)]
#[command(
    args_conflicts_with_subcommands = true,
    mut_arg("matching", |a| a.help(CI_MATCH_HELP)),
    mut_arg("sanitizer", |a| a.help(CI_SANITIZER_HELP))
)]
pub(crate) struct CiArgs {
    #[command(subcommand)]
    #[allow(missing_docs)]
    pub command: Option<CiCommand>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub select: SelectOptions,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub failure: FailureOptions,
    /// Time to minimize new failures in, in all (seconds, or 90s, 5m, 1h) [default:
    /// 5m]; what it cuts short is filed as not minimal and finished later.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub budget: Option<Duration>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub ledger: LedgerOptions,
    /// Replay each target's corpus too: `ROOT/<target>/`, nested folders
    /// included [default ROOT: `<fuzz dir>/corpus`].
    #[arg(long, value_name = "ROOT")]
    pub corpus: Option<Option<PathBuf>>,
    /// Replay only this machine's share: K of N (1-based), split by target
    /// and input content.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Where replay outcomes and minimizations are remembered (default:
    /// cargo-reduce/ci-cache in the target directory).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Remember nothing between runs.
    #[arg(long, conflicts_with = "cache_dir")]
    pub no_cache: bool,
    /// Write (or keep up to date) a Rust test file with one test per
    /// ledger entry, for `cargo test` (e.g. tests/fuzz_regressions.rs).
    #[arg(long, value_name = "PATH")]
    pub emit_tests: Option<PathBuf>,
    /// What the emitted tests expect of their inputs: that they still fail
    /// as recorded, or that they pass (the bugs fixed).
    #[arg(
        long,
        value_enum,
        default_value_t,
        value_name = "OUTCOME",
        requires = "emit_tests"
    )]
    pub emit_expect: Expect,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub jobs: JobsOption,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub output: ReportOptions,
    /// Then write a line-coverage report (lcov, HTML, as `cargo reduce
    /// coverage`) of the regression ledger's inputs and, with --corpus,
    /// the corpus [default DIR: `<fuzz dir>/coverage-report`].
    #[arg(long, value_name = "DIR")]
    pub coverage: Option<Option<PathBuf>>,
    /// With --coverage: report the dependencies' files too.
    #[arg(long, requires = "coverage")]
    pub include_deps: bool,
}

/// `--match` in `ci`.
const CI_MATCH_HELP: &str = "How closely a failure must agree with another to be the same: inputs \
    of one failure, a failure with its ledger entry, a minimization with its input [default: stack]";

/// `--sanitizer` in `ci`.
const CI_SANITIZER_HELP: &str = "Which build replays a target's inputs: `auto` moves a target \
    whose crash inputs pass uninstrumented to an AddressSanitizer build (nightly); `address` \
    uses only that build; `none` never [default: auto]";

/// `cargo reduce ci`'s subcommands.
#[derive(Debug, Clone, Subcommand)]
pub(crate) enum CiCommand {
    /// Join the JSON reports of shards (`ci --shard K/N --report PATH`)
    /// into one summary, SARIF and JUnit file, as one run would give.
    Merge(MergeArgs),
    /// Run inputs once each through a fuzz target (what the tests of
    /// --emit-tests call); exit 11 if one fails.
    Replay(ReplayArgs),
}

/// Arguments of `cargo reduce ci replay`.
#[derive(Debug, Clone, Args)]
#[command(mut_arg("matching", |a| a.help(CI_MATCH_HELP)))]
pub(crate) struct ReplayArgs {
    /// The inputs, of one target: the one whose folder holds them
    /// (`regressions/<target>/`, `artifacts/<target>/`, `corpus/<target>/`),
    /// else --fuzz-target's.
    #[arg(value_name = "INPUT", required = true)]
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub select: SelectOptions,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub failure: FailureOptions,
}

/// Arguments of `cargo reduce ci merge`.
#[derive(Debug, Clone, Args)]
pub(crate) struct MergeArgs {
    /// The shards' reports.
    #[arg(value_name = "REPORT", required = true)]
    pub reports: Vec<PathBuf>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub ledger: LedgerOptions,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub select: SelectOptions,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub output: ReportOptions,
}

/// What `ci` and `ci merge` write into the regression ledger.
#[derive(Debug, Clone, Args)]
pub(crate) struct LedgerOptions {
    /// File new failures in the regression ledger (`<fuzz
    /// dir>/regressions/<target>/`): `ci` from its minimizations, `merge`
    /// from the reports' minimized inputs.
    #[arg(long)]
    pub update: bool,
    /// Move ledger entries that no longer fail into their folder's `fixed/`.
    #[arg(long)]
    pub prune_fixed: bool,
}

/// What the report is rendered as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub(crate) enum CiFormat {
    /// A table on stdout.
    #[default]
    Human,
    /// Workflow-command annotations on stdout and a Markdown job summary
    /// in `$GITHUB_STEP_SUMMARY`.
    Github,
}

/// Which failures fail the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub(crate) enum FailOn {
    /// New failures only (exit 11).
    #[default]
    New,
    /// Known failures too (exit 12 when all are known).
    Known,
}

/// Where and how the report goes.
#[derive(Debug, Clone, Args)]
pub(crate) struct ReportOptions {
    /// How to print the result (with --message-format json: JSON lines).
    #[arg(long, value_enum, default_value_t, value_name = "FORMAT")]
    pub format: CiFormat,
    /// Write the whole report as JSON (what `ci merge` reads).
    #[arg(long, value_name = "PATH")]
    pub report: Option<PathBuf>,
    /// Write a SARIF 2.1.0 log: one result per distinct failure.
    #[arg(long, value_name = "PATH")]
    pub sarif: Option<PathBuf>,
    /// Write a JUnit XML report: one test case per input.
    #[arg(long, value_name = "PATH")]
    pub junit: Option<PathBuf>,
    /// Which failures fail the run.
    #[arg(long, value_enum, default_value_t, value_name = "WHICH")]
    pub fail_on: FailOn,
}

/// `90`, `90s`, `5m`, `1h`, `1.5m`: a duration.
pub(crate) fn parse_duration(s: &str) -> Result<Duration, String> {
    let (number, unit) = match s.find(|c: char| c.is_ascii_alphabetic()) {
        Some(at) => s.split_at(at),
        None => (s, "s"),
    };
    let scale = match unit {
        "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        _ => {
            return Err(format!(
                "`{s}`: give seconds, or a number with s, m or h (90s, 5m)"
            ))
        }
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("`{s}`: give seconds, or a number with s, m or h (90s, 5m)"))?;
    if !value.is_finite() || value < 0.0 {
        return Err(format!("`{s}` is not a duration"));
    }
    Ok(Duration::from_secs_f64(value * scale))
}

impl CiArgs {
    /// The request these arguments make.
    pub(crate) fn request(&self) -> CiRequest {
        let fuzz = fuzz_request(&self.select, &self.failure);
        CiRequest {
            fuzz,
            budget: self.budget.unwrap_or(ci::DEFAULT_BUDGET),
            update: self.ledger.update,
            prune_fixed: self.ledger.prune_fixed,
            corpus: self.corpus.clone().map(|root| match root {
                Some(root) => ci::CorpusRoot::At(root),
                None => ci::CorpusRoot::InFuzzDir,
            }),
            shard: self.shard,
            emit_tests: self.emit_tests.clone().map(|path| (path, self.emit_expect)),
            cache: match (self.no_cache, &self.cache_dir) {
                (true, _) => Cache::Off,
                (false, Some(dir)) => Cache::At(dir.clone()),
                (false, None) => Cache::InTargetDir,
            },
        }
    }

    fn settings(&self, interrupt: Arc<AtomicBool>) -> Settings {
        settings(self.jobs.count(), interrupt)
    }

    /// `--coverage`: a report of the ledger's inputs (after `--update`)
    /// and the corpus `--corpus` replays.
    fn coverage_request(&self) -> Option<CoverageRequest> {
        let out = self.coverage.clone()?;
        Some(CoverageRequest {
            selection: self.select.selection(),
            corpus: match self.request().corpus {
                Some(root) => CorpusChoice::Root(root),
                None => CorpusChoice::None,
            },
            ledger: true,
            out,
            options: CoverageOptions {
                include_deps: self.include_deps,
                timeout: self.failure.timeout,
                rss_limit_mb: self.failure.rss_limit_mb,
            },
        })
    }
}

/// The reduction settings of `ci` (and of `coverage`): `jobs` in
/// parallel, no limits but the budget.
pub(super) fn settings(jobs: usize, interrupt: Arc<AtomicBool>) -> Settings {
    Settings {
        jobs,
        max_tests: None,
        max_time: None,
        ddmin: DdminOptions::default(),
        cache: true,
        interrupt,
    }
}

/// The options `ci` shares with `cargo reduce`, as its request.
fn fuzz_request(select: &SelectOptions, failure: &FailureOptions) -> FuzzRequest {
    FuzzRequest {
        selection: select.selection(),
        options: failure.target_options(),
        ..FuzzRequest::default()
    }
}

/// Runs `cargo reduce ci` (or `ci merge`).
pub(crate) fn run(
    args: &CiArgs,
    reporter: &Reporter,
    interrupt: Arc<AtomicBool>,
) -> Result<Exit, Error> {
    match &args.command {
        Some(CiCommand::Merge(merge)) => return run_merge(merge, reporter),
        Some(CiCommand::Replay(replay)) => return run_replay(replay, reporter, interrupt),
        None => {}
    }
    // Every path written is checked before anything runs.
    let files = output::Files::check(&args.output)?;
    if let Some(tests) = &args.emit_tests {
        // Its folder (a crate's tests/) is made when missing.
        ci::check_emit_tests(tests)?;
    }
    let request = args.request();
    let report = ci::run(&request, &args.settings(interrupt.clone()), reporter)?;
    let exit = output::finish(&report, &args.output, &files, reporter)?;
    if let Some(request) = args.coverage_request() {
        crate::job::coverage::run(&request, &args.settings(interrupt.clone()), reporter)?;
    }
    // Ctrl-C cut the minimizations short: what they reached is reported
    // (and filed with --update) as not minimal.
    let exit = match interrupt.load(std::sync::atomic::Ordering::SeqCst) {
        true => Exit::Interrupted,
        false => exit,
    };
    output::finished(&report, exit, reporter);
    Ok(exit)
}

fn run_replay(
    args: &ReplayArgs,
    reporter: &Reporter,
    interrupt: Arc<AtomicBool>,
) -> Result<Exit, Error> {
    let request = fuzz_request(&args.select, &args.failure);
    let settings = settings(1, interrupt);
    let replayed = ci::replay::replay_files(&request, &args.inputs, &settings, reporter)?;
    if !reporter.is_json() {
        for input in &replayed {
            match &input.failure {
                None => println!("passed  {}", input.path.display()),
                Some((id, signature)) => {
                    println!("FAILED  {}  [{id}] {signature}", input.path.display())
                }
            }
        }
    }
    Ok(match replayed.iter().any(|r| r.failure.is_some()) {
        true => Exit::NewFailures,
        false => Exit::Success,
    })
}

fn run_merge(args: &MergeArgs, reporter: &Reporter) -> Result<Exit, Error> {
    let files = output::Files::check(&args.output)?;
    let mut reports = Vec::new();
    for path in &args.reports {
        let text = std::fs::read(path).map_err(|e| {
            Error::caused(
                Exit::BadInput,
                format!("cannot read report `{}`", path.display()),
                e,
            )
        })?;
        let report = ci::report::read(&text).map_err(|e| read_error(path, e))?;
        reports.push(report);
    }
    let mut report = ci::report::merge(reports)
        .map_err(|e| Error::caused(Exit::BadInput, "cannot merge the reports", e))?;
    if args.ledger.update {
        let projects = crate::job::fuzz_mode::discover(&Selection {
            fuzz_target: None,
            ..args.select.selection()
        })?;
        let dir_of = |package: &str, target: &str| {
            // A package with targets of both engines is two projects.
            projects
                .iter()
                .filter(|p| p.package == package)
                .find(|p| p.targets.iter().any(|t| t.name == target))
                .map(|p| ci::ledger::ledger_dir(&p.fuzz_dir, target))
        };
        update::file_new(&mut report, &dir_of)?;
    }
    if args.ledger.prune_fixed {
        update::prune_fixed(&mut report)?;
    }
    for failure in &report.failures {
        reporter.emit(&Message::CiFailure(failure.clone()));
    }
    for fixed in &report.fixed {
        reporter.emit(&Message::CiFixed(fixed.clone()));
    }
    let exit = output::finish(&report, &args.output, &files, reporter)?;
    output::finished(&report, exit, reporter);
    Ok(exit)
}

/// The one-line error for a report `ci merge` cannot read: another
/// version has its own exit status, so a pipeline that mixes
/// cargo-reduce versions is told apart from a wrong file.
fn read_error(path: &std::path::Path, error: ci::report::ReadError) -> Error {
    match error {
        ci::report::ReadError::Version(_) => Error::caused_with_hint(
            Exit::UnsupportedReport,
            format!("cannot merge `{}`", path.display()),
            error,
            "make every shard's report with the same cargo-reduce as `ci merge`",
        ),
        ci::report::ReadError::Json(e) => Error::caused_with_hint(
            Exit::BadInput,
            format!("`{}` is not a cargo-reduce ci report", path.display()),
            e,
            "give the files `ci --report PATH` wrote",
        ),
    }
}

/// A new panic's record, as the reports' tests render it.
#[cfg(test)]
pub(super) fn sample_failure(id: usize) -> crate::job::ci::report::FailureRecord {
    use crate::job::ci::report::{FailureRecord, Status};
    FailureRecord {
        package: "fuzz".into(),
        target: "t".into(),
        id: format!("{id:08x}"),
        matching: "stack".into(),
        status: Status::New,
        signature: format!("panic at a.rs:1:2: bad, very | bad {}", "x".repeat(400)),
        kind: "panic".into(),
        severity: crate::fuzz::pool::Severity::Abort,
        location: None,
        call_path: Vec::new(),
        message: None,
        file: Some("fuzz/a.rs".into()),
        line: Some(3),
        column: None,
        source: "fuzz/fuzz_targets/t.rs".into(),
        inputs: 1,
        input: "fuzz/artifacts/t/crash-1".into(),
        reduced: None,
        ledger: None,
        replaced: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_like_ci_configs() {
        assert_eq!(parse_duration("90"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_duration("1.5h"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        assert!(parse_duration("5 minutes").is_err());
        assert!(parse_duration("-1s").is_err());
    }

    /// `ci --coverage` reports the ledger's inputs, and the corpus only
    /// when `--corpus` replays it; `--include-deps` needs `--coverage`.
    #[test]
    fn coverage_measures_the_ledger_and_the_corpus_ci_replays() {
        use crate::cli::{Cli, CliCommand};
        use crate::job::ci::CorpusRoot;
        use clap::Parser;
        let parse = |args: &[&str]| Cli::try_parse_from([&["cargo-reduce", "ci"], args].concat());
        let request = |args: &[&str]| match parse(args).unwrap().command {
            Some(CliCommand::Ci(ci)) => ci.coverage_request(),
            _ => unreachable!(),
        };
        assert!(request(&[]).is_none());
        let plain = request(&["--coverage"]).unwrap();
        assert!(plain.ledger && plain.out.is_none() && plain.corpus == CorpusChoice::None);
        let full = request(&["--corpus", "--coverage", "cov", "--include-deps"]).unwrap();
        assert_eq!(full.corpus, CorpusChoice::Root(CorpusRoot::InFuzzDir));
        assert_eq!(full.out, Some("cov".into()));
        assert!(full.options.include_deps);
        assert!(parse(&["--include-deps"]).is_err());
    }
}
