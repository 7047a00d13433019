//! Exit codes and the errors that map to them.
//!
//! Every failure a user can cause has its own exit code, so scripts and CI
//! can tell "your input is wrong" from "your test command is wrong" from
//! "your test is flaky" without parsing messages.

use std::sync::Arc;

/// The exit codes are part of the output contract: defined once, in
/// `cargo-reduce-messages`, with the text `--help` lists
/// ([`Exit::help`]).
pub(crate) use cargo_reduce_messages::Exit;

/// What an [`Error`] keeps as its cause: any error, shared so that an
/// error can be reported twice (once per target it stopped).
pub(crate) type Cause = Arc<dyn std::error::Error + Send + Sync + 'static>;

/// An error for the user: one line ([`Error::line`], formatted once, by
/// the CLI) and the exit status it ends with ([`Error::exit`]). An error
/// with a cause keeps it as its [`source`](std::error::Error::source) and
/// leaves it out of its own `Display`, so that a reporter walking the
/// chain prints it once.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum Error {
    /// What went wrong, which file, what to do: the whole line.
    #[error("{message}")]
    Message {
        /// The exit status.
        exit: Exit,
        /// The line.
        message: String,
    },
    /// `context` could not be done because of `source`; the line is
    /// `context: source`.
    #[error("{context}")]
    Caused {
        /// The exit status.
        exit: Exit,
        /// What was being done (`cannot read input `x``).
        context: String,
        /// Why it failed.
        #[source]
        source: Cause,
    },
    /// The test command cannot be used or run.
    #[error(transparent)]
    Command(Arc<crate::command::CommandError>),
    /// An output cannot be written: a wrong argument, refused before
    /// anything runs.
    #[error(transparent)]
    Output(Arc<crate::output::OutputError>),
    /// Finding the fuzz crates, targets or artifacts failed.
    #[error(transparent)]
    Discovery(Arc<crate::fuzz::project::DiscoveryError>),
}

impl Error {
    /// An error with exit status `exit` and the whole line `message`.
    pub(crate) fn new(exit: Exit, message: impl Into<String>) -> Self {
        Error::Message {
            exit,
            message: message.into(),
        }
    }

    /// `context` failed because of `source` (kept as the source).
    pub(crate) fn caused(
        exit: Exit,
        context: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Error::Caused {
            exit,
            context: context.into(),
            source: Arc::new(source),
        }
    }

    /// The exit status this error ends with.
    pub(crate) fn exit(&self) -> Exit {
        match self {
            Error::Message { exit, .. } | Error::Caused { exit, .. } => *exit,
            Error::Command(e) => command_exit(e),
            Error::Output(_) => Exit::Usage,
            Error::Discovery(e) => discovery_exit(e),
        }
    }

    /// The one line the user reads: this error's text, and its cause's
    /// after a colon when it has one of its own (a typed error's text
    /// already says its cause).
    pub(crate) fn line(&self) -> String {
        match self {
            Error::Caused {
                context, source, ..
            } => format!("{context}: {source}"),
            _ => self.to_string(),
        }
    }
}

impl From<crate::output::OutputError> for Error {
    fn from(e: crate::output::OutputError) -> Self {
        Error::Output(Arc::new(e))
    }
}

impl From<crate::command::CommandError> for Error {
    fn from(e: crate::command::CommandError) -> Self {
        Error::Command(Arc::new(e))
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
    fn from(e: crate::fuzz::project::DiscoveryError) -> Self {
        Error::Discovery(Arc::new(e))
    }
}

/// Wrong names on the command line are usage errors; a project, fuzz
/// crate or artifact that is not there is bad input.
fn discovery_exit(error: &crate::fuzz::project::DiscoveryError) -> Exit {
    use crate::fuzz::project::DiscoveryError as D;
    match error {
        D::UnknownPackage { .. } | D::UnknownTarget { .. } | D::NoTarget { .. } => Exit::Usage,
        D::ArtifactMissing { .. }
        | D::NoFuzzCrate { .. }
        | D::NoManifest { .. }
        | D::ManifestMissing { .. }
        | D::AflOutMissing { .. }
        | D::NotAflOutput { .. } => Exit::BadInput,
        _ => Exit::Failure,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::fuzz::project::DiscoveryError;
    use std::path::PathBuf;

    #[test]
    fn discovery_errors_map_to_exit_codes() {
        let exit = |e: DiscoveryError| Error::from(e).exit();
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

    #[test]
    fn a_cause_is_the_source_and_is_printed_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory");
        let error = Error::caused(Exit::BadInput, "cannot read input `x`", io);
        assert_eq!(error.to_string(), "cannot read input `x`");
        let source = std::error::Error::source(&error).expect("the cause is the source");
        assert_eq!(source.to_string(), "No such file or directory");
        assert!(std::error::Error::source(source).is_none());
        assert_eq!(
            error.line(),
            "cannot read input `x`: No such file or directory"
        );
        assert_eq!(error.exit(), Exit::BadInput);
    }

    #[test]
    fn a_typed_error_keeps_its_own_source_chain() {
        let spawn = crate::command::CommandError::Spawn {
            command: "t".into(),
            source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        };
        let error = Error::from(spawn);
        assert_eq!(error.exit(), Exit::BadCommand);
        assert!(std::error::Error::source(&error).is_some());
        assert_eq!(error.line(), error.to_string());
    }
}
