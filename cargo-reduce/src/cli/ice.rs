//! `cargo reduce ice [FILE.rs] [-- RUSTC ARGS…]`: the arguments, handed to
//! `crate::job::ice` as a request.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use super::options::{parse_seconds, ReduceOptions};
use super::render::Reporter;
use crate::error::{Error, Exit};
use crate::job::ice::rustc::signature::Match;
use crate::job::ice::{BuildSpec, IceRequest, Steps};
use crate::syntax::Strategy;

/// Arguments of `cargo reduce ice`.
#[derive(Debug, Clone, Args)]
pub(crate) struct IceArgs {
    /// One file to compile with rustc instead of the cargo build (its
    /// `mod`s and `include!`s are followed).
    #[arg(value_name = "FILE.rs")]
    pub(crate) file: Option<PathBuf>,
    /// Where to write the MCVE; the report goes beside it, ending in `.md`
    /// [default: NAME.ice.rs in $TMPDIR/cargo-reduce-ice/].
    #[arg(short, long, value_name = "PATH")]
    pub(crate) output: Option<PathBuf>,
    /// Path to Cargo.toml [default: the nearest one in the current
    /// directory or above].
    #[arg(long, value_name = "PATH", conflicts_with = "file")]
    pub(crate) manifest_path: Option<PathBuf>,
    /// The cargo command that crashes: build, check, test, bench, doc,
    /// clippy… (RUSTFLAGS and the other environment pass through).
    #[arg(
        long,
        value_name = "SUBCMD",
        default_value = "build",
        conflicts_with = "file"
    )]
    pub(crate) cargo_subcmd: String,
    /// Package to build (cargo's `-p`).
    #[arg(short, long, value_name = "SPEC", conflicts_with = "file")]
    pub(crate) package: Option<String>,
    /// Build with this profile.
    #[arg(long, value_name = "NAME", conflicts_with = "file")]
    pub(crate) profile: Option<String>,
    /// Build in release mode.
    #[arg(long, conflicts_with_all = ["file", "profile"])]
    pub(crate) release: bool,
    /// Features to activate (cargo's `--features`).
    #[arg(short = 'F', long, value_name = "FEATURES", conflicts_with = "file")]
    pub(crate) features: Vec<String>,
    /// Activate all features.
    #[arg(long, conflicts_with = "file")]
    pub(crate) all_features: bool,
    /// Do not activate the default features.
    #[arg(long, conflicts_with = "file")]
    pub(crate) no_default_features: bool,
    /// Build for this target triple.
    #[arg(long, value_name = "TRIPLE", conflicts_with = "file")]
    pub(crate) target: Option<String>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub(crate) targets: TargetSelection,
    /// How alike a candidate's ICE must be: location (the compiler's
    /// source location), message (and the message's words, names and
    /// numbers aside, and the first query), strict (the message verbatim
    /// and every query).
    #[arg(long = "match", value_name = "LEVEL", default_value = "message")]
    pub(crate) level: Match,
    /// Kill rustc after SECS seconds; a candidate that hangs is not kept
    /// [default: 10× the slowest of the 3 first runs, at least 5 s].
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, allow_negative_numbers = true)]
    pub(crate) timeout: Option<Duration>,
    /// rustc's address-space limit, in MiB (0: none).
    #[arg(long, value_name = "MIB", default_value_t = 4096)]
    pub(crate) memory_limit: u64,
    /// Compile each candidate twice with incremental compilation (for
    /// ICEs of the incremental cache).
    #[arg(long)]
    pub(crate) incremental: bool,
    /// Run cargo-bisect-rustc on the MCVE and add its answer to the report
    /// (it must be installed: checked before any work).
    #[arg(long)]
    pub(crate) bisect: bool,
    /// A rust-lang/rust checkout: the report lists the files of its
    /// tests/crashes/ that crash this compiler the same way (each compiled).
    #[arg(long, value_name = "DIR")]
    pub(crate) rust_src: Option<PathBuf>,
    /// Do not delete what rustc warns is unused before the syntax reducer.
    #[arg(long)]
    pub(crate) no_prune: bool,
    /// Leave the dependencies the MCVE still uses as `--extern`s of its
    /// command, instead of taking their source into it as modules.
    #[arg(long)]
    pub(crate) keep_dependencies: bool,
    /// rustfmt the MCVE when the formatted text still crashes rustc the
    /// same way (by default it is as small as the reducer left it).
    #[arg(long)]
    pub(crate) pretty: bool,
    /// The syntax reducer's strategy, as `cargo reduce file --strategy`
    /// takes it: `best` (the default) goes on to a 1-minimal MCVE;
    /// `coarse-hdd+hdd` stops sooner with a larger one.
    #[arg(long, value_name = "STRATEGY", default_value = "best")]
    pub(crate) strategy: Strategy,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub(crate) reduce: ReduceOptions,
    /// rustc's arguments for FILE.rs [default: --edition 2021 --crate-type lib].
    #[arg(last = true, value_name = "RUSTC ARGS", requires = "file")]
    pub(crate) rustc_args: Vec<String>,
}

