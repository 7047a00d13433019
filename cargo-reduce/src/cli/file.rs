//! `cargo reduce file INPUT -- CMD…`: reduce any file with an external test
//! command.
//!
//! The steps: read INPUT; resolve the command; run it twice on INPUT (it
//! must be interesting, and agree with itself); one ddmin pass per unit;
//! run the result once more; write it atomically. Ctrl-C writes the best
//! result so far.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;

use super::options::{parse_seconds, LangArg, ReduceOptions};
use super::report::{Finished, ReductionProgress, Reporter};
use crate::command::{CommandError, CommandOracle, RunResult, RunStatus, TestCommand};
use crate::engine::{
    ddmin, Cancel, Context, Counters, Limits, OracleError, OutcomeCache, StopReason,
};
use crate::error::{command_exit, CliError, Exit};
use crate::output::{default_output_path, same_file, write_atomically};
use crate::syntax::{self, Lang, Strategy};
use crate::unit::{concat_into, Units};

/// Arguments of `cargo reduce file`.
#[derive(Debug, Clone, Args)]
pub struct FileArgs {
    /// The file to reduce; it is never modified.
    pub input: PathBuf,
    /// Where to write the result [default: INPUT's stem + `.reduced` + its
    /// extension, beside INPUT].
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// What ddmin removes, one pass per `+`-separated unit: byte, char,
    /// line, token [default: line+char for text that is not Rust or
    /// JavaScript, byte for binary input].
    #[arg(long, value_name = "UNITS", conflicts_with = "strategy")]
    pub unit: Option<Units>,
    /// INPUT's language for syntax-aware reduction: rust, js, text, or auto
    /// (by extension, then by content).
    #[arg(long, value_name = "LANG", default_value = "auto")]
    pub lang: LangArg,
    /// Syntax-aware strategy: ddmin (over tokens), hdd, hdd*, coarse-hdd,
    /// coarse-hdd+hdd, best, then any `,+PART`/`,-PART` to switch slots,
    /// groups, flatten, squeeze, hide, hoist, canon, inline, tokens or
    /// rounds [default: best for Rust and
    /// JavaScript; other text gets --unit passes unless a strategy is
    /// given].
    #[arg(long, value_name = "STRATEGY")]
    pub strategy: Option<Strategy>,
    /// Kill a test after SECS seconds; it then counts as not interesting
    /// [default: 60 s for INPUT itself, then 10× INPUT's time, at least 1 s].
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub timeout: Option<Duration>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub reduce: ReduceOptions,
    /// The test command: exit status 0 means the candidate is interesting.
    /// `{}` stands for the candidate's path (appended when absent).
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<OsString>,
}

/// `--lang auto`: the extension decides when there is one (a `.py` file
/// that happens to parse as JavaScript is still not JavaScript); the
/// content is looked at only for files without an extension.
fn auto_lang(path: &Path, input: &[u8]) -> Lang {
    match path.extension() {
        Some(_) => Lang::from_extension(path).unwrap_or(Lang::Text),
        None => Lang::detect(None, input),
    }
}

/// How INPUT is reduced.
#[derive(Debug, Clone)]
enum Plan {
    /// One ddmin pass per unit.
    Units(Units),
    /// Syntax-aware reduction of a tree.
    Syntax(Lang, Strategy),
}

impl Plan {
    /// `--unit` wins; then a given strategy, or `best` for a grammar the
    /// input is written in; plain text keeps the unit passes by default.
    fn choose(args: &FileArgs, input: &[u8]) -> Plan {
        if let Some(units) = &args.unit {
            return Plan::Units(units.clone());
        }
        let lang = match args.lang {
            LangArg::Auto => auto_lang(&args.input, input),
            LangArg::Is(lang) => lang,
        };
        match (&args.strategy, lang) {
            (Some(strategy), _) => Plan::Syntax(lang, *strategy),
            (None, Lang::Text) if args.lang == LangArg::Auto => {
                Plan::Units(Units::default_for(input))
            }
            (None, _) => Plan::Syntax(lang, Strategy::Best),
        }
    }

    fn describe(&self) -> serde_json::Value {
        match self {
            Plan::Units(units) => serde_json::json!({ "unit": units.to_string() }),
            Plan::Syntax(lang, strategy) => {
                serde_json::json!({ "lang": lang.name(), "strategy": strategy.to_string() })
            }
        }
    }
}

