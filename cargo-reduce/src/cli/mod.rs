//! The command-line interface: argument parsing and one module per
//! subcommand. `main.rs` only calls [`main`].

pub(crate) mod ci;
pub(crate) mod corpus;
pub(crate) mod coverage;
pub(crate) mod file;
pub(crate) mod fuzz;
pub(crate) mod ice;
pub(crate) mod list;
pub(crate) mod options;
pub(crate) mod render;
pub(crate) mod run;
mod table;

use std::ffi::OsString;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};

pub(crate) use crate::error::{Error, Exit};
use options::GlobalOptions;
use render::Reporter;

/// cargo-reduce: minimize failing inputs with delta debugging.
///
/// Without a subcommand, reduces the crash artifacts of the cargo-fuzz
/// crates of the current project (all that have no `minimized-from-*` copy
/// yet, or the ARTIFACTs named), in-process.
#[derive(Debug, Parser)]
#[command(name = "cargo-reduce", bin_name = "cargo reduce", version, about, long_about = None, args_conflicts_with_subcommands = true, after_help = Exit::help())]
pub(crate) struct Cli {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub global: GlobalOptions,
    #[command(subcommand)]
    #[allow(missing_docs)]
    pub command: Option<CliCommand>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub fuzz: fuzz::FuzzArgs,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum CliCommand {
    /// List fuzz crates, targets and artifacts (and whether they are reduced).
    List(list::ListArgs),
    /// Reduce any file with an external test command (exit 0 = interesting).
    #[command(
        after_help = "Example:\n  cargo reduce file crash.js -- sh -c 'node \"$1\" 2>&1 | grep -q TypeError' sh {}"
    )]
    File(file::FileArgs),
    /// Replay every stored failing input in CI: new, known and fixed
    /// failures, new ones minimized and filed in the regression ledger.
    #[command(after_help = ci_help())]
    Ci(Box<ci::CiArgs>),
    /// Reduce a crate that crashes rustc (an internal compiler error) to an
    /// MCVE and an issue-ready report; no test script needed.
    #[command(
        after_help = "Examples:\n  cargo reduce ice\n  cargo reduce ice --cargo-subcmd check --features nightly\n  cargo reduce ice crash.rs -- --edition 2021 --crate-type lib -Copt-level=3"
    )]
    Ice(Box<ice::IceArgs>),
    /// Minimize each fuzz target's corpus: the fewest inputs (and bytes)
    /// that keep every coverage feature, as libFuzzer counts them;
    /// failing inputs are reported and kept as artifacts.
    #[command(
        after_help = "Examples:\n  cargo reduce corpus\n  cargo reduce corpus --fuzz-target parse --corpus fuzz/corpus/parse --in-place\n  cargo reduce corpus --shrink\n  cargo reduce corpus --shard 2/4 --features-out features-2.json\n  cargo reduce corpus merge features-*.json"
    )]
    Corpus(Box<corpus::CorpusArgs>),
    /// Line coverage of each fuzz target's corpus, from the coverage build:
    /// an lcov tracefile, an HTML report and a per-file summary, per
    /// target and merged.
    #[command(
        after_help = "Examples:\n  cargo reduce coverage\n  cargo reduce coverage --fuzz-target parse --corpus fuzz/corpus/parse --output coverage/ --include-deps"
    )]
    Coverage(Box<coverage::CoverageArgs>),
    /// Build a fuzz target as its engine's front end does (`cargo fuzz
    /// build`, with `--dev` under a debugger; `cargo afl build`) and run
    /// that binary on one input, alone or under a debugger; exits with its
    /// status.
    #[command(
        after_help = "Examples:\n  cargo reduce run fuzz/artifacts/parse/minimized-from-crash-1a2b\n  cargo reduce run --debugger gdb fuzz/artifacts/parse/crash-1a2b\n  cargo reduce run --debugger gdb fuzz/artifacts/parse/crash-1a2b -- -batch -ex run -ex bt\n  cargo reduce run --fuzz-target parse saved/input.bin"
    )]
    Run(Box<run::RunArgs>),
}

/// `cargo reduce ci --help`'s end: the exit codes `ci` adds, numbered
/// from [`Exit`], and an example.
fn ci_help() -> String {
    format!(
        "Exit codes: {} nothing new (or, with --fail-on known, no failure); {} a new failure; \
         {} known failures only (--fail-on known); {} ci merge: a report of another format version; \
         others as for cargo reduce (see cargo reduce --help).\n\n\
         Example:\n  cargo reduce ci --budget 5m --update --format github --sarif fuzz.sarif --junit fuzz.xml",
        Exit::Success.code(),
        Exit::NewFailures.code(),
        Exit::KnownFailures.code(),
        Exit::UnsupportedReport.code(),
    )
}

