//! `ice` mode: from a build that crashes rustc (an internal compiler
//! error) to an MCVE and an issue-ready report, with no oracle to write.
//!
//! [`run`] is a list of stages, each in its own folder:
//! - [`one_file`]: the user's build runs as it would, and its output names
//!   the ICE and the crate's rustc command line ([`rustc`]: the command
//!   line, running it, the ICE's signature); the crate becomes one file.
//! - [`subject`]: the one file must crash rustc the same way three times
//!   ([`oracle`]: the verdict on a candidate; [`tester`]: each test through
//!   the engine, which counts it, caches it and stops at the limits); then
//!   [`steps`] (rustc's unused items first, the syntax reducer with the
//!   ICE's signature as the oracle, the command line's flags cut, rustfmt
//!   last) and [`deps`]
//!   (a dependency the result still needs taken into it, or built beside
//!   it from its reduced source when that loses the ICE).
//! - [`report`]: `NAME.ice.rs`, an auxiliary's `NAME.ice.DEP.rs`, the
//!   libraries the command still names and `NAME.ice.md` are written
//!   atomically, outside the user's tree unless `-o` says where (a
//!   reduction stopped early: `NAME.ice.partial.rs`); nothing is written
//!   into it.

mod deps;
mod one_file;
mod oracle;
#[cfg(test)]
mod pinned_toolchain;
mod report;
pub(crate) mod rustc;
mod steps;
mod subject;
mod tester;

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::message::AuxiliaryCrate;
use super::{Done, Events, Job, Message, Partial, Settings};
use crate::engine::{Cancel, Limits, StopReason};
use crate::error::{Error, Exit};
use crate::output::{shown, Destination};
use deps::{artifacts, auxiliary};
pub(crate) use one_file::cargo_build::BuildSpec;
use one_file::cargo_build::Crash;
use one_file::{cargo_build, flatten, includes};
use oracle::IceOracle;
use report::bisect;
use report::duplicates::{self, Duplicate};
use rustc::args::RustcArgs;
use rustc::run::{Rustc, RustcRun};
use rustc::signature::{Kind, Match, Signature, Spelled};
pub(crate) use subject::Steps;
use subject::{IceReduced, IceSubject};

/// What `cargo reduce ice` was asked to do.
#[derive(Debug, Clone)]
pub(crate) struct IceRequest {
    /// `FILE.rs`: one file compiled by rustc instead of a cargo build.
    pub(crate) file: Option<PathBuf>,
    /// rustc's arguments for FILE (after `--`).
    pub(crate) rustc_args: Vec<String>,
    /// The cargo build, without FILE.
    pub(crate) build: BuildSpec,
    /// `-o`: the MCVE's path (the report goes beside it).
    pub(crate) output: Option<PathBuf>,
    /// `--match`.
    pub(crate) level: Match,
    /// `--timeout`.
    pub(crate) timeout: Option<Duration>,
    /// `--memory-limit`, in bytes.
    pub(crate) memory: Option<u64>,
    /// `--incremental`.
    pub(crate) incremental: bool,
    /// `--bisect`.
    pub(crate) bisect: bool,
    /// `--rust-src`: a rust-lang/rust checkout whose `tests/crashes/` are
    /// compiled for duplicates.
    pub(crate) rust_src: Option<PathBuf>,
    /// Pruning and formatting.
    pub(crate) steps: Steps,
}

/// rustc's arguments for FILE when none are given.
pub(crate) const DEFAULT_RUSTC_ARGS: &[&str] = &["--edition", "2021", "--crate-type", "lib"];

/// Timeout of the runs before the reduction sets its own.
const FIRST_TIMEOUT: Duration = Duration::from_secs(300);