/// Timeout for INPUT's own runs when `--timeout` is not given.
const INPUT_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs `cargo reduce file`.
pub fn run(
    args: &FileArgs,
    reporter: &Reporter,
    interrupt: Arc<AtomicBool>,
) -> Result<Exit, CliError> {
    let started = Instant::now();
    let (input, mode) = read_input(&args.input)?;
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| default_output_path(&args.input));
    if same_file(&args.input, &output) {
        return Err(CliError::new(
            Exit::BadInput,
            format!(
                "output `{}` is INPUT itself: choose another path with -o",
                output.display()
            ),
        ));
    }
    let command = TestCommand::new(&args.command)?;
    let file_name = args.input.file_name().expect("a file has a name");
    let timeout = args.timeout.unwrap_or(INPUT_TIMEOUT);
    let oracle = CommandOracle::new(command, file_name, mode, timeout);
    let plan = Plan::choose(args, &input);
    let mut started_message = serde_json::json!({
        "reason": "reduction-started", "input": args.input, "output": output,
        "original_bytes": input.len(), "command": oracle.command().display(),
    });
    if let (Some(m), serde_json::Value::Object(extra)) =
        (started_message.as_object_mut(), plan.describe())
    {
        m.extend(extra);
    }
    reporter.message(&started_message);

    let counters = Counters::default();
    let interrupt_only = Limits::none().with_interrupt(interrupt.clone());
    let input_time = check_input(&oracle, &input, &args.input, &counters, &interrupt_only)?;
    oracle.set_timeout(
        args.timeout
            .unwrap_or_else(|| (input_time * 10).max(Duration::from_secs(1))),
    );

    let limits = args.reduce.limits(interrupt, started);
    let cache = OutcomeCache::new();
    let progress = ReductionProgress::new(reporter, input.len());
    let engine = Engine {
        jobs: args.reduce.jobs(),
        limits: &limits,
        cache: (!args.reduce.no_cache).then_some(&cache),
        counters: &counters,
        progress: &progress,
    };
    let reduced = match &plan {
        Plan::Units(units) => {
            reduce_passes(&input, units, &oracle, &args.reduce, &engine, reporter)
        }
        Plan::Syntax(lang, strategy) => reduce_syntax(&input, *lang, strategy, &oracle, &engine),
    };
    progress.finish();
    let steps = progress.steps(&counters);
    let (reduced, error) = match reduced {
        Ok(bytes) => (bytes, None),
        Err((best, e)) => (best, Some(e)),
    };
    let stopped = limits.stop_reason();
    if let Some(reason) = stopped {
        reporter.message(&serde_json::json!({"reason": "reduction-stopped", "why": reason.name()}));
    }
    if stopped != Some(StopReason::Interrupted) && error.is_none() {
        final_check(&oracle, &reduced, &counters)?;
    }
    write_atomically(&output, &reduced, Some(&args.input)).map_err(|e| {
        CliError::new(
            Exit::Failure,
            format!("cannot write `{}`: {e}", output.display()),
        )
    })?;
    if let Some(e) = error {
        let exit = match e.downcast_ref::<CommandError>() {
            Some(e @ CommandError::TempDir { .. }) => command_exit(e),
            _ => Exit::Failure,
        };
        return Err(CliError::new(
            exit,
            format!(
                "{e}; the best result so far ({} bytes) is in `{}`",
                reduced.len(),
                output.display()
            ),
        ));
    }
    let finished = Finished::new(
        &args.input,
        &output,
        (input.len(), reduced.len()),
        &counters,
        started.elapsed(),
        stopped.is_none(),
    )
    .with_steps(steps);
    summarize(reporter, &finished, stopped);
    reporter.message(&finished);
    Ok(if stopped == Some(StopReason::Interrupted) {
        Exit::Interrupted
    } else {
        Exit::Success
    })
}

/// Reads INPUT, refusing what cannot be reduced; its bytes and its mode
/// (candidates get its permission bits).
fn read_input(path: &Path) -> Result<(Vec<u8>, u32), CliError> {
    let bad = |what: String| CliError::new(Exit::BadInput, what);
    if path.is_dir() {
        return Err(bad(format!(
            "INPUT `{}` is a directory: give the path of one file to reduce",
            path.display()
        )));
    }
    let unreadable = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => bad(format!(
            "INPUT `{}` does not exist: check the path",
            path.display()
        )),
        _ => bad(format!("cannot read INPUT `{}`: {e}", path.display())),
    };
    let bytes = std::fs::read(path).map_err(unreadable)?;
    let mode = std::fs::metadata(path)
        .map_err(unreadable)?
        .permissions()
        .mode();
    if bytes.is_empty() {
        return Err(bad(format!(
            "INPUT `{}` is empty: there is nothing to reduce",
            path.display()
        )));
    }
    Ok((bytes, mode))
}

/// Runs the command on INPUT twice: it must be interesting both times.
/// Returns the slower run's time, the basis of the default timeout.
fn check_input(
    oracle: &CommandOracle,
    input: &[u8],
    path: &Path,
    counters: &Counters,
    limits: &Limits,
) -> Result<Duration, CliError> {
    let cancel = Cancel::by_limits(limits);
    let mut slowest = Duration::ZERO;
    for attempt in 0..2 {
        let run = oracle.run(input, &cancel)?;
        counters.add_test();
        slowest = slowest.max(run.elapsed);
        match run.status {
            RunStatus::Exited(0) => {}
            RunStatus::Cancelled => return Err(CliError::new(Exit::Interrupted, "interrupted before the reduction started; nothing written")),
            RunStatus::TimedOut => {
                return Err(CliError::new(
                    Exit::TimedOut,
                    format!("the test command timed out after {:.1} s on INPUT `{}`: raise --timeout, or check that it terminates", run.elapsed.as_secs_f64(), path.display()),
                ))
            }
            _ if attempt == 1 => {
                return Err(CliError::new(
                    Exit::Flaky,
                    format!("the test command is flaky: INPUT `{}` was interesting on the first run but not on the second ({}){}; make the test deterministic", path.display(), run.status, stderr_note(&run)),
                ))
            }
            _ => {
                return Err(CliError::new(
                    Exit::NotInteresting,
                    format!("INPUT `{}` is not interesting: the test command ended with {} (0 means interesting){}", path.display(), run.status, stderr_note(&run)),
                ))
            }
        }
    }
    Ok(slowest)
}

