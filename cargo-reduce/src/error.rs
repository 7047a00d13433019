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
/// error can be reported twice (once per target it stopped). Not an
/// `Arc` as such: an `Arc` of an error is an error of its own, which
/// would stand in the chain in the cause's place (its type hidden from
/// `downcast_ref`, its own source skipped to); through `Deref` the chain
/// holds the cause itself.
#[derive(Debug, Clone)]
pub(crate) struct Cause(Arc<dyn std::error::Error + Send + Sync + 'static>);

impl std::ops::Deref for Cause {
    type Target = dyn std::error::Error + Send + Sync + 'static;

    fn deref(&self) -> &Self::Target {
        &*self.0
    }
}

/// What [`Error::caused`] takes as a cause: whatever converts into a
/// boxed error (any error, an `OracleError`, a `String`).
pub(crate) type BoxedCause = Box<dyn std::error::Error + Send + Sync + 'static>;

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
    /// `context: source`, then `; hint` when there is a hint.
    #[error("{context}")]
    Caused {
        /// The exit status.
        exit: Exit,
        /// What was being done (`cannot read input `x``).
        context: String,
        /// Why it failed.
        #[source]
        source: Cause,
        /// What to do about it (`check its permissions`): advice the user
        /// reads after the cause, which is no part of the chain.
        hint: Option<String>,
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
    /// A fuzz artifact does not reproduce or is flaky, or the worker pool
    /// running it failed.
    #[error(transparent)]
    Artifact(Arc<crate::fuzz::shrink::ArtifactError>),
}

impl Error {
    /// An error with exit status `exit` and the whole line `message`.
    pub(crate) fn new(exit: Exit, message: impl Into<String>) -> Self {
        Error::Message {
            exit,
            message: message.into(),
        }
    }

    /// `context` failed because the worker pool did: a failure of the run,
    /// or Ctrl-C if the pool's stop flag ended it.
    pub(crate) fn of_pool(context: impl Into<String>, e: crate::fuzz::pool::PoolError) -> Self {
        Error::caused(pool_exit(&e), context, e)
    }

    /// `context` failed because of `source` (kept as the source): any
    /// error, an engine's boxed `OracleError`, or a message.
    pub(crate) fn caused(
        exit: Exit,
        context: impl Into<String>,
        source: impl Into<BoxedCause>,
    ) -> Self {
        Error::Caused {
            exit,
            context: context.into(),
            source: Cause(Arc::from(source.into())),
            hint: None,
        }
    }

    /// [`Error::caused`], with `hint` (what to do) after the cause:
    /// `context: source; hint`.
    pub(crate) fn caused_with_hint(
        exit: Exit,
        context: impl Into<String>,
        source: impl Into<BoxedCause>,
        hint: impl Into<String>,
    ) -> Self {
        let mut error = Error::caused(exit, context, source);
        if let Error::Caused { hint: slot, .. } = &mut error {
            *slot = Some(hint.into());
        }
        error
    }

    /// A file system operation on `path` failed: "cannot `what` `path`",
    /// exit 1.
    pub(crate) fn cannot(what: &str, path: &std::path::Path, source: std::io::Error) -> Self {
        Error::caused(
            Exit::Failure,
            format!("cannot {what} `{}`", path.display()),
            source,
        )
    }

    /// The exit status this error ends with.
    pub(crate) fn exit(&self) -> Exit {
        match self {
            Error::Message { exit, .. } | Error::Caused { exit, .. } => *exit,
            Error::Command(e) => command_exit(e),
            Error::Output(_) => Exit::Usage,
            Error::Discovery(e) => discovery_exit(e),
            Error::Artifact(e) => artifact_exit(e),
        }
    }

    /// The one line the user reads: this error's text, and its cause's
    /// after a colon when it has one of its own (a typed error's text
    /// already says its cause), then its hint after a semicolon.
    pub(crate) fn line(&self) -> String {
        match self {
            Error::Caused {
                context,
                source,
                hint: None,
                ..
            } => format!("{context}: {}", &**source),
            Error::Caused {
                context,
                source,
                hint: Some(hint),
                ..
            } => format!("{context}: {}; {hint}", &**source),
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

/// Wrong names on the command line, and wrong settings in a fuzz crate's
/// `[package.metadata.cargo-reduce]`, are usage errors; a project, fuzz
/// crate or artifact that is not there, or a manifest cargo cannot read,
/// is bad input.
fn discovery_exit(error: &crate::fuzz::project::DiscoveryError) -> Exit {
    use crate::fuzz::project::DiscoveryError as D;
    match error {
        D::UnknownPackage { .. }
        | D::UnknownTarget { .. }
        | D::NoTargetOfEngine { .. }
        | D::NoTarget { .. }
        | D::Settings { .. }
        | D::OutDir { .. }
        | D::OtherCrate { .. }
        | D::TargetForInput { .. } => Exit::Usage,
        D::ArtifactMissing { .. }
        | D::InputIsAFolder { .. }
        | D::NoFuzzCrate { .. }
        | D::NoManifest { .. }
        | D::ManifestMissing { .. }
        | D::NotAManifest { .. }
        | D::AflOutMissing { .. }
        | D::NotAflOutput { .. }
        | D::Metadata { .. } => Exit::BadInput,
        _ => Exit::Failure,
    }
}

impl From<crate::fuzz::shrink::ArtifactError> for Error {
    fn from(e: crate::fuzz::shrink::ArtifactError) -> Self {
        Error::Artifact(Arc::new(e))
    }
}

/// A pool that breaks is a failure of the run; one its stop flag ended,
/// Ctrl-C.
fn pool_exit(error: &crate::fuzz::pool::PoolError) -> Exit {
    match error {
        crate::fuzz::pool::PoolError::Interrupted => Exit::Interrupted,
        _ => Exit::Failure,
    }
}

/// An artifact that does not fail is not interesting; one that fails
/// only sometimes, or differently, is flaky; a pool's error is
/// [`pool_exit`]'s.
fn artifact_exit(error: &crate::fuzz::shrink::ArtifactError) -> Exit {
    use crate::fuzz::shrink::ArtifactError as A;
    match error {
        A::DoesNotReproduce { .. } => Exit::NotInteresting,
        A::Flaky { .. } | A::Unstable { .. } => Exit::Flaky,
        A::Pool(e) => pool_exit(e),
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
            exit(DiscoveryError::NoManifest {
                start: path.clone()
            }),
            Exit::BadInput
        );
        let settings = DiscoveryError::Settings {
            manifest: path,
            table: "package.metadata.cargo-reduce".into(),
            reason: "unknown field `timout`".into(),
        };
        assert_eq!(exit(settings), Exit::Usage);
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
    fn a_hint_follows_the_cause_and_is_no_part_of_the_chain() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "Permission denied");
        let error = Error::caused_with_hint(
            Exit::Usage,
            "cannot write `r.json`",
            io,
            "check the path and its permissions",
        );
        assert_eq!(error.to_string(), "cannot write `r.json`");
        assert_eq!(
            error.line(),
            "cannot write `r.json`: Permission denied; check the path and its permissions"
        );
        let source = std::error::Error::source(&error).expect("the cause is the source");
        assert_eq!(source.to_string(), "Permission denied");
        assert!(source.is::<std::io::Error>());
        assert!(std::error::Error::source(source).is_none());
        assert_eq!(error.exit(), Exit::Usage);
    }

    #[test]
    fn a_boxed_cause_is_the_source_itself_with_its_chain() {
        let wait = crate::command::CommandError::Wait(std::io::Error::from(
            std::io::ErrorKind::Interrupted,
        ));
        let boxed: crate::engine::OracleError = Box::new(wait);
        let error = Error::caused(Exit::Failure, "reducing `x` failed", boxed);
        let source = std::error::Error::source(&error).expect("the cause is the source");
        assert!(source.is::<crate::command::CommandError>(), "not wrapped");
        let io = std::error::Error::source(source).expect("the cause's own source");
        assert!(io.is::<std::io::Error>());
    }

    #[test]
    fn artifact_errors_map_to_exit_codes() {
        use crate::fuzz::shrink::ArtifactError;
        let path = PathBuf::from("crash-1");
        let exit = |e: ArtifactError| Error::from(e).exit();
        let missing = ArtifactError::DoesNotReproduce {
            path: path.clone(),
            hint: String::new(),
        };
        assert_eq!(exit(missing), Exit::NotInteresting);
        let flaky = ArtifactError::Flaky {
            path: path.clone(),
            what: "it failed once".into(),
        };
        assert_eq!(exit(flaky), Exit::Flaky);
        let seen = "a timeout".to_string();
        assert_eq!(exit(ArtifactError::Unstable { path, seen }), Exit::Flaky);
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
