//! `cargo reduce coverage`: the arguments, handed to [`crate::job::coverage`]
//! as a request.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use super::options::{parse_seconds, refuse_target_argument, JobsOption, SelectOptions};
use super::render::Reporter;
use crate::error::{Error, Exit};
use crate::job::coverage::{CorpusChoice, CoverageOptions, CoverageRequest};

/// Arguments of `cargo reduce coverage`.
#[derive(Debug, Clone, Args)]
pub(crate) struct CoverageArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub select: SelectOptions,
    /// `cargo fuzz coverage TARGET`'s target: refused with a pointer to
    /// --fuzz-target.
    #[arg(hide = true, value_name = "TARGET", value_parser = refuse_target_argument)]
    pub target_argument: Option<String>,
    /// A corpus directory to measure instead of `fuzz/corpus/<target>/`
    /// and the target's AFL++ `queue/`s (repeatable; one target only).
    #[arg(long, value_name = "DIR")]
    pub corpus: Vec<PathBuf>,
    /// Where the reports go (a new or empty directory, or an earlier
    /// report) [default: `fuzz/coverage-report/`; `coverage/` is `cargo fuzz
    /// coverage`'s].
    #[arg(short, long, alias = "out", value_name = "DIR")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub report: ReportArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub jobs: JobsOption,
}

/// How a coverage report is made (`coverage`, `ci --coverage`).
#[derive(Debug, Clone, Args)]
pub(crate) struct ReportArgs {
    /// Report the dependencies' files too (by default only the workspace's
    /// own code: never the standard library or generated code).
    #[arg(long)]
    pub include_deps: bool,
    /// An input running longer fails as a timeout and counts no coverage
    /// [default: 10 s].
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, allow_negative_numbers = true)]
    pub timeout: Option<Duration>,
    /// Memory limit per worker, in MB (libFuzzer's -rss_limit_mb) [default: 2048].
    #[arg(long, value_name = "MB", allow_negative_numbers = true)]
    pub rss_limit_mb: Option<u64>,
}

impl ReportArgs {
    /// The job's options.
    pub(crate) fn options(&self) -> CoverageOptions {
        CoverageOptions {
            include_deps: self.include_deps,
            timeout: self.timeout,
            rss_limit_mb: self.rss_limit_mb,
        }
    }
}

impl CoverageArgs {
    fn request(&self) -> CoverageRequest {
        CoverageRequest {
            selection: self.select.selection(),
            corpus: match self.corpus.is_empty() {
                true => CorpusChoice::Own,
                false => CorpusChoice::Dirs(self.corpus.clone()),
            },
            ledger: false,
            out: self.output.clone(),
            options: self.report.options(),
        }
    }
}

/// Runs `cargo reduce coverage`.
pub(crate) fn run(
    args: &CoverageArgs,
    reporter: &Reporter,
    interrupt: Arc<AtomicBool>,
) -> Result<Exit, Error> {
    let settings = super::ci::settings(args.jobs.count(), interrupt);
    crate::job::coverage::run(&args.request(), &settings, reporter)
}
