//! Exit codes and the errors that map to them.
//!
//! Every failure a user can cause has its own exit code, so scripts and CI
//! can tell "your input is wrong" from "your test command is wrong" from
//! "your test is flaky" without parsing messages.

use std::fmt;

/// The exit codes are part of the output contract: defined once, in
/// `cargo-reduce-messages`, with the text `--help` lists
/// ([`Exit::help`]).
pub(crate) use cargo_reduce_messages::Exit;

/// An error for the user: one line, and the exit status it ends with.
#[derive(Debug, Clone)]
pub(crate) struct Error {
    /// The exit status.
    pub exit: Exit,
    /// What went wrong, which file, what to do.
    pub message: String,
}

impl Error {
    /// An error with exit status `exit`.
    pub(crate) fn new(exit: Exit, message: impl Into<String>) -> Self {
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
pub(crate) fn command_exit(e: &crate::command::CommandError) -> Exit {
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
