//! Option groups shared by subcommands. They only check values; the
//! subcommand builds oracles, caches and limits from them.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, ValueEnum};

use std::path::PathBuf;

use crate::engine::{Algorithm, DdminOptions, Iteration};
use crate::fuzz::oracle::MatchLevel;
use crate::fuzz::project::{Engine, Selection, TargetSettings};
use crate::fuzz::sanitizer::Sanitizer;
use crate::job::Settings;

/// How messages are printed (cargo's `--message-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum MessageFormat {
    /// Status lines and a progress display on a terminal.
    #[default]
    Human,
    /// One JSON object per line on stdout, each with a `reason` field.
    Json,
}

/// When to color output (cargo's `--color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum ColorChoice {
    /// Color when stderr is a terminal.
    #[default]
    Auto,
    /// Always color.
    Always,
    /// Never color.
    Never,
}

/// Options every subcommand takes.
#[derive(Debug, Clone, Args)]
pub(crate) struct GlobalOptions {
    /// No progress display, status lines, summary or warnings: errors only
    /// on stderr (results still go to stdout, as cargo's commands' do).
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Say more: every reduction step and every artifact skipped; in
    /// `list`, each target's source, artifact and corpus folders.
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// Output format of messages.
    #[arg(long, value_enum, default_value_t, value_name = "FMT", global = true)]
    pub message_format: MessageFormat,
    /// Coloring: auto, always, never.
    #[arg(long, value_enum, default_value_t, value_name = "WHEN", global = true)]
    pub color: ColorChoice,
}

/// The minimizing algorithm on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum AlgorithmArg {
    /// Iterative ddmin with the variants the other flags select.
    Ddmin,
    /// Recursive delta debugging (Zeller 1999).
    Ddrmin,
}

/// Chunk order on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum IterationArg {
    /// First chunk first.
    Forward,
    /// Last chunk first.
    Backward,
}

/// Which fuzz crates and targets a subcommand works on.
#[derive(Debug, Clone, Args)]
pub(crate) struct SelectOptions {
    /// Path to Cargo.toml (of the project or of its fuzz crate) [default:
    /// the nearest one in the current directory or above].
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// Fuzz crate(s) to work on (repeatable).
    #[arg(short, long, value_name = "SPEC")]
    pub package: Vec<String>,
    /// Only this fuzz target (`--target` is a target triple, as in cargo).
    #[arg(long, value_name = "NAME")]
    pub fuzz_target: Option<String>,
    /// Only the targets of this engine (for a target that is both a
    /// libFuzzer and an afl.rs one, by its crate's features).
    #[arg(long, value_enum, value_name = "ENGINE")]
    pub engine: Option<EngineChoice>,
    /// Refused with a pointer to `--fuzz-target`: as in cargo, `--target`
    /// names a target triple, and fuzz targets build for the host.
    #[arg(long = "target", hide = true, value_name = "TRIPLE", value_parser = refuse_triple)]
    pub triple: Option<String>,
    /// An afl-fuzz output directory (its `-o`), besides those found in the
    /// project (repeatable): its crashes and hangs are reduced, its
    /// instances' `queue/` is the corpus of `corpus` and `coverage`.
    #[arg(long, value_name = "DIR")]
    pub afl_out: Vec<PathBuf>,
    /// Write every result (reductions, artifacts filed, corpora, reports)
    /// and the build under DIR, not in the fuzz crates' folders: nothing is
    /// written in the source tree.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

/// `--engine`'s values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum EngineChoice {
    /// cargo-fuzz's targets (libfuzzer-sys).
    Libfuzzer,
    /// afl.rs's targets.
    Afl,
}

impl EngineChoice {
    fn engine(self) -> Engine {
        match self {
            EngineChoice::Libfuzzer => Engine::LibFuzzer,
            EngineChoice::Afl => Engine::Afl,
        }
    }
}

/// `--target`'s parser in the modes that run fuzz targets.
fn refuse_triple(_: &str) -> Result<String, String> {
    Err(
        "fuzz targets are built for the host; `--target` takes a target triple, as in cargo \
        (a fuzz target is chosen with --fuzz-target NAME)"
            .into(),
    )
}

