//! `file` mode: any file, tested by an external command (exit 0 means
//! interesting). The input is run twice first (it must be interesting and
//! agree with itself; the slower run sets the default timeout), then
//! reduced by ddmin passes over units or syntax-aware, and the result run
//! once more.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::message::{How, Plan as PlanMessage};
use super::{Events, Job, LangChoice, Message, Reduced, Run, Settings, Subject};
use std::os::unix::fs::MetadataExt;

use crate::command::{CommandError, CommandOracle, RunResult, RunStatus, TestCommand};
use crate::engine::{ddmin, Cancel, OracleError, StopReason};
use crate::error::{Error, Exit};
use crate::output::{default_output_path, same_file, shown, Destination};
use crate::syntax::{self, Lang, Strategy};
use crate::unit::{concat_into, Units};

/// What `cargo reduce file` was asked to do.
#[derive(Debug, Clone)]
pub(crate) struct FileRequest {
    /// The file to reduce; never modified.
    pub input: PathBuf,
    /// Where the result goes [default: beside INPUT, `.reduced` inserted].
    pub output: Option<PathBuf>,
    /// `--unit`: ddmin passes over these units instead of a syntax plan.
    pub units: Option<Units>,
    /// `--lang`.
    pub lang: LangChoice,
    /// `--strategy`.
    pub strategy: Option<Strategy>,
    /// `--pretty`: the strategy's `format` part switched on.
    pub format: bool,
    /// `--timeout`.
    pub timeout: Option<Duration>,
    /// The test command; `{}` stands for the candidate's path.
    pub command: Vec<OsString>,
}

/// Timeout for INPUT's own runs when `--timeout` is not given.
const INPUT_TIMEOUT: Duration = Duration::from_secs(60);

/// Reduces one file; returns the exit status (success, or interrupted).
pub(crate) fn run(
    request: &FileRequest,
    settings: &Settings,
    events: &dyn Events,
) -> Result<Exit, Error> {
    let (bytes, mode) = read_input(&request.input)?;
    let output = request
        .output
        .clone()
        .unwrap_or_else(|| default_output_path(&request.input));
    if same_file(&request.input, &output) {
        return Err(Error::new(
            Exit::BadInput,
            format!(
                "output `{}` is INPUT itself: choose another path with -o",
                shown(&output)
            ),
        ));
    }
    let output = Destination::check(&output)?;
    let command = TestCommand::new(&request.command)?;
    let file_name = request.input.file_name().expect("a file has a name");
    let mut subject = FileSubject {
        oracle: CommandOracle::new(
            command,
            file_name,
            mode,
            request.timeout.unwrap_or(INPUT_TIMEOUT),
        ),
        plan: Plan::choose(request, &bytes),
        timeout: request.timeout,
        path: &request.input,
    };
    let job = Job {
        input: &request.input,
        label: String::new(),
        bytes,
        output: &output,
        partial: None,
    };
    let done = super::reduce(&mut subject, job, settings, events)?;
    Ok(match done.stopped {
        Some(StopReason::Interrupted) => Exit::Interrupted,
        _ => Exit::Success,
    })
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
    fn choose(request: &FileRequest, input: &[u8]) -> Plan {
        if let Some(units) = &request.units {
            return Plan::Units(units.clone());
        }
        let lang = match request.lang {
            LangChoice::Auto => auto_lang(&request.input, input),
            LangChoice::Is(lang) => lang,
        };
        let formatted = |s: Strategy| if request.format { s.formatted() } else { s };
        match (&request.strategy, lang) {
            (Some(strategy), _) => Plan::Syntax(lang, formatted(*strategy)),
            (None, Lang::Text) if request.lang == LangChoice::Auto => {
                Plan::Units(Units::default_for(input))
            }
            (None, _) => Plan::Syntax(lang, formatted(Strategy::Best)),
        }
    }

    fn message(&self) -> PlanMessage {
        match self {
            Plan::Units(units) => PlanMessage::Units {
                unit: units.to_string(),
            },
            Plan::Syntax(lang, strategy) => PlanMessage::Syntax {
                lang: lang.name().to_string(),
                strategy: strategy.to_string(),
            },
        }
    }
}

/// Reads INPUT, refusing what cannot be reduced; its bytes and its mode
/// (candidates get its permission bits).
fn read_input(path: &Path) -> Result<(Vec<u8>, u32), Error> {
    let bad = |what: String| Error::new(Exit::BadInput, what);
    if path.is_dir() {
        return Err(bad(format!(
            "INPUT `{}` is a directory: give the path of one file to reduce",
            shown(path)
        )));
    }
    let unreadable = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => bad(format!(
            "INPUT `{}` does not exist: check the path",
            shown(path)
        )),
        _ => bad(format!("cannot read INPUT `{}`: {e}", shown(path))),
    };
    let bytes = std::fs::read(path).map_err(unreadable)?;
    let mode = std::fs::metadata(path).map_err(unreadable)?.mode();
    if bytes.is_empty() {
        return Err(bad(format!(
            "INPUT `{}` is empty: there is nothing to reduce",
            shown(path)
        )));
    }
    Ok((bytes, mode))
}