/// Timeout of a crash test's compilation without `--timeout` (each is a
/// small file; one that hangs rustc is no duplicate of a crash).
const DEFAULT_CRASH_TEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Finds the ICE, reduces it, and writes the MCVE and its report.
pub(crate) fn run(
    request: &IceRequest,
    settings: &Settings,
    events: &dyn Events,
) -> Result<Exit, Error> {
    if request.bisect {
        bisect::installed().map_err(|e| Error::new(Exit::ToolMissing, e.to_string()))?;
    }
    super::check_temp_dir()?;
    // Before the build, which may take minutes: `-o`'s directory exists.
    if let Some(path) = &request.output {
        Destination::check(path)?;
    }
    let scratch = scratch_dir()?;
    let interrupt = Limits::none().with_interrupt(settings.interrupt.clone());
    let crash = crashed(request, scratch.path(), &interrupt)?;
    events.emit(&found(&crash));
    let root = crash.invocation.source_path();
    let flat = one_file(&crash, &root, scratch.path())?;
    let outputs = Outputs::of(request, &crash.invocation.crate_name())?;
    let oracle = oracle_for(request, &crash, &flat, &interrupt)?;
    let mut subject = IceSubject {
        command: oracle.rustc.invocation.display(&outputs.mcve_name),
        oracle,
        timeout: request.timeout,
        steps: request.steps,
        compiled: crash.compiled.clone(),
        temporary: scratch.path().to_path_buf(),
    };
    let job = Job {
        input: &root,
        bytes: flat.into_bytes(),
        output: &outputs.destination,
        partial: outputs.partial.as_ref().map(|p| Partial {
            destination: &p.destination,
            input_stands: false,
        }),
        label: String::new(),
    };
    let done = super::reduce(&mut subject, job, settings, events)?;
    let outputs = outputs.of_result(done.stopped.is_none());
    let beside = written_beside(&done.extra, &subject, &outputs)?;
    let last = rerun(&subject.oracle.rustc, &beside, &done.bytes)?;
    let signature = last.signature().unwrap_or(crash.signature.clone());
    let duplicates = duplicates(
        request,
        &signature,
        &beside,
        &done.bytes,
        settings.jobs,
        &interrupt,
    )?;
    let found = Found {
        done: &done,
        last: &last,
        signature: &signature,
        duplicates: duplicates.as_deref(),
    };
    let report = reported(request, &found, &beside, &crash, &outputs, events)?;
    events.emit(&report);
    Ok(match done.stopped {
        Some(StopReason::Interrupted) => Exit::Interrupted,
        _ => Exit::Success,
    })
}

/// The crash to reduce: FILE's under rustc, or the cargo build's.
fn crashed(request: &IceRequest, scratch: &Path, interrupt: &Limits) -> Result<Crash, Error> {
    match &request.file {
        Some(file) => single_file(file, request, &Cancel::by_limits(interrupt)),
        None => cargo_build::run(&request.build, scratch),
    }
}

/// The run's private directory (the build's target directory, the
/// auxiliaries' builds).
fn scratch_dir() -> Result<tempfile::TempDir, Error> {
    tempfile::Builder::new()
        .prefix("cargo-reduce-ice-")
        .tempdir()
        .map_err(|e| Error::caused(Exit::Environment, "cannot make a temporary directory", e))
}

/// Where the MCVE and its report go, checked.
struct Outputs {
    /// `-o`'s path, or `NAME.ice.rs` in `$TMPDIR/cargo-reduce-ice/`.
    mcve: PathBuf,
    /// The MCVE's file name, as the commands name it.
    mcve_name: String,
    /// The report: the MCVE's path ending in `.md`.
    report: PathBuf,
    /// Where the libraries the commands still name are copied.
    deps: PathBuf,
    /// The MCVE's destination, checked.
    destination: Destination,
    /// In the default place, the outputs of a reduction that stopped before
    /// its end (`NAME.ice.partial.rs`): a finished MCVE of an earlier run
    /// is never replaced by a larger one. `-o`'s path takes either.
    partial: Option<Box<Outputs>>,
}

impl Outputs {
    /// The outputs of crate `name` as `request` asks.
    fn of(request: &IceRequest, name: &str) -> Result<Outputs, Error> {
        match &request.output {
            Some(path) => Outputs::at(path.clone(), name, None),
            None => {
                let dir = default_dir()?;
                let partial = Outputs::at(dir.join(format!("{name}.ice.partial.rs")), name, None)?;
                Outputs::at(
                    dir.join(format!("{name}.ice.rs")),
                    name,
                    Some(Box::new(partial)),
                )
            }
        }
    }