/// A fuzz target named as `cargo fuzz cmin TARGET` and `cargo fuzz
/// coverage TARGET` name it: refused with a pointer to `--fuzz-target`,
/// or to `--corpus` for a folder.
pub(super) fn refuse_target_argument(arg: &str) -> Result<String, String> {
    if arg.contains('/') || std::path::Path::new(arg).is_dir() {
        return Err(format!(
            "a corpus folder is given with --corpus DIR (`--corpus {arg}`), its fuzz target with --fuzz-target NAME when the folder's name does not say it"
        ));
    }
    Err(format!(
        "a fuzz target is chosen with --fuzz-target NAME (`--fuzz-target {arg}`); without it every target is taken"
    ))
}

impl SelectOptions {
    /// The crates and targets chosen.
    pub(crate) fn selection(&self) -> Selection {
        Selection {
            manifest_path: self.manifest_path.clone(),
            packages: self.package.clone(),
            fuzz_target: self.fuzz_target.clone(),
            engine: self.engine.map(EngineChoice::engine),
            afl_out: self.afl_out.clone(),
            out_dir: self.out_dir.clone(),
        }
    }
}

/// How a target runs and when two failures are one (shared by `cargo
/// reduce` and `ci`).
#[derive(Debug, Clone, Args)]
pub(crate) struct FailureOptions {
    /// How closely a failure must agree with another to be the same: a
    /// reduced input with its artifact, the inputs of one group [default:
    /// stack].
    #[arg(long = "match", value_enum, value_name = "LEVEL")]
    pub matching: Option<MatchLevel>,
    /// A test running longer fails as a timeout, one whose memory still
    /// grows after up to ten times as long [default: 1 s; for an AFL hang,
    /// its instance's exec_timeout].
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, allow_negative_numbers = true)]
    pub timeout: Option<Duration>,
    /// Memory limit per worker, in MB (libFuzzer's -rss_limit_mb; 0: none)
    /// [default: 2048; for an AFL++ input, its instance's -m, none without].
    #[arg(long, value_name = "MB", allow_negative_numbers = true)]
    pub rss_limit_mb: Option<u64>,
    /// Which build reproduces an artifact: `auto` tries an
    /// AddressSanitizer build (nightly) for one that does not fail
    /// uninstrumented; `address` uses only that build; `none` never
    /// [default: auto].
    #[arg(long, value_enum, value_name = "WHICH")]
    pub sanitizer: Option<Sanitizer>,
}

impl FailureOptions {
    /// These flags as a target's options (each wins over the target's
    /// `Cargo.toml` settings).
    pub(crate) fn target_options(&self) -> TargetSettings {
        TargetSettings {
            matching: self.matching,
            timeout: self.timeout,
            rss_limit_mb: self.rss_limit_mb,
            sanitizer: self.sanitizer,
            ..TargetSettings::default()
        }
    }
}

/// How to reduce: parallelism, budgets, and the ddmin variant.
#[derive(Debug, Clone, Args)]
pub(crate) struct ReduceOptions {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub jobs: JobsOption,
    /// Stop after N test runs in all (the best result so far is written, and
    /// reported as not 1-minimal).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), allow_negative_numbers = true)]
    pub max_tests: Option<u64>,
    /// Stop after SECS seconds (the best result so far is written).
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, allow_negative_numbers = true)]
    pub max_time: Option<Duration>,
    /// Also try keeping a single chunk ("reduce to subset").
    #[arg(long, overrides_with = "no_subsets")]
    pub subsets: bool,
    /// Only try removing chunks ("reduce to complement"), the default.
    #[arg(long, overrides_with = "subsets")]
    pub no_subsets: bool,
    /// With --subsets: try complements before subsets.
    #[arg(long)]
    pub complement_first: bool,
    /// With --subsets: run all subsets before any complement, instead of
    /// one combined parallel step.
    #[arg(long)]
    pub no_combine: bool,
    /// Run every candidate, even one already tested.
    #[arg(long)]
    pub no_cache: bool,
    /// Chunk order.
    #[arg(long, value_enum, default_value = "forward", value_name = "ORDER")]
    pub iteration: IterationArg,
    /// Repeat ddmin passes until one removes nothing (DD*).
    #[arg(long, overrides_with = "no_dd_star")]
    pub dd_star: bool,
    /// One ddmin pass per unit, the default.
    #[arg(long, overrides_with = "dd_star")]
    pub no_dd_star: bool,
    /// The minimizing algorithm: iterative ddmin, or recursive ddrmin
    /// (1-minimal only for a monotone test, or with --dd-star).
    #[arg(long, value_enum, default_value = "ddmin", value_name = "ALGO")]
    pub algorithm: AlgorithmArg,
}