/// Drops the `reduce` word cargo inserts when it runs `cargo-reduce` for
/// `cargo reduce …`, so both invocations parse alike.
pub(crate) fn strip_cargo_word(mut args: Vec<OsString>) -> Vec<OsString> {
    if args.get(1).is_some_and(|a| a == "reduce") {
        args.remove(1);
    }
    args
}

/// Takes a `+toolchain` first argument (after cargo's word), as cargo
/// takes `cargo +nightly reduce`: the arguments without it, and the
/// toolchain's name.
fn take_toolchain(mut args: Vec<OsString>) -> (Vec<OsString>, Option<OsString>) {
    let named = args.get(1).and_then(|a| {
        let name = a.to_str()?.strip_prefix('+')?;
        (!name.is_empty()).then(|| OsString::from(name))
    });
    if named.is_some() {
        args.remove(1);
    }
    (args, named)
}

/// Runs the command line `args` (program name first) and returns the exit
/// status.
pub(crate) fn main(args: Vec<OsString>) -> i32 {
    if args
        .get(1)
        .is_some_and(|a| a == crate::children::GUARDIAN_ARG)
    {
        crate::children::guard(std::io::stdin().lock());
        return Exit::Success.code();
    }
    let (args, toolchain) = take_toolchain(strip_cargo_word(args));
    if let Some(toolchain) = toolchain {
        // What rustup sets for `cargo +toolchain`, for every cargo and
        // rustc this run starts (`crate::fuzz::toolchain`). Set before any
        // thread starts.
        std::env::set_var("RUSTUP_TOOLCHAIN", toolchain);
        std::env::set_var("RUSTUP_TOOLCHAIN_SOURCE", "cli");
    }
    // First of all: a Ctrl-C during argument parsing or the guardian's
    // start must not be lost (a process started with SIGINT ignored, as
    // from a background job, would otherwise run on to the end).
    let interrupt = install_interrupt_handler();
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                Exit::Usage.code()
            } else {
                Exit::Success.code()
            };
        }
    };
    // `run` ends by starting another program in its place: nothing of
    // its own to guard.
    if !matches!(cli.command, Some(CliCommand::List(_) | CliCommand::Run(_))) {
        if let Ok(exe) = std::env::current_exe() {
            // Best effort: without it, only a SIGKILL leaves test groups behind.
            let _ = crate::children::start_guardian(&exe);
        }
    }
    let reporter = Reporter::new(&cli.global);
    let result = match &cli.command {
        None => fuzz::run(&cli.fuzz, &reporter, interrupt.clone()),
        Some(CliCommand::List(args)) => list::run(args, &reporter),
        Some(CliCommand::File(args)) => file::run(args, &reporter, interrupt.clone()),
        Some(CliCommand::Ci(args)) => ci::run(args, &reporter, interrupt.clone()),
        Some(CliCommand::Ice(args)) => ice::run(args, &reporter, interrupt.clone()),
        Some(CliCommand::Corpus(args)) => corpus::run(args, &reporter, interrupt.clone()),
        Some(CliCommand::Coverage(args)) => coverage::run(args, &reporter, interrupt.clone()),
        Some(CliCommand::Run(args)) => run::run(args, &reporter, interrupt.clone()),
    };
    // Ctrl-C that killed a child cargo (metadata, a build) shows as that
    // child's failure: it is the interruption.
    // Its message (a manifest "to fix") would mislead.
    let result = result.map_err(|e| match interrupt.load(Ordering::SeqCst) {
        true if e.exit() != Exit::Interrupted => {
            Error::new(Exit::Interrupted, "interrupted; nothing more was written")
        }
        _ => e,
    });
    match result {
        Ok(exit) => exit.code(),
        Err(e) => {
            reporter.error(&e);
            e.exit().code()
        }
    }
}

