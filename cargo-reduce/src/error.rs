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
    /// Ctrl-C: the best result so far was written.
    Interrupted = 130,
}

impl Exit {
    /// The numeric status.
    pub fn code(self) -> i32 {
        self as i32
    }
}

/// An error for the user: one line, and the exit status it ends with.
#[derive(Debug)]
pub struct CliError {
    /// The exit status.
    pub exit: Exit,
    /// What went wrong, which file, what to do.
    pub message: String,
}

impl CliError {
    /// An error with exit status `exit`.
    pub fn new(exit: Exit, message: impl Into<String>) -> Self {
        CliError {
            exit,
            message: message.into(),
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CliError {}

impl From<anyhow::Error> for CliError {
    fn from(e: anyhow::Error) -> Self {
        CliError::new(Exit::Failure, format!("{e:#}"))
    }
}

impl From<crate::command::CommandError> for CliError {
    fn from(e: crate::command::CommandError) -> Self {
        CliError::new(command_exit(&e), e.to_string())
    }
}

/// The exit status for a test command's error: the command's own problems
/// are [`Exit::BadCommand`]; an unusable temporary directory
/// (`CommandError::TempDir`, the environment's problem) and a failed wait
/// are [`Exit::Failure`] for now.
pub fn command_exit(e: &crate::command::CommandError) -> Exit {
    use crate::command::CommandError as C;
    match e {
        C::Missing | C::NotFound(_) | C::NotExecutable(_) | C::Spawn { .. } => Exit::BadCommand,
        C::TempDir { .. } | C::Wait(_) => Exit::Failure,
    }
}

impl From<crate::fuzz::project::DiscoveryError> for CliError {
    /// Wrong names on the command line are usage errors; a project, fuzz
    /// crate or artifact that is not there is bad input.
    fn from(error: crate::fuzz::project::DiscoveryError) -> Self {
        use crate::fuzz::project::DiscoveryError as D;
        let exit = match &error {
            D::UnknownPackage { .. } | D::UnknownTarget { .. } | D::NoTarget { .. } => Exit::Usage,
            D::ArtifactMissing { .. }
            | D::NoFuzzCrate { .. }
            | D::NoManifest { .. }
            | D::ManifestMissing { .. } => Exit::BadInput,
            _ => Exit::Failure,
        };
        CliError::new(exit, error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::project::DiscoveryError;
    use std::path::PathBuf;

    #[test]
    fn discovery_errors_map_to_exit_codes() {
        let exit = |e: DiscoveryError| CliError::from(e).exit;
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