impl ReduceOptions {
    /// The engine variant these options select.
    pub(crate) fn ddmin_options(&self) -> DdminOptions {
        let default = DdminOptions::default();
        DdminOptions {
            subsets: pick(self.subsets, self.no_subsets, default.subsets),
            complement_first: self.complement_first,
            combined: !self.no_combine,
            iteration: match self.iteration {
                IterationArg::Forward => Iteration::Forward,
                IterationArg::Backward => Iteration::Backward,
            },
            dd_star: pick(self.dd_star, self.no_dd_star, default.dd_star),
            start: default.start,
            algorithm: match self.algorithm {
                AlgorithmArg::Ddmin => Algorithm::Ddmin,
                AlgorithmArg::Ddrmin => Algorithm::Ddrmin,
            },
        }
    }

    /// The job settings these options select; Ctrl-C sets `interrupt`.
    pub(crate) fn settings(&self, interrupt: Arc<AtomicBool>) -> Settings {
        Settings {
            jobs: self.jobs.count(),
            max_tests: self.max_tests,
            max_time: self.max_time,
            ddmin: self.ddmin_options(),
            cache: !self.no_cache,
            interrupt,
        }
    }
}

fn pick(yes: bool, no: bool, default: bool) -> bool {
    if yes {
        true
    } else if no {
        false
    } else {
        default
    }
}

/// The longest duration an option takes: a year. Longer ones overflow the
/// clock's arithmetic and mean "no limit", which is the default anyway.
const MAX_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// Parses a positive number of seconds (fractions allowed), at most a year.
pub(crate) fn parse_seconds(s: &str) -> Result<Duration, String> {
    match s.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs > 0.0 && secs <= MAX_SECONDS => {
            Ok(Duration::from_secs_f64(secs))
        }
        Ok(secs) if secs > MAX_SECONDS => Err(format!(
            "`{s}` seconds is more than a year ({MAX_SECONDS} s); leave the option out for no limit"
        )),
        _ => Err(format!("`{s}` is not a positive number of seconds")),
    }
}

/// `-j`, one declaration for every command that runs tests in parallel.
#[derive(Debug, Clone, Copy, Args)]
pub(crate) struct JobsOption {
    /// Tests to run in parallel; a negative N, the available cores less
    /// that many (as cargo's -j) [default: the available cores].
    #[arg(short, long, value_name = "N", value_parser = parse_jobs, allow_negative_numbers = true)]
    jobs: Option<u32>,
}

impl JobsOption {
    /// Parallel tests: `-j`, or the available cores.
    pub(crate) fn count(self) -> usize {
        self.jobs.map_or_else(available_cores, |j| j as usize)
    }
}

/// The cores this process may use (at least one).
pub(super) fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// `-j`'s count as cargo reads it: a number of jobs, or a negative one
/// counted back from the available cores (`-j -1`: all but one), at least
/// one.
fn parse_jobs(s: &str) -> Result<u32, String> {
    jobs_of(s, available_cores())
}

