//! Exit codes and the errors that map to them.
//!
//! Every failure a user can cause has its own exit code, so scripts and CI
//! can tell "your input is wrong" from "your test command is wrong" from
//! "your test is flaky" without parsing messages.

use std::fmt;

/// The process exit status of `cargo reduce`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Done.
    Success = 0,
    /// An unexpected failure (I/O and the like).
    Failure = 1,
    /// Bad command-line usage (clap's code).
    Usage = 2,
    /// The input is missing, a directory, empty or unreadable; or no fuzz
    /// crate or artifact was found.
    BadInput = 3,
    /// The test command is missing or cannot run.
    BadCommand = 4,
    /// The test command does not find the input interesting (an artifact
    /// does not reproduce).
    NotInteresting = 5,
    /// The test command hangs on the input.
    TimedOut = 6,
    /// The test command (or fuzz target) disagrees with itself.
    Flaky = 7,
    /// The fuzz crate does not build against the libfuzzer-sys stand-in.
    BuildFailed = 8,
    /// Another cargo-reduce run is writing the same output.
    OutputBusy = 9,
    /// The environment is unusable: the temporary directory cannot be
    /// written (TMPDIR), or a test removed cargo-reduce's own files.
    Environment = 10,
    /// `cargo reduce ci` found a failure the ledger does not have.
    NewFailures = 11,
    /// `cargo reduce ci --fail-on known` found failures, all in the ledger.
    KnownFailures = 12,
    /// The fuzz crate has no lock and cargo cannot resolve its
    /// dependencies (before anything is built).
    ResolveFailed = 13,
    /// Ctrl-C: the best result so far was written.
    Interrupted = 130,
}

impl Exit {
    /// The numeric status.
    pub fn code(self) -> i32 {
        self as i32
    }

    /// The status of a run that already has `self`, after `other`: the
    /// first failure wins.
    pub fn or(self, other: Exit) -> Exit {
        if self == Exit::Success {
            other
        } else {
            self
        }
    }
}

/// The exit codes, as `--help` lists them (a test keeps this in step with
/// [`Exit`]).
pub const EXIT_CODES: &str = "\
Exit codes:
    0  done
    1  unexpected failure (I/O…); a finished result that could not be written is saved elsewhere
    2  usage error: unknown option, target or package; an output that cannot be written
    3  bad input: missing, directory or empty INPUT; no fuzz crate; missing artifact
    4  the test command is missing or cannot run
    5  INPUT is not interesting / an artifact does not reproduce
    6  the test command times out on INPUT
    7  flaky: the test disagrees with itself
    8  the fuzz crate does not build against the stand-in
    9  another cargo-reduce run is writing the same output
   10  the environment is unusable: TMPDIR cannot be written, or a test removed cargo-reduce's files
   11  ci: a new failure (not in the regression ledger)
   12  ci --fail-on known: failures, all of them in the ledger
   13  the fuzz crate has no Cargo.lock and cargo cannot resolve its dependencies
  130  interrupted; the best result so far was written";

/// An error for the user: one line, and the exit status it ends with.
#[derive(Debug, Clone)]
pub struct Error {
    /// The exit status.
    pub exit: Exit,
    /// What went wrong, which file, what to do.
    pub message: String,
}

impl Error {
    /// An error with exit status `exit`.
    pub fn new(exit: Exit, message: impl Into<String>) -> Self {
        Error {
            exit,
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl From<crate::output::OutputError> for Error {
    /// An output that cannot be written is a wrong argument, refused
    /// before anything runs.
    fn from(e: crate::output::OutputError) -> Self {
        Error::new(Exit::Usage, e.to_string())
    }
}

impl From<crate::command::CommandError> for Error {
    fn from(e: crate::command::CommandError) -> Self {
        Error::new(command_exit(&e), e.to_string())
    }
}

/// The exit status for a test command's error: the command's own problems
/// are [`Exit::BadCommand`]; an unusable temporary directory
/// (`CommandError::TempDir`, the environment's problem) is
/// [`Exit::Environment`]; a failed wait is [`Exit::Failure`].
pub fn command_exit(e: &crate::command::CommandError) -> Exit {
    use crate::command::CommandError as C;
    match e {
        C::Missing | C::NotFound(_) | C::NotExecutable(_) | C::Spawn { .. } => Exit::BadCommand,
        C::TempDir { .. } => Exit::Environment,
        C::Wait(_) => Exit::Failure,
    }
}

impl From<crate::fuzz::project::DiscoveryError> for Error {
    /// Wrong names on the command line are usage errors; a project, fuzz
    /// crate or artifact that is not there is bad input.
    fn from(error: crate::fuzz::project::DiscoveryError) -> Self {
        use crate::fuzz::project::DiscoveryError as D;
        let exit = match &error {
            D::UnknownPackage { .. } | D::UnknownTarget { .. } | D::NoTarget { .. } => Exit::Usage,
            D::ArtifactMissing { .. }
            | D::NoFuzzCrate { .. }
            | D::NoManifest { .. }
            | D::ManifestMissing { .. }
            | D::AflOutMissing { .. }
            | D::NotAflOutput { .. } => Exit::BadInput,
            _ => Exit::Failure,
        };
        Error::new(exit, error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_lists_every_exit_code() {
        for exit in [
            Exit::Success,
            Exit::Failure,
            Exit::Usage,
            Exit::BadInput,
            Exit::BadCommand,
            Exit::NotInteresting,
            Exit::TimedOut,
            Exit::Flaky,
            Exit::BuildFailed,
            Exit::OutputBusy,
            Exit::Environment,
            Exit::NewFailures,
            Exit::KnownFailures,
            Exit::ResolveFailed,
            Exit::Interrupted,
        ] {
            let line = format!("\n{:>5}  ", exit.code());
            assert!(EXIT_CODES.contains(&line), "{exit:?} missing");
        }
    }
    use crate::fuzz::project::DiscoveryError;
    use std::path::PathBuf;

    #[test]
    fn discovery_errors_map_to_exit_codes() {
        let exit = |e: DiscoveryError| Error::from(e).exit;
        let path = PathBuf::from("x");
        assert_eq!(
            exit(DiscoveryError::ArtifactMissing { path: path.clone() }),
            Exit::BadInput
        );
        assert_eq!(
            exit(DiscoveryError::NoTarget { path: path.clone() }),
            Exit::Usage
        );
        assert_eq!(
            exit(DiscoveryError::NoManifest { start: path }),
            Exit::BadInput
        );
    }
}