    /// The outputs of an MCVE at `mcve`, checked.
    fn at(mcve: PathBuf, name: &str, partial: Option<Box<Outputs>>) -> Result<Outputs, Error> {
        let report = mcve.with_extension("md");
        let destination = Destination::check(&mcve)?;
        Destination::check(&report)?;
        let mcve_name = mcve.file_name().map_or(format!("{name}.ice.rs"), |n| {
            n.to_string_lossy().into_owned()
        });
        Ok(Outputs {
            deps: mcve.with_extension("deps"),
            mcve,
            mcve_name,
            report,
            destination,
            partial,
        })
    }

    /// The outputs of the reduction's result: the partial ones unless it
    /// is `finished`. A finished one removes an earlier run's partial
    /// report, auxiliary crates and libraries (the partial MCVE is removed
    /// as it is written).
    fn of_result(mut self, finished: bool) -> Outputs {
        match (self.partial.take(), finished) {
            (Some(partial), false) => *partial,
            (Some(partial), true) => {
                partial.remove();
                self
            }
            (None, _) => self,
        }
    }

    /// Removes these outputs but the MCVE: the report, the libraries and
    /// each auxiliary crate's `NAME.ice.partial.DEP.rs`
    /// ([`auxiliary::path_beside`]). Best effort: they are this tool's own.
    fn remove(&self) {
        let _ = std::fs::remove_file(&self.report);
        let _ = std::fs::remove_dir_all(&self.deps);
        let stem = self.mcve.with_extension("");
        let (Some(dir), Some(stem)) = (stem.parent(), stem.file_name()) else {
            return;
        };
        let prefix = format!("{}.", stem.to_string_lossy());
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with(&prefix) && name.ends_with(".rs") {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// `$TMPDIR/cargo-reduce-ice/`, made if missing: the outputs' folder
/// without `-o`.
fn default_dir() -> Result<PathBuf, Error> {
    let dir = std::env::temp_dir().join("cargo-reduce-ice");
    std::fs::create_dir_all(&dir).map_err(|e| {
        Error::caused(
            Exit::Environment,
            format!("cannot make `{}`", shown(&dir)),
            e,
        )
    })?;
    Ok(dir)
}

/// The crate of `crash`, rooted at `root`, as one file.
fn one_file(crash: &Crash, root: &Path, temporary: &Path) -> Result<String, Error> {
    let sources = includes::Sources {
        env: crash.invocation.env.clone(),
        temporary: Some(temporary.to_path_buf()),
    };
    flatten::flatten(root, &sources)
        .map_err(|e| Error::caused(Exit::BadInput, "cannot make the crate one file", e))
}

/// The oracle of `crash`'s ICE on the flattened crate `flat`: its minimal
/// command line where that crashes the same way, with backtraces only
/// where they are needed.
fn oracle_for(
    request: &IceRequest,
    crash: &Crash,
    flat: &str,
    interrupt: &Limits,
) -> Result<IceOracle, Error> {
    let name = crash.invocation.crate_name();
    let rustc = |invocation: RustcArgs| {
        Rustc::new(
            invocation,
            format!("{name}.rs"),
            request.timeout.unwrap_or(FIRST_TIMEOUT),
            request.memory,
            request.incremental,
        )
    };
    let mut reducing = rustc(command_line(crash, flat.as_bytes(), &rustc, request.level)?);
    // Every query frame only where they are all compared, and where a
    // delayed bug's location needs them.
    reducing.backtraces = request.level == Match::Strict
        || quiet_loses_location(&reducing, &crash.signature, flat.as_bytes(), interrupt)?;
    Ok(IceOracle {
        rustc: reducing,
        expected: crash.signature.clone(),
        level: request.level,
        spelled: Spelled::of(flat.as_bytes()),
    })
}

/// What is written beside the MCVE: its auxiliary crates' sources and the
/// libraries the commands still name ([`artifacts::keep_beside`]).
struct Beside {
    /// The MCVE's command line, naming the copies.
    invocation: RustcArgs,
    /// The auxiliary crates, each command naming the copies.
    kept: Vec<auxiliary::Auxiliary>,
    /// The auxiliaries' files, as the report shows them.
    files: Vec<report::AuxiliaryFile>,
    /// The MCVE's command as the report shows it.
    command: String,
}

/// Writes beside the MCVE what `reduced`'s command and auxiliaries need.
fn written_beside(
    reduced: &IceReduced,
    subject: &IceSubject,
    outputs: &Outputs,
) -> Result<Beside, Error> {
    let (invocation, kept) = kept_beside(reduced, subject, &outputs.deps)?;
    let files = write_auxiliaries(&kept, &outputs.mcve, &outputs.deps)?;
    let built_beside = auxiliary::as_built_beside(&invocation, &kept);
    let command = built_beside
        .relative_to(&outputs.deps)
        .display(&outputs.mcve_name);
    Ok(Beside {
        invocation,
        kept,
        files,
        command,
    })
}

/// rustc on the MCVE `bytes` once more, with the command `beside` shows
/// and backtraces as the user's environment has them: what the report
/// shows. Run after a Ctrl-C too, which the reduction's limits then hold:
/// a report of the best result so far needs its error output (a second
/// Ctrl-C ends the process).
fn rerun(rustc: &Rustc, beside: &Beside, bytes: &[u8]) -> Result<RustcRun, Error> {
    let mut rustc = rustc.with_invocation(beside.invocation.clone());
    rustc.backtraces = true;
    rustc
        .run(bytes, &Cancel::by_limits(&Limits::none()))
        .map_err(cannot_run)
}

/// What the report of the MCVE says besides the code: rustc's output on
/// it, its ICE, and the duplicates found.
struct Found<'a> {
    done: &'a Done<IceReduced>,
    last: &'a RustcRun,
    signature: &'a Signature,
    duplicates: Option<&'a [Duplicate]>,
}

/// With `--rust-src`, the crash tests of that checkout with the same ICE,
/// compiled by the MCVE's compiler.
fn duplicates(
    request: &IceRequest,
    signature: &Signature,
    beside: &Beside,
    mcve: &[u8],
    jobs: usize,
    interrupt: &Limits,
) -> Result<Option<Vec<Duplicate>>, Error> {
    let Some(rust_src) = &request.rust_src else {
        return Ok(None);
    };
    let crate_name = beside.invocation.crate_name();
    let spelled = Spelled::of(mcve).with(crate_name.as_bytes());
    let compiler = duplicates::Compiler {
        like: &beside.invocation,
        spelled: &spelled,
        timeout: request.timeout.unwrap_or(DEFAULT_CRASH_TEST_TIMEOUT),
        memory: request.memory,
        jobs,
        limits: interrupt,
    };
    duplicates::in_crash_tests(rust_src, signature, request.level, &compiler).map(Some)
}

/// Writes the report of the MCVE in `found`, with `--bisect`'s releases;
/// the `ice-reported` message.
fn reported(
    request: &IceRequest,
    found: &Found<'_>,
    beside: &Beside,
    crash: &Crash,
    outputs: &Outputs,
    events: &dyn Events,
) -> Result<Message, Error> {
    let Found { done, last, .. } = found;
    let name = crash.invocation.crate_name();
    let code = String::from_utf8_lossy(&done.bytes);
    let scratch = bisect::Scratch {
        code: &code,
        name: &name,
        edition: beside.invocation.edition(),
        auxiliaries: &beside.kept,
    };
    let bisected = request.bisect.then(|| bisected(&scratch, events)).flatten();
    let markdown = report::Report {
        code: &code,
        command: &beside.command,
        version: &report::version(&beside.invocation.program),
        stderr: &last
            .stderr
            .replace(&format!("{name}.rs"), &outputs.mcve_name),
        signature: found.signature,
        bisect: bisected.as_deref(),
        auxiliaries: &beside.files,
        duplicates: found.duplicates,
        stopped: done.stopped,
    }
    .markdown();
    crate::output::write_atomically(&outputs.report, markdown.as_bytes(), None).map_err(|e| {
        let context = format!("cannot write `{}`", shown(&outputs.report));
        Error::caused(Exit::Failure, context, e)
    })?;
    Ok(Message::IceReported {
        mcve: done.output.clone(),
        report: outputs.report.clone(),
        command: beside.command.clone(),
        auxiliaries: (beside.files.iter())
            .map(|a| AuxiliaryCrate {
                source: a.path.clone(),
                command: a.command.clone(),
            })
            .collect(),
    })
}

/// `--bisect`'s result, or a warning why there is none.
fn bisected(scratch: &bisect::Scratch<'_>, events: &dyn Events) -> Option<String> {
    bisect::bisect(scratch)
        .map_err(|e| {
            events.emit(&Message::Warning {
                message: e.to_string(),
            })
        })
        .ok()
}

/// The result's command line and its auxiliary crates, each naming the
/// libraries of the build it still needs as copies in `deps`
/// ([`artifacts::keep_beside`]).
fn kept_beside(
    reduced: &IceReduced,
    subject: &IceSubject,
    deps: &Path,
) -> Result<(RustcArgs, Vec<auxiliary::Auxiliary>), Error> {
    let mut auxiliaries = reduced.auxiliaries.clone();
    let commands: Vec<RustcArgs> = std::iter::once(reduced.command.clone())
        .chain(auxiliaries.iter().map(|a| a.invocation.clone()))
        .collect();
    let kept = artifacts::keep_beside(&commands, &subject.compiled, &subject.temporary, deps)
        .map_err(|e| Error::caused(Exit::Failure, format!("cannot write `{}`", shown(deps)), e))?;
    let mut kept = kept.into_iter();
    let invocation = kept.next().expect("the MCVE's command");
    for (auxiliary, command) in auxiliaries.iter_mut().zip(kept) {
        auxiliary.invocation = command;
    }
    Ok((invocation, auxiliaries))
}

/// Writes each auxiliary crate's source beside `mcve`
/// ([`auxiliary::path_beside`]), atomically.
fn write_auxiliaries(
    auxiliaries: &[auxiliary::Auxiliary],
    mcve: &Path,
    deps: &Path,
) -> Result<Vec<report::AuxiliaryFile>, Error> {
    auxiliaries
        .iter()
        .map(|a| {
            let path = auxiliary::path_beside(mcve, a);
            Destination::check(&path)?;
            crate::output::write_atomically(&path, &a.text, None).map_err(|e| {
                Error::caused(Exit::Failure, format!("cannot write `{}`", shown(&path)), e)
            })?;
            let file_name = path
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned());
            Ok(report::AuxiliaryFile {
                command: a.invocation.relative_to(deps).display(&file_name),
                code: String::from_utf8_lossy(&a.text).into_owned(),
                file_name,
                path,
            })
        })
        .collect()
}

/// The `ice-found` message.
fn found(crash: &Crash) -> Message {
    let inv = &crash.invocation;
    Message::IceFound {
        krate: inv.crate_name(),
        command: inv.display(&inv.args[inv.source]),
        location: crash.signature.location.clone(),
        message: crash.signature.message.clone(),
        queries: crash.signature.queries.clone(),
    }
}

/// The command line the reduction uses: the MCVE's minimal one when the
/// flattened crate crashes the same way with it (no dependencies, no
/// cargo environment), else cargo's own.
fn command_line(
    crash: &Crash,
    flat: &[u8],
    rustc: &dyn Fn(RustcArgs) -> Rustc,
    level: Match,
) -> Result<RustcArgs, Error> {
    let minimal = crash.invocation.minimal();
    let never = Limits::none();
    let run = rustc(minimal.clone())
        .run(flat, &Cancel::by_limits(&never))
        .map_err(cannot_run)?;
    let same = run.signature().is_some_and(|s| {
        let spelled = Spelled::of(flat);
        s.matches(&crash.signature, level, &|w| spelled.contains(w))
    });
    Ok(match same {
        true => minimal,
        false => crash.invocation.clone(),
    })
}

/// The error when rustc cannot run at all.
fn cannot_run(e: std::io::Error) -> Error {
    Error::caused(Exit::Environment, "cannot run rustc", e)
}

/// `cargo reduce ice FILE.rs -- ARGS`: rustc on FILE, in a private
/// directory.
fn single_file(file: &Path, request: &IceRequest, cancel: &Cancel<'_>) -> Result<Crash, Error> {
    let bytes = std::fs::read(file).map_err(|e| {
        let context = format!("cannot read `{}`", shown(file));
        Error::caused_with_hint(Exit::BadInput, context, e, "check the path")
    })?;
    let absolute = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    let mut args: Vec<String> = match request.rustc_args.is_empty() {
        true => DEFAULT_RUSTC_ARGS.iter().map(|a| a.to_string()).collect(),
        false => request.rustc_args.clone(),
    };
    args.push(absolute.display().to_string());
    let invocation = RustcArgs {
        program: std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()),
        source: args.len() - 1,
        args,
        env: Vec::new(),
        cwd: absolute.parent().unwrap_or(Path::new("/")).to_path_buf(),
    };
    let name = invocation.crate_name();
    let rustc = Rustc::new(
        invocation.clone(),
        format!("{name}.rs"),
        request.timeout.unwrap_or(FIRST_TIMEOUT),
        request.memory,
        request.incremental,
    );
    let run = rustc.run(&bytes, cancel).map_err(cannot_run)?;
    match run.signature() {
        Some(signature) => Ok(Crash {
            signature,
            invocation,
            compiled: Vec::new(),
        }),
        None => Err(Error::new(
            Exit::NotInteresting,
            format!(
                "`{}` does not crash rustc ({}{}): there is no ICE to reduce; {}",
                shown(file),
                run.status,
                run.first_error()
                    .map_or_else(String::new, |e| format!(": {e}")),
                no_ice_hint(&run),
            ),
        )),
    }
}

