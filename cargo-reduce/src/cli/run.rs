//! `cargo reduce run ARTIFACT`: the arguments, handed to [`crate::job::run`]
//! as a request; then the status lines, the typed value, and the binary
//! (or the debugger) started in place of cargo-reduce.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use super::options::SelectOptions;
use super::render::Reporter;
use crate::error::{Error, Exit};
use crate::fuzz::sanitizer::Sanitizer;
use crate::job::run::{self, Debugger, Ended, RunRequest};

/// Arguments of `cargo reduce run`. `--out-dir` is refused (the front
/// ends build in the tree), so it is not offered in `--help`.
#[derive(Debug, Clone, Args)]
#[command(mut_arg("out_dir", |arg| arg.hide(true)))]
pub(crate) struct RunArgs {
    /// The input: an artifact under `artifacts/<target>/`, an AFL++ crash
    /// or hang, or any file with --fuzz-target.
    #[arg(value_name = "ARTIFACT")]
    pub artifact: PathBuf,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub select: SelectOptions,
    /// The build's sanitizer: `auto` is the front end's default (`cargo
    /// fuzz build`: AddressSanitizer; `cargo afl build`: none), `address`
    /// or `none` ask for it (`cargo fuzz build --sanitizer`) [default:
    /// auto].
    #[arg(long, value_enum, value_name = "WHICH")]
    pub sanitizer: Option<Sanitizer>,
    /// The input runs at most this long, then fails as a timeout:
    /// libFuzzer's -timeout; an afl.rs binary is ended [default: a timeout
    /// artifact (an AFL++ hang, or a reduction of one) as `cargo reduce`
    /// reproduces it: the target's `timeout` setting, else 1 s; an AFL
    /// hang's instance's exec_timeout; other inputs: no limit].
    #[arg(long, value_name = "SECS", value_parser = super::options::parse_seconds, allow_negative_numbers = true)]
    pub timeout: Option<Duration>,
    /// Start the binary under this debugger (gdb, lldb, or rr to record).
    #[arg(long, value_enum, value_name = "DEBUGGER")]
    pub debugger: Option<Debugger>,
    /// Options for the debugger, before the program (`-- -batch -ex run
    /// -ex bt`); only with --debugger.
    #[arg(last = true, value_name = "DEBUGGER_ARGS", requires = "debugger")]
    pub debugger_args: Vec<OsString>,
}

impl RunArgs {
    fn request(&self) -> RunRequest {
        RunRequest {
            artifact: self.artifact.clone(),
            selection: self.select.selection(),
            sanitizer: self.sanitizer,
            timeout: self.timeout,
            debugger: self.debugger,
            debugger_args: self.debugger_args.clone(),
        }
    }
}

/// Runs `cargo reduce run`: on success it does not return (the program
/// replaced this process, or its status is this process's); an error is
/// cargo-reduce's own.
pub(crate) fn run(
    args: &RunArgs,
    reporter: &Reporter,
    interrupt: Arc<AtomicBool>,
) -> Result<Exit, Error> {
    let request = args.request();
    let located = run::locate(&request)?;
    reporter.status("Building", located.build_line());
    let binary = located.build(reporter.is_quiet() || reporter.is_json())?;
    let settings = super::ci::settings(1, interrupt);
    if let Some(value) = located.debug_value(&settings, reporter)? {
        if !reporter.is_quiet() {
            eprintln!(
                "{} as the target sees it:\n{value}",
                located.input.display()
            );
        }
    }
    let launch = run::launch(&located, &binary, &request);
    reporter.status("Running", launch.display());
    let cannot_start = |error| {
        Error::caused(
            Exit::ToolMissing,
            format!("cannot start `{}`", launch.program.to_string_lossy()),
            error,
        )
    };
    if !launch.waits {
        return Err(cannot_start(launch.exec()));
    }
    match launch.wait().map_err(cannot_start)? {
        Ended::Exited(code) => std::process::exit(code),
        Ended::Signaled(signal) => exit_as_signaled(signal),
        Ended::TimedOut(after) => {
            reporter.status(
                "Timed out",
                format!("still running after {after:.0?}, the input's timeout (--timeout sets another); ended"),
            );
            std::process::exit(TIMEOUT_EXIT)
        }
        Ended::Paused => {
            reporter.status(
                "Stopped",
                "the program stopped itself after the input (SIGSTOP: afl.rs's `fuzz!` loop before 0.17.1 waits there for afl-fuzz's next input), so the input ran through; it was ended",
            );
            std::process::exit(0)
        }
    }
}

/// The exit status of a program `run` ended at its timeout: libFuzzer's
/// for a timeout (`-timeout_exitcode`), so that both engines' timeouts
/// exit alike.
const TIMEOUT_EXIT: i32 = 70;

/// Ends this process as `signal` ended the program, so that the shell
/// shows it alike (e.g. "Aborted"); where cargo-reduce handles that signal
/// itself, with the shell's status for it, 128 + the signal.
fn exit_as_signaled(signal: i32) -> ! {
    use rustix::process::{getpid, kill_process, Signal};
    if let Some(signal) = Signal::from_named_raw(signal) {
        let _ = kill_process(getpid(), signal);
    }
    std::process::exit(128 + signal)
}