fn stderr_note(run: &RunResult) -> String {
    if run.stderr_tail.is_empty() {
        String::new()
    } else {
        format!(
            "; its stderr ended with: {}",
            run.stderr_tail.replace('\n', " ⏎ ")
        )
    }
}

/// What every pass shares. Each pass gets its own [`Context`], since its
/// atoms borrow that pass's input.
struct Engine<'a> {
    jobs: usize,
    limits: &'a Limits,
    cache: Option<&'a OutcomeCache>,
    counters: &'a Counters,
    progress: &'a ReductionProgress<'a>,
}

impl Engine<'_> {
    fn context<A: crate::unit::ByteAtom>(&self) -> Context<'_, A> {
        Context {
            jobs: self.jobs,
            limits: self.limits,
            cache: self.cache,
            counters: self.counters,
            observer: self.progress,
        }
    }
}

/// One ddmin pass per unit, each on the previous result. On an oracle
/// error, returns the best bytes so far with the error.
fn reduce_passes(
    input: &[u8],
    units: &Units,
    oracle: &CommandOracle,
    options: &ReduceOptions,
    engine: &Engine<'_>,
    reporter: &Reporter,
) -> Result<Vec<u8>, (Vec<u8>, OracleError)> {
    let ddmin_options = options.ddmin_options();
    let mut current = input.to_vec();
    for &unit in &units.0 {
        engine.progress.start_pass(unit.name());
        let atoms = unit.split(&current);
        let result = ddmin(atoms, oracle, &ddmin_options, &engine.context());
        let mut next = Vec::new();
        match result {
            Ok(reduction) => concat_into(&reduction.atoms, &mut next),
            Err(e) => {
                concat_into(&e.best, &mut next);
                return Err((next, e.source));
            }
        }
        current = next;
        reporter.message(&serde_json::json!({
            "reason": "pass-finished", "unit": unit.name(), "bytes": current.len(),
            "tests_run": engine.counters.tests(), "cache_hits": engine.counters.cache_hits(),
        }));
        if engine.limits.stop_reason().is_some() {
            break;
        }
    }
    Ok(current)
}

/// Syntax-aware reduction (HDD and its transforms) of `lang` text.
fn reduce_syntax(
    input: &[u8],
    lang: Lang,
    strategy: &Strategy,
    oracle: &CommandOracle,
    engine: &Engine<'_>,
) -> Result<Vec<u8>, (Vec<u8>, OracleError)> {
    engine
        .progress
        .start_pass(&format!("{} {strategy}", lang.name()));
    match syntax::reduce(input, lang, strategy, oracle, &engine.context()) {
        Ok(reduction) => Ok(reduction.atoms),
        Err(e) => Err((e.best, e.source)),
    }
}

/// Runs the result once more before it is written.
fn final_check(
    oracle: &CommandOracle,
    reduced: &[u8],
    counters: &Counters,
) -> Result<(), CliError> {
    let limits = Limits::none();
    let run = oracle
        .run(reduced, &Cancel::by_limits(&limits))
        .map_err(|e| match e {
            // It ran before: a failure now is not the command's fault.
            CommandError::Spawn { .. } => CliError::new(Exit::Failure, e.to_string()),
            e => CliError::from(e),
        })?;
    counters.add_test();
    if run.status.is_interesting() {
        return Ok(());
    }
    Err(CliError::new(
        Exit::Flaky,
        format!("the test command is flaky: the reduced result was interesting before but not when tested again ({}){}; nothing written", run.status, stderr_note(&run)),
    ))
}

fn summarize(reporter: &Reporter, f: &Finished<'_>, stopped: Option<StopReason>) {
    let percent = 100.0 * (1.0 - f.reduced_bytes as f64 / f.original_bytes as f64);
    let text = format!(
        "{}: {} → {} bytes ({percent:.1}% smaller), {} tests, {} cache hits, {:.2}s → {}",
        f.input.display(),
        f.original_bytes,
        f.reduced_bytes,
        f.tests_run,
        f.cache_hits,
        f.elapsed_s,
        f.output.display()
    );
    match stopped {
        None => reporter.status("Reduced", text),
        Some(StopReason::Interrupted) => reporter.warning(format!(
            "interrupted; the best result so far was written. {text}"
        )),
        Some(reason) => reporter.warning(format!(
            "stopped by {}; the result is not 1-minimal. {text}",
            reason.name()
        )),
    }
}
