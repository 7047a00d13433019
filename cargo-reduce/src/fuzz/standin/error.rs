//! Why a build against a stand-in failed.

use std::path::{Path, PathBuf};
use std::process::ExitStatus;

/// Why building against the harness failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum BuildError {
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// A manifest could not be read or understood.
    #[error("cannot read the manifest {}: {reason}", path.display())]
    Manifest {
        /// The manifest.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The fuzz crate has no lock (or one without the engine), and cargo
    /// cannot resolve its dependencies.
    #[error("cannot resolve the dependencies of {} (it has no Cargo.lock of its own, so cargo-reduce resolves one as `cargo fuzz build` would): {reason}; fix the manifest, or see `cargo generate-lockfile --manifest-path {}`", manifest.display(), manifest.display())]
    Resolve {
        /// The fuzz crate's manifest.
        manifest: PathBuf,
        /// cargo's error, on one line.
        reason: String,
    },
    /// A command could not be started.
    #[error("cannot run `{command}`: {source}")]
    Spawn {
        /// The command line.
        command: String,
        /// What failed.
        source: std::io::Error,
    },
    /// The lock file holds no `package`.
    #[error("{} locks no {package}; build the fuzz crate once (or run `cargo generate-lockfile`) so its lock pins {package}", lock.display())]
    NotLocked {
        /// The lock file.
        lock: PathBuf,
        /// The engine crate.
        package: &'static str,
    },
    /// The lock takes `package` from a path, and no package of the fuzz
    /// crate's workspace depends on it by that path: the stand-in cannot
    /// be patched in for a source it cannot name.
    #[error("{} gets {package} from a path that no package of its workspace names (a dependency's own path dependency): add `{package} = {{ path = \"…\" }}` to it so that cargo-reduce can replace that path, or depend on the crates.io release", manifest.display())]
    PathNotFound {
        /// The fuzz crate's manifest.
        manifest: PathBuf,
        /// The engine crate.
        package: &'static str,
    },
    /// The lock file holds several versions of `package`.
    #[error("{} locks several {package} versions: {}", lock.display(), versions.join(", "))]
    SeveralVersions {
        /// The lock file.
        lock: PathBuf,
        /// The engine crate.
        package: &'static str,
        /// The versions.
        versions: Vec<String>,
    },
    /// Cargo said the patch was not used: the build would link the real
    /// engine.
    #[error(
        "cargo did not use the {package} {harness} stand-in: {} locks {package} {locked}",
        lock.display()
    )]
    PatchNotUsed {
        /// The engine crate.
        package: &'static str,
        /// Version the harness was written with.
        harness: String,
        /// Version(s) in the lock file.
        locked: String,
        /// The lock file.
        lock: PathBuf,
    },
    /// Ctrl-C stopped the build.
    #[error("interrupted during the build; nothing was written")]
    Interrupted,
    /// A cargo command failed. Its command line (kilobytes of the
    /// shadow's paths and patches) comes last: the first line says what
    /// failed, the compiler's errors follow.
    #[error(
        "`{}` failed ({status}):\n{stderr}\n(the command was `{command}`)",
        subcommand(command)
    )]
    Cargo {
        /// The command line.
        command: String,
        /// Its exit status.
        status: ExitStatus,
        /// The end of its stderr.
        stderr: String,
    },
}

/// Why building the workers failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WorkerBuildError {
    /// The fuzz crate locks an engine version the stand-in does not
    /// implement.
    #[error("{} {package} {version}, which cargo-reduce does not support (its stand-in implements {supported}): in {} set {package} = \"{suggest}\", then run `cargo update -p {package}` if a Cargo.lock pins the old one", match lock { Some(lock) => format!("{} locks", lock.display()), None => format!("{} resolves to", manifest.display()) }, manifest.display())]
    Unsupported {
        /// The user's lock file; `None` when cargo-reduce resolved one for
        /// the run (then the manifest is what chose the version).
        lock: Option<PathBuf>,
        /// The fuzz crate's manifest, where the requirement is.
        manifest: PathBuf,
        /// The engine crate.
        package: &'static str,
        /// The versions the stand-in implements.
        supported: &'static str,
        /// The requirement to set instead.
        suggest: &'static str,
        /// The locked version.
        version: String,
    },
    /// Cargo or the harness failed.
    #[error(transparent)]
    Build(#[from] BuildError),
}

pub(super) fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> BuildError + '_ {
    move |source| BuildError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The program and subcommand of `command` (`cargo build`).
fn subcommand(command: &str) -> String {
    command.split(' ').take(2).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A version from the user's lock names the lock; one from a lock
    /// resolved for the run names the manifest, never the resolved file.
    #[test]
    fn an_unsupported_version_names_where_it_came_from() {
        let error = |lock: Option<&str>| {
            WorkerBuildError::Unsupported {
                lock: lock.map(PathBuf::from),
                manifest: PathBuf::from("fuzz/Cargo.toml"),
                package: "afl",
                supported: "0.2 to 0.18",
                suggest: "0.18",
                version: "0.1.5".into(),
            }
            .to_string()
        };
        assert!(error(Some("fuzz/Cargo.lock")).starts_with("fuzz/Cargo.lock locks afl 0.1.5, "));
        let resolved = error(None);
        assert!(
            resolved.starts_with("fuzz/Cargo.toml resolves to afl 0.1.5, "),
            "{resolved}"
        );
        assert!(resolved.contains("in fuzz/Cargo.toml set afl = \"0.18\""));
    }
}