/// First Ctrl-C (or SIGTERM, SIGHUP): set the flag (running tests are
/// killed and the best result so far is written). The handler itself sets
/// it, so a child cargo killed by the same signal to the process group
/// never reports its failure before the flag reads set. Second Ctrl-C:
/// leave at once. A signal in the first moments after the first is the
/// same interruption, not a second: `timeout -s INT` signals the process
/// and then its whole group, and a terminal's Ctrl-C reaches the process
/// once per key press.
fn install_interrupt_handler() -> Arc<AtomicBool> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    const SIGNALS: [i32; 3] = [SIGINT, SIGTERM, SIGHUP];
    let flag = Arc::new(AtomicBool::new(false));
    for signal in SIGNALS {
        // Best effort, as a missing handler only leaves the default action.
        let _ = signal_hook::flag::register(signal, flag.clone());
    }
    if let Ok(mut signals) = signal_hook::iterator::Signals::new(SIGNALS) {
        std::thread::spawn(move || {
            if signals.forever().next().is_none() {
                return;
            }
            let first = Instant::now();
            const SAME_INTERRUPTION: Duration = Duration::from_millis(300);
            for _ in signals.forever() {
                if first.elapsed() > SAME_INTERRUPTION {
                    crate::children::kill_all();
                    eprintln!("error: interrupted again: stopped at once");
                    std::process::exit(Exit::Interrupted.code());
                }
            }
        });
    }
    flag
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn effort_defaults_to_default_and_is_for_bytes_only() {
        use crate::fuzz::shrink::Effort;
        let parse = |args: &[&str]| Cli::try_parse_from([&["cargo-reduce"], args].concat());
        // Not given: the target's `Cargo.toml` may set it, else the default.
        let options = |args: &[&str]| parse(args).unwrap().fuzz.request().options;
        assert_eq!(options(&[]).effort, None);
        assert_eq!(options(&[]).effort(), Effort::Default);
        assert_eq!(options(&["--effort", "quick"]).effort(), Effort::Quick);
        assert_eq!(options(&["--effort", "max"]).effort(), Effort::Max);
        assert!(parse(&["--lang", "js"]).is_ok());
        assert!(parse(&["--lang", "js", "--effort", "max"]).is_err());
    }

    #[test]
    fn help_lists_every_exit_code_and_ci_help_numbers_its_own() {
        let help = Cli::command().render_help().to_string();
        for exit in Exit::ALL {
            let line = format!("{:>5}  {}", exit.code(), exit.meaning());
            assert!(
                help.contains(&line),
                "{exit:?} missing from --help:\n{help}"
            );
        }
        let ci = ci_help();
        for exit in [
            Exit::NewFailures,
            Exit::KnownFailures,
            Exit::UnsupportedReport,
        ] {
            assert!(
                ci.contains(&format!("; {} ", exit.code())),
                "{exit:?}: {ci}"
            );
        }
    }

    /// The exit-code table of the user documentation (whichever markdown
    /// file of README.md and docs/ holds it: a table whose header is
    /// `| exit | meaning |`, one `| <code> | <meaning> |` row per code)
    /// lists exactly the codes of [`Exit`], in order.
    #[test]
    fn the_documented_exit_table_lists_every_exit_code() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = vec![root.join("README.md")];
        if let Ok(docs) = std::fs::read_dir(root.join("docs")) {
            files.extend(docs.map(|e| e.unwrap().path()));
        }
        let tables: Vec<(std::path::PathBuf, Vec<i32>)> = files
            .into_iter()
            .filter(|f| f.extension().is_some_and(|e| e == "md"))
            .filter_map(|f| {
                let text = std::fs::read_to_string(&f).ok()?;
                Some((f, exit_table(&text)?))
            })
            .collect();
        assert_eq!(tables.len(), 1, "one file holds the exit table: {tables:?}");
        let codes: Vec<i32> = Exit::ALL.iter().map(|e| e.code()).collect();
        let (file, documented) = &tables[0];
        assert_eq!(documented, &codes, "the table in {}", file.display());
    }

    /// The codes of the `| exit | meaning |` table in `markdown`, if any.
    fn exit_table(markdown: &str) -> Option<Vec<i32>> {
        let cells = |line: &str| -> Vec<String> {
            line.trim()
                .trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        };
        let mut lines = markdown.lines();
        lines.find(|l| cells(l) == ["exit", "meaning"])?;
        let rows = lines
            .skip(1)
            .take_while(|l| l.trim_start().starts_with('|'));
        Some(
            rows.map(|row| {
                let cells = cells(row);
                cells[0]
                    .parse()
                    .unwrap_or_else(|_| panic!("not an exit code: {row}"))
            })
            .collect(),
        )
    }

    #[test]
    fn a_toolchain_is_taken_as_cargo_takes_it() {
        let args = |words: &[&str]| words.iter().map(OsString::from).collect::<Vec<_>>();
        let (rest, toolchain) = take_toolchain(args(&["cargo-reduce", "+nightly", "list"]));
        assert_eq!(
            (rest, toolchain),
            (args(&["cargo-reduce", "list"]), Some("nightly".into()))
        );
        let plain = args(&["cargo-reduce", "list", "+nightly"]);
        assert_eq!(take_toolchain(plain.clone()), (plain, None));
        let bare = args(&["cargo-reduce", "+"]);
        assert_eq!(take_toolchain(bare.clone()), (bare, None));
    }

    #[test]
    fn cargo_s_reduce_word_is_optional() {
        let direct = strip_cargo_word(vec!["cargo-reduce".into(), "file".into()]);
        let via_cargo =
            strip_cargo_word(vec!["cargo-reduce".into(), "reduce".into(), "file".into()]);
        assert_eq!(direct, via_cargo);
    }
}
