//! `cargo reduce corpus`: the arguments, handed to [`crate::job::corpus`]
//! as a request.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Subcommand};

use super::options::{
    available_cores, parse_seconds, refuse_target_argument, JobsOption, SelectOptions,
};
use super::render::Reporter;
use crate::error::{Error, Exit};
use crate::fuzz::sanitizer::Sanitizer;
use crate::job::ci::inputs::Shard;
use crate::job::corpus::{CorpusRequest, MergeRequest};
use crate::job::Settings;

/// Arguments of `cargo reduce corpus`.
#[derive(Debug, Clone, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct CorpusArgs {
    #[command(subcommand)]
    #[allow(missing_docs)]
    pub command: Option<CorpusCommand>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub select: SelectOptions,
    /// `cargo fuzz cmin TARGET`'s target: refused with a pointer to
    /// --fuzz-target.
    #[arg(hide = true, value_name = "TARGET", value_parser = refuse_target_argument)]
    pub target_argument: Option<String>,
    /// A corpus directory to minimize instead of `fuzz/corpus/<target>/`
    /// (repeatable: their inputs are minimized together; one target only).
    #[arg(long, value_name = "DIR")]
    pub corpus: Vec<PathBuf>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub destination: Destination,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub jobs: JobsOption,
    /// An input running longer fails as a timeout, reported and kept as an
    /// artifact [default: 10 s; libFuzzer's merge waits 1200 s].
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, allow_negative_numbers = true)]
    pub timeout: Option<Duration>,
    /// Memory limit per worker, in MB (libFuzzer's -rss_limit_mb) [default: 2048].
    #[arg(long, value_name = "MB", allow_negative_numbers = true)]
    pub rss_limit_mb: Option<u64>,
    /// Reduce each kept input while it keeps every feature it is kept for
    /// (bytes by ddmin; a typed target's values as values), to a set a
    /// second run leaves as it is.
    #[arg(long)]
    pub shrink: bool,
    /// With --shrink: stop shrinking SECS seconds after the start (the
    /// replay always finishes); the set is written as shrunk by then,
    /// every feature kept.
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, requires = "shrink", allow_negative_numbers = true)]
    pub max_time: Option<Duration>,
    /// Replay only this machine's share of each corpus: K of N (1-based),
    /// split by target and input content; needs --features-out.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Record each input's features in FILE (JSON) and write no corpus;
    /// `cargo reduce corpus merge` computes the set from the shards' files.
    #[arg(long, value_name = "FILE")]
    pub features_out: Option<PathBuf>,
    /// Which build counts the features: `none`, or `address` for
    /// AddressSanitizer's, as `cargo fuzz build` builds by default
    /// (nightly): its checks add edges that the ASan binary's libFuzzer
    /// counts [default: none].
    #[arg(
        long,
        value_name = "WHICH",
        value_parser = PossibleValuesParser::new(["none", "address"])
            .map(|s| <Sanitizer as clap::ValueEnum>::from_str(&s, false).expect("a possible value")),
    )]
    pub sanitizer: Option<Sanitizer>,
}

/// `cargo reduce corpus merge`.
#[derive(Debug, Clone, Subcommand)]
pub(crate) enum CorpusCommand {
    /// Compute the minimized set from every shard's --features-out file
    /// and write it, as one machine would.
    Merge(MergeArgs),
}

/// Arguments of `cargo reduce corpus merge`.
#[derive(Debug, Clone, Args)]
pub(crate) struct MergeArgs {
    /// The shards' --features-out files (every shard's, once).
    #[arg(value_name = "FILE", required = true)]
    pub records: Vec<PathBuf>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub destination: Destination,
}

/// Where a minimized set goes: `corpus`'s and `corpus merge`'s alike.
#[derive(Debug, Clone, Args)]
pub(crate) struct Destination {
    /// Where the minimized set goes (a new or empty directory, or an
    /// earlier output) [default: `fuzz/corpus-min/<target>/`].
    #[arg(
        short,
        long,
        alias = "out",
        value_name = "DIR",
        conflicts_with = "in_place"
    )]
    pub output: Option<PathBuf>,
    /// Replace the corpus directory (the first --corpus, or the first the
    /// shards read) with the minimized set, once that is written in full.
    #[arg(long)]
    pub in_place: bool,
}

impl CorpusArgs {
    fn request(&self) -> CorpusRequest {
        CorpusRequest {
            selection: self.select.selection(),
            corpora: self.corpus.clone(),
            out: self.destination.output.clone(),
            in_place: self.destination.in_place,
            timeout: self.timeout,
            rss_limit_mb: self.rss_limit_mb,
            shrink: self.shrink,
            shard: self.shard,
            features_out: self.features_out.clone(),
            sanitizer: self.sanitizer,
        }
    }

    fn settings(&self, interrupt: Arc<AtomicBool>) -> Settings {
        Settings {
            jobs: self.jobs.count(),
            max_tests: None,
            max_time: self.max_time,
            ddmin: Default::default(),
            cache: true,
            interrupt,
        }
    }
}

/// Runs `cargo reduce corpus`.
pub(crate) fn run(
    args: &CorpusArgs,
    reporter: &Reporter,
    interrupt: Arc<AtomicBool>,
) -> Result<Exit, Error> {
    match &args.command {
        Some(CorpusCommand::Merge(merge)) => {
            let request = MergeRequest {
                records: merge.records.clone(),
                out: merge.destination.output.clone(),
                in_place: merge.destination.in_place,
                threads: available_cores(),
            };
            crate::job::corpus::merge(&request, reporter)
        }
        None => crate::job::corpus::run(&args.request(), &args.settings(interrupt), reporter),
    }
}
