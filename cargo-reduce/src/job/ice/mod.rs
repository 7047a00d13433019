//! `ice` mode: from a build that crashes rustc (an internal compiler
//! error) to an MCVE and an issue-ready report, with no oracle to write.
//!
//! The user's build runs as it would ([`cargo_build`]), and its output names
//! the ICE ([`signature`]) and the crate's rustc command line
//! ([`invocation`]). The crate becomes one file ([`flatten`]), which must
//! crash rustc the same way three times; then rustc's own unused-item
//! warnings delete what they can ([`prune`]), the syntax reducer does the
//! rest with the ICE's signature as the oracle ([`oracle`], [`subject`]),
//! rustfmt tidies the result if the ICE stays, and the command line loses
//! the flags the result does not need ([`flags`]); a dependency the result
//! still needs is taken into it and the result reduced again
//! ([`dependencies`]), or, when that loses the ICE, built beside it from
//! its reduced source ([`auxiliary`]). `NAME.ice.rs`, an auxiliary's
//! `NAME.ice.DEP.rs`, the libraries the command still names
//! ([`artifacts`]) and `NAME.ice.md` ([`report`]) are written atomically,
//! outside the user's tree unless `-o` says where; nothing is written
//! into it.

mod artifacts;
mod auxiliary;
mod bisect;
mod cargo_build;
mod dependencies;
mod edition2015;
mod flags;
mod flatten;
mod includes;
mod invocation;
mod oracle;
mod prune;
mod readable;
mod report;
mod shared_names;
pub(crate) mod signature;
mod source;
mod subject;

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::message::AuxiliaryCrate;
use super::{Events, Job, Message, Settings};
use crate::engine::{Cancel, Limits, StopReason};
use crate::error::{Error, Exit};
use crate::output::{shown, Destination};
pub(crate) use cargo_build::BuildSpec;
use cargo_build::Crash;
use invocation::Invocation;
use oracle::{IceOracle, Rustc};
use signature::{Kind, Match, Signature, Spelled};
use subject::IceSubject;
pub(crate) use subject::Steps;

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
    /// Pruning and formatting.
    pub(crate) steps: Steps,
}

/// rustc's arguments for FILE when none are given.
pub(crate) const DEFAULT_RUSTC_ARGS: &[&str] = &["--edition", "2021", "--crate-type", "lib"];

/// Timeout of the runs before the reduction sets its own.
const FIRST_TIMEOUT: Duration = Duration::from_secs(300);

/// Finds the ICE, reduces it, and writes the MCVE and its report.
pub(crate) fn run(
    request: &IceRequest,
    settings: &Settings,
    events: &dyn Events,
) -> Result<Exit, Error> {
    super::check_temp_dir()?;
    // Before the build, which may take minutes: `-o`'s directory exists.
    if let Some(path) = &request.output {
        Destination::check(path)?;
    }
    let scratch = tempfile::Builder::new()
        .prefix("cargo-reduce-ice-")
        .tempdir()
        .map_err(|e| Error::caused(Exit::Environment, "cannot make a temporary directory", e))?;
    let interrupt = Limits::none().with_interrupt(settings.interrupt.clone());
    let crash = match &request.file {
        Some(file) => single_file(file, request, &Cancel::by_limits(&interrupt))?,
        None => cargo_build::run(&request.build, scratch.path())?,
    };
    events.emit(&found(&crash));
    let root = crash.invocation.source_path();
    let sources = includes::Sources {
        env: crash.invocation.env.clone(),
        temporary: Some(scratch.path().to_path_buf()),
    };
    let flat = flatten::flatten(&root, &sources)
        .map_err(|e| Error::caused(Exit::BadInput, "cannot make the crate one file", e))?;
    let name = crash.invocation.crate_name();
    let (mcve, report_path) = output_paths(request, &name)?;
    let destination = Destination::check(&mcve)?;
    Destination::check(&report_path)?;
    let rustc = |invocation: Invocation| {
        Rustc::new(
            invocation,
            format!("{name}.rs"),
            request.timeout.unwrap_or(FIRST_TIMEOUT),
            request.memory,
            request.incremental,
        )
    };
    let mut reducing = rustc(command_line(&crash, flat.as_bytes(), &rustc, request.level));
    // Every query frame only where they are all compared, and where a
    // delayed bug's location needs them.
    reducing.backtraces = request.level == Match::Strict
        || quiet_loses_location(&reducing, &crash.signature, flat.as_bytes(), &interrupt);
    let oracle = IceOracle {
        rustc: reducing,
        expected: crash.signature.clone(),
        level: request.level,
        spelled: Spelled::of(flat.as_bytes()),
    };
    let mcve_name = mcve.file_name().map_or(format!("{name}.ice.rs"), |n| {
        n.to_string_lossy().into_owned()
    });
    let mut subject = IceSubject {
        command: oracle.rustc.invocation.display(&mcve_name),
        oracle,
        timeout: request.timeout,
        steps: request.steps,
        compiled: crash.compiled,
        temporary: scratch.path().to_path_buf(),
        final_command: std::sync::Mutex::new(None),
        auxiliaries: std::sync::Mutex::new(Vec::new()),
    };
    let job = Job {
        input: &root,
        bytes: flat.into_bytes(),
        output: &destination,
        partial: None,
        label: String::new(),
    };
    let done = super::reduce(&mut subject, job, settings, events)?;
    let code = std::fs::read_to_string(&done.output).unwrap_or_default();
    let deps = mcve.with_extension("deps");
    let (invocation, kept) = kept_beside(&subject, scratch.path(), &deps)?;
    subject.oracle.rustc.invocation = invocation;
    let auxiliaries = write_auxiliaries(&kept, &mcve, &deps)?;
    let built_beside = auxiliary::as_built_beside(&subject.oracle.rustc.invocation, &kept);
    let command = artifacts::shown_relative(&built_beside, &deps).display(&mcve_name);
    // The report shows rustc's output as the user's environment has it.
    subject.oracle.rustc.backtraces = true;
    let last = subject
        .oracle
        .rustc
        .run(code.as_bytes(), &Cancel::by_limits(&interrupt))
        .map_err(|e| Error::caused(Exit::Environment, "cannot run rustc", e))?;
    let scratch = bisect::Scratch {
        code: &code,
        name: &name,
        edition: subject.oracle.rustc.invocation.edition(),
        auxiliaries: &kept,
    };
    let bisected = match request.bisect {
        true => match bisect::bisect(&scratch) {
            Ok(text) => Some(text),
            Err(e) => {
                events.emit(&Message::Warning {
                    message: e.to_string(),
                });
                None
            }
        },
        false => None,
    };
    let markdown = report::Report {
        code: &code,
        command: &command,
        version: &report::version(&subject.oracle.rustc.invocation.program),
        stderr: &last.stderr.replace(&format!("{name}.rs"), &mcve_name),
        signature: &last.signature().unwrap_or(crash.signature),
        bisect: bisected.as_deref(),
        auxiliaries: &auxiliaries,
    }
    .markdown();
    crate::output::write_atomically(&report_path, markdown.as_bytes(), None).map_err(|e| {
        Error::caused(
            Exit::Failure,
            format!("cannot write `{}`", shown(&report_path)),
            e,
        )
    })?;
    events.emit(&Message::IceReported {
        mcve: done.output.clone(),
        report: report_path,
        command,
        auxiliaries: auxiliaries
            .into_iter()
            .map(|a| AuxiliaryCrate {
                source: a.path,
                command: a.command,
            })
            .collect(),
    });
    Ok(match done.stopped {
        Some(StopReason::Interrupted) => Exit::Interrupted,
        _ => Exit::Success,
    })
}