impl IceArgs {
    /// The request these arguments make.
    pub(crate) fn request(&self) -> IceRequest {
        IceRequest {
            file: self.file.clone(),
            rustc_args: self.rustc_args.clone(),
            build: BuildSpec {
                manifest_path: self.manifest_path.clone(),
                subcommand: self.cargo_subcmd.clone(),
                cargo_args: self.cargo_args(),
            },
            output: self.output.clone(),
            level: self.level,
            timeout: self.timeout,
            memory: (self.memory_limit > 0).then_some(self.memory_limit << 20),
            incremental: self.incremental,
            bisect: self.bisect,
            rust_src: self.rust_src.clone(),
            steps: Steps {
                prune: !self.no_prune,
                take_in: !self.keep_dependencies,
                format: self.pretty,
                strategy: self.strategy,
            },
        }
    }

    /// What passes through to cargo.
    fn cargo_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        let mut pair = |flag: &str, value: &Option<String>| {
            if let Some(v) = value {
                args.extend([flag.to_string(), v.clone()]);
            }
        };
        pair("--package", &self.package);
        pair("--profile", &self.profile);
        pair("--target", &self.target);
        if !self.features.is_empty() {
            args.extend(["--features".to_string(), self.features.join(",")]);
        }
        args.extend(switches([
            (self.release, "--release"),
            (self.all_features, "--all-features"),
            (self.no_default_features, "--no-default-features"),
        ]));
        args.extend(self.targets.cargo_args());
        args
    }
}

/// Which of the package's targets the build compiles, as cargo's flags
/// say it: an ICE in an example or an integration test is met only when
/// the build compiles that target.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct TargetSelection {
    /// Build only this package's library.
    #[arg(long, conflicts_with = "file")]
    lib: bool,
    /// Build only the named binary (repeatable).
    #[arg(long, value_name = "NAME", conflicts_with = "file")]
    bin: Vec<String>,
    /// Build all binaries.
    #[arg(long, conflicts_with = "file")]
    bins: bool,
    /// Build only the named example (repeatable).
    #[arg(long, value_name = "NAME", conflicts_with = "file")]
    example: Vec<String>,
    /// Build all examples.
    #[arg(long, conflicts_with = "file")]
    examples: bool,
    /// Build only the named integration test (repeatable).
    #[arg(long, value_name = "NAME", conflicts_with = "file")]
    test: Vec<String>,
    /// Build all targets that have `test = true` set.
    #[arg(long, conflicts_with = "file")]
    tests: bool,
    /// Build only the named benchmark (repeatable).
    #[arg(long, value_name = "NAME", conflicts_with = "file")]
    bench: Vec<String>,
    /// Build all targets that have `bench = true` set.
    #[arg(long, conflicts_with = "file")]
    benches: bool,
    /// Build all targets (cargo's `--all-targets`).
    #[arg(long, conflicts_with = "file")]
    all_targets: bool,
}

impl TargetSelection {
    /// The flags, as cargo takes them.
    fn cargo_args(&self) -> Vec<String> {
        let named = [
            ("--bin", &self.bin),
            ("--example", &self.example),
            ("--test", &self.test),
            ("--bench", &self.bench),
        ];
        let mut args: Vec<String> = named
            .into_iter()
            .flat_map(|(flag, names)| {
                names
                    .iter()
                    .flat_map(move |n| [flag.to_string(), n.clone()])
            })
            .collect();
        args.extend(switches([
            (self.lib, "--lib"),
            (self.bins, "--bins"),
            (self.examples, "--examples"),
            (self.tests, "--tests"),
            (self.benches, "--benches"),
            (self.all_targets, "--all-targets"),
        ]));
        args
    }
}

/// The flags of `flags` that are on.
fn switches<const N: usize>(flags: [(bool, &str); N]) -> impl Iterator<Item = String> + '_ {
    flags
        .into_iter()
        .filter(|(on, _)| *on)
        .map(|(_, flag)| flag.to_string())
}

/// Runs `cargo reduce ice`.
pub(crate) fn run(
    args: &IceArgs,
    reporter: &Reporter,
    interrupt: Arc<AtomicBool>,
) -> Result<Exit, Error> {
    if args.output.as_deref() == Some(std::path::Path::new("-")) {
        return Err(Error::new(
            Exit::Usage,
            "`ice -o` takes the MCVE's file path (the report is written beside it, ending in .md), not `-`",
        ));
    }
    crate::job::ice::run(&args.request(), &args.reduce.settings(interrupt), reporter)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct T {
        #[command(flatten)]
        a: IceArgs,
    }

    #[test]
    fn build_options_pass_through_to_cargo() {
        let t = T::parse_from([
            "t",
            "-p",
            "core",
            "--release",
            "-F",
            "a",
            "-F",
            "b",
            "--target",
            "x86_64-unknown-linux-gnu",
            "--example",
            "demo",
            "--tests",
        ]);
        assert_eq!(
            t.a.cargo_args(),
            [
                "--package",
                "core",
                "--target",
                "x86_64-unknown-linux-gnu",
                "--features",
                "a,b",
                "--release",
                "--example",
                "demo",
                "--tests"
            ]
        );
        assert_eq!(t.a.request().memory, Some(4096 << 20));
    }

    #[test]
    fn rustc_arguments_need_a_file_and_build_options_refuse_one() {
        assert!(T::try_parse_from(["t", "--", "--edition", "2018"]).is_err());
        assert!(T::try_parse_from(["t", "x.rs", "--", "--edition", "2018"]).is_ok());
        assert!(T::try_parse_from(["t", "x.rs", "--features", "a"]).is_err());
        assert!(T::try_parse_from(["t", "--match", "loose"]).is_err());
    }
}