/// What to try when a file gives no ICE: a nightly toolchain for a
/// `#![feature]` on stable (E0554), else the arguments rustc needs.
fn no_ice_hint(run: &RustcRun) -> &'static str {
    match run.stderr.contains("error[E0554]") {
        true => "it uses `#![feature]`: run `cargo +nightly reduce ice`",
        false => "give the rustc arguments it needs after `--` (edition, crate type, flags)",
    }
}

/// Whether `rustc`, run with `RUST_BACKTRACE=0`, prints `expected` (a
/// delayed bug) without the `note: delayed at` that locates it, as newer
/// compilers do: the reduction then runs with backtraces. One compilation of
/// `source` tells.
fn quiet_loses_location(
    rustc: &Rustc,
    expected: &Signature,
    source: &[u8],
    limits: &Limits,
) -> Result<bool, Error> {
    if expected.kind != Kind::DelayedBug {
        return Ok(false);
    }
    let mut quiet = rustc.with_invocation(rustc.invocation.clone());
    quiet.backtraces = false;
    let run = quiet
        .run(source, &Cancel::by_limits(limits))
        .map_err(cannot_run)?;
    Ok(unlocated(&run.stderr))
}

/// Whether rustc's standard error `stderr` shows an ICE that cannot be
/// read as a signature (a delayed bug without its location).
fn unlocated(stderr: &str) -> bool {
    Signature::parse(stderr).is_none() && stderr.contains("error: internal compiler error: ")
}

#[cfg(test)]
mod tests {
    use super::unlocated;

    /// rustc 1.95 keeps a delayed bug's `note: delayed at` under
    /// `RUST_BACKTRACE=0`; a 2026 nightly drops it, so the reduction of
    /// such an ICE needs backtraces.
    #[test]
    fn a_delayed_bug_without_its_location_needs_backtraces() {
        assert!(!unlocated(include_str!("testdata/delayed-quiet-1.95.txt")));
        assert!(unlocated(include_str!(
            "testdata/delayed-quiet-nightly.txt"
        )));
        assert!(!unlocated("error[E0308]: mismatched types\n"));
    }
}