/// The result's command line and its auxiliary crates, each naming the
/// libraries of the build it still needs as copies in `deps`
/// ([`artifacts::keep_beside`]).
fn kept_beside(
    subject: &IceSubject,
    temporary: &Path,
    deps: &Path,
) -> Result<(Invocation, Vec<auxiliary::Auxiliary>), Error> {
    let mut auxiliaries = subject.auxiliaries();
    let commands: Vec<Invocation> = std::iter::once(subject.final_command())
        .chain(auxiliaries.iter().map(|a| a.invocation.clone()))
        .collect();
    let kept = artifacts::keep_beside(&commands, &subject.compiled, temporary, deps)
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
                command: artifacts::shown_relative(&a.invocation, deps).display(&file_name),
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
    rustc: &dyn Fn(Invocation) -> Rustc,
    level: Match,
) -> Invocation {
    let minimal = crash.invocation.minimal();
    let never = Limits::none();
    let same = rustc(minimal.clone())
        .run(flat, &Cancel::by_limits(&never))
        .ok()
        .and_then(|run| run.signature())
        .is_some_and(|s| {
            let spelled = Spelled::of(flat);
            s.matches(&crash.signature, level, &|w| spelled.contains(w))
        });
    match same {
        true => minimal,
        false => crash.invocation.clone(),
    }
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
    let invocation = Invocation {
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
    let run = rustc
        .run(&bytes, cancel)
        .map_err(|e| Error::caused(Exit::Environment, "cannot run rustc", e))?;
    match run.signature() {
        Some(signature) => Ok(Crash {
            signature,
            invocation,
            compiled: Vec::new(),
        }),
        None => Err(Error::new(
            Exit::NotInteresting,
            format!(
                "`{}` does not crash rustc ({}): there is no ICE to reduce; give the rustc arguments it needs after `--`",
                shown(file),
                run.status
            ),
        )),
    }
}

/// `-o`'s path, or `NAME.ice.rs` in `$TMPDIR/cargo-reduce-ice/`; the
/// report is the same path ending in `.md`.
fn output_paths(request: &IceRequest, name: &str) -> Result<(PathBuf, PathBuf), Error> {
    let mcve = match &request.output {
        Some(path) => path.clone(),
        None => {
            let dir = std::env::temp_dir().join("cargo-reduce-ice");
            std::fs::create_dir_all(&dir).map_err(|e| {
                Error::caused(
                    Exit::Environment,
                    format!("cannot make `{}`", shown(&dir)),
                    e,
                )
            })?;
            dir.join(format!("{name}.ice.rs"))
        }
    };
    let report = mcve.with_extension("md");
    Ok((mcve, report))
}

/// Whether `rustc`, run with `RUST_BACKTRACE=0`, prints `expected` (a
/// delayed bug) without the `note: delayed at` that locates it, as newer
/// compilers do: the reduction then runs with backtraces. One compilation of
/// `source` tells; a run that cannot tell keeps the quiet default.
fn quiet_loses_location(
    rustc: &Rustc,
    expected: &Signature,
    source: &[u8],
    limits: &Limits,
) -> bool {
    if expected.kind != Kind::DelayedBug {
        return false;
    }
    let mut quiet = rustc.with_invocation(rustc.invocation.clone());
    quiet.backtraces = false;
    match quiet.run(source, &Cancel::by_limits(limits)) {
        Ok(run) => unlocated(&run.stderr),
        Err(_) => false,
    }
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
