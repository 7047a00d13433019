//! `cargo reduce run ARTIFACT`: the arguments, handed to [`crate::job::run`]
//! as a request; then the status lines, the typed value, and the binary
//! (or the debugger) started in place of cargo-reduce.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use clap::Args;

use super::options::SelectOptions;
use super::render::Reporter;
use crate::error::{Error, Exit};
use crate::fuzz::sanitizer::Sanitizer;
use crate::job::run::{self, Debugger, RunRequest};

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
            debugger: self.debugger,
            debugger_args: self.debugger_args.clone(),
        }
    }
}

/// Runs `cargo reduce run`: on success it does not return (the program
/// replaced this process); an error is cargo-reduce's own.
pub(crate) fn run(
    args: &RunArgs,
    reporter: &Reporter,
    interrupt: Arc<AtomicBool>,
) -> Result<Exit, Error> {
    let request = args.request();
    let located = run::locate(&request)?;
    reporter.status("Building", located.build_line());
    let binary = located.build(reporter.is_quiet() || reporter.is_json())?;
    let settings = super::ci::settings(Some(1), interrupt);
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
    let error = launch.exec();
    Err(Error::caused(
        Exit::ToolMissing,
        format!("cannot start `{}`", launch.program.to_string_lossy()),
        error,
    ))
}