/// `-j s` on a machine of `cores`.
fn jobs_of(s: &str, cores: usize) -> Result<u32, String> {
    let n: i64 = s
        .parse()
        .map_err(|_| format!("`{s}` is not a number of jobs"))?;
    match n {
        0 => Err("jobs may not be 0".to_string()),
        1.. => u32::try_from(n).map_err(|_| format!("`{s}` jobs are too many")),
        _ => Ok(u32::try_from((cores as i64 + n).max(1)).unwrap_or(1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// `-j` reads as cargo's: a negative count is the cores less that
    /// many, never fewer than one job.
    #[test]
    fn a_negative_job_count_is_counted_back_from_the_cores() {
        assert_eq!(jobs_of("3", 8), Ok(3));
        assert_eq!(jobs_of("-1", 8), Ok(7));
        assert_eq!(jobs_of("-8", 8), Ok(1));
        assert_eq!(jobs_of("-20", 8), Ok(1));
        assert!(jobs_of("0", 8).unwrap_err().contains("may not be 0"));
        assert!(jobs_of("two", 8).is_err());
        assert!(jobs_of("5000000000", 8).is_err());
    }

    #[derive(Parser)]
    struct T {
        #[command(flatten)]
        r: ReduceOptions,
    }

    fn parse(args: &[&str]) -> DdminOptions {
        T::parse_from([&["t"], args].concat()).r.ddmin_options()
    }

    #[test]
    fn flags_select_variants_and_the_last_of_a_pair_wins() {
        assert_eq!(parse(&[]), DdminOptions::default());
        assert!(parse(&["--subsets"]).subsets);
        assert!(!parse(&["--subsets", "--no-subsets"]).subsets);
        assert!(parse(&["--no-dd-star", "--dd-star"]).dd_star);
        assert_eq!(
            parse(&["--iteration", "backward"]).iteration,
            Iteration::Backward
        );
        assert!(!parse(&["--no-combine"]).combined);
        assert_eq!(
            parse(&["--algorithm", "ddrmin"]).algorithm,
            Algorithm::Ddrmin
        );
        assert_eq!(parse(&[]).algorithm, Algorithm::Ddmin);
    }

    #[test]
    fn seconds_must_be_positive() {
        assert_eq!(parse_seconds("1.5"), Ok(Duration::from_millis(1500)));
        assert!(parse_seconds("0").is_err());
        assert!(parse_seconds("abc").is_err());
        assert!(parse_seconds("1e19").is_err());
        assert!(parse_seconds("1e300").is_err());
        assert!(parse_seconds("inf").is_err());
        assert!(parse_seconds("31536000").is_ok());
    }

    /// Each flag name means one thing in every mode: `--target` a target
    /// triple (only `ice` builds for one), `--fuzz-target` a fuzz target,
    /// `--pretty` a readable result; `ci --corpus` takes an optional root.
    #[test]
    fn each_flag_has_one_meaning() {
        use crate::cli::{Cli, CliCommand};
        use crate::job::ci::CorpusRoot;
        let parse = |args: &[&str]| Cli::try_parse_from([&["cargo-reduce"], args].concat());
        assert!(parse(&["--fuzz-target", "parse"]).is_ok());
        for mode in [&[][..], &["ci"], &["list"], &["ci", "replay", "x"]] {
            let error = parse(&[mode, &["--target", "parse"]].concat()).unwrap_err();
            assert!(error.to_string().contains("--fuzz-target NAME"), "{error}");
        }
        assert!(parse(&["ice", "--target", "x86_64-unknown-linux-gnu"]).is_ok());
        // `cargo fuzz cmin TARGET`'s way is pointed to --fuzz-target.
        for mode in ["corpus", "coverage"] {
            let error = parse(&[mode, "parse"]).unwrap_err();
            assert!(
                error.to_string().contains("`--fuzz-target parse`"),
                "{error}"
            );
            // A folder, `--corpus`.
            let error = parse(&[mode, "fuzz/corpus/parse"]).unwrap_err();
            assert!(
                error.to_string().contains("`--corpus fuzz/corpus/parse`"),
                "{error}"
            );
        }
        assert!(parse(&["corpus", "merge", "a.json"]).is_ok());
        assert!(parse(&["ice", "--pretty"]).is_ok());
        assert!(parse(&["file", "--pretty", "a.rs", "--", "true"]).is_ok());
        assert!(parse(&["file", "--format", "a.rs", "--", "true"]).is_err());
        let corpus = |args: &[&str]| match parse(&[&["ci"], args].concat()).unwrap().command {
            Some(CliCommand::Ci(ci)) => ci.request().corpus,
            _ => unreachable!(),
        };
        assert_eq!(corpus(&[]), None);
        assert_eq!(corpus(&["--corpus"]), Some(CorpusRoot::InFuzzDir));
        assert_eq!(
            corpus(&["--corpus", "fuzz/corpus"]),
            Some(CorpusRoot::At("fuzz/corpus".into()))
        );
    }

    /// `ci --help` says what the shared options do in `ci`, not in `cargo
    /// reduce`.
    #[test]
    fn ci_help_describes_ci() {
        use clap::CommandFactory;
        let mut cli = crate::cli::Cli::command();
        let ci = cli.find_subcommand_mut("ci").unwrap();
        let help = ci.render_long_help().to_string();
        for fuzz_mode_only in [
            "a reduced input with its artifact",
            "reproduces an artifact",
        ] {
            assert!(!help.contains(fuzz_mode_only), "{fuzz_mode_only}: {help}");
        }
    }
}