/// A file and its test command.
struct FileSubject<'a> {
    oracle: CommandOracle,
    plan: Plan,
    /// `--timeout`, if given.
    timeout: Option<Duration>,
    path: &'a Path,
}

impl Subject for FileSubject<'_> {
    type Extra = ();

    fn how(&self) -> How {
        How::Command {
            command: self.oracle.command().display().to_string(),
            plan: self.plan.message(),
        }
    }

    /// Runs the command on INPUT twice: it must be interesting both times.
    /// The slower run sets the default timeout (10×, at least 1 s).
    fn check(&mut self, input: &[u8], run: &Run<'_>) -> Result<(), Error> {
        let cancel = Cancel::by_limits(run.interrupt_only);
        let mut slowest = Duration::ZERO;
        for attempt in 0..2 {
            let result = self
                .oracle
                .run(input, &cancel)
                .map_err(|e| Error::caused(Exit::BadCommand, "cannot run the test command", e))?;
            run.counters.add_test();
            slowest = slowest.max(result.elapsed);
            check_status(&result, attempt, self.path)?;
        }
        self.oracle.set_timeout(
            self.timeout
                .unwrap_or_else(|| (slowest * 10).max(Duration::from_secs(1))),
        );
        Ok(())
    }

    fn reduce(&self, input: Vec<u8>, run: &Run<'_>) -> Result<Reduced, (Vec<u8>, OracleError)> {
        let bytes = match &self.plan {
            Plan::Units(units) => reduce_passes(input, units, &self.oracle, run)?,
            Plan::Syntax(lang, strategy) => {
                run.start_pass(&format!("{} {strategy}", lang.name()));
                syntax::reduce_in(&input, *lang, strategy, &self.oracle, &run.context())
                    .map_err(|e| (e.best, e.source))?
                    .atoms
            }
        };
        Ok(Reduced::unchecked(bytes, ()))
    }

    /// Runs the result once more; only Ctrl-C stops it (then the result
    /// stands unchecked, as the best so far: [`Exit::Interrupted`]).
    fn verify(&self, reduced: &Reduced, run: &Run<'_>) -> Result<(), Error> {
        let result = self
            .oracle
            .run(&reduced.bytes, &Cancel::by_limits(run.interrupt_only))
            .map_err(|e| match e {
                // It ran before: a failure now is not the command's fault.
                CommandError::Spawn { command, source } => Error::caused(
                    Exit::Failure,
                    format!("cannot run the test command `{command}`"),
                    source,
                ),
                e => Error::from(e),
            })?;
        run.counters.add_test();
        if result.status.is_interesting() {
            return Ok(());
        }
        if result.status == RunStatus::Cancelled {
            return Err(Error::new(
                Exit::Interrupted,
                "interrupted during the final check",
            ));
        }
        Err(Error::new(
            Exit::Flaky,
            format!("the test command is flaky: the reduced result was interesting before but not when tested again ({}){}; nothing written", result.status, stderr_note(&result)),
        ))
    }
}

/// The error for INPUT's `attempt`-th run, if it was not interesting.
fn check_status(result: &RunResult, attempt: usize, path: &Path) -> Result<(), Error> {
    match result.status {
        RunStatus::Exited(0) => Ok(()),
        RunStatus::Cancelled => Err(Error::new(
            Exit::Interrupted,
            "interrupted before the reduction started; nothing written",
        )),
        RunStatus::TimedOut => Err(Error::new(
            Exit::TimedOut,
            format!("the test command timed out after {:.1} s on INPUT `{}`: raise --timeout, or check that it terminates", result.elapsed.as_secs_f64(), path.display()),
        )),
        _ if attempt == 1 => Err(Error::new(
            Exit::Flaky,
            format!("the test command is flaky: INPUT `{}` was interesting on the first run but not on the second ({}){}; make the test deterministic", path.display(), result.status, stderr_note(result)),
        )),
        _ => Err(Error::new(
            Exit::NotInteresting,
            format!("INPUT `{}` is not interesting: the test command ended with {} (0 means interesting){}", path.display(), result.status, stderr_note(result)),
        )),
    }
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

/// One ddmin pass per unit, each on the previous result. On an oracle
/// error, returns the best bytes so far with the error.
fn reduce_passes(
    input: Vec<u8>,
    units: &Units,
    oracle: &CommandOracle,
    run: &Run<'_>,
) -> Result<Vec<u8>, (Vec<u8>, OracleError)> {
    let mut current = input;
    for &unit in &units.0 {
        run.start_pass(unit.name());
        let atoms = unit.split(&current);
        let result = ddmin(atoms, oracle, &run.settings.ddmin, &run.context());
        let mut next = Vec::new();
        match result {
            Ok(reduction) => concat_into(&reduction.atoms, &mut next),
            Err(e) => {
                concat_into(&e.best, &mut next);
                return Err((next, e.source));
            }
        }
        current = next;
        run.emit(&Message::PassFinished {
            unit: unit.name().to_string(),
            bytes: current.len(),
            tests_run: run.counters.tests(),
            cache_hits: run.counters.cache_hits(),
        });
        if run.limits.stop_reason().is_some() {
            break;
        }
    }
    Ok(current)
}
