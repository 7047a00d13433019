//! Errors of the worker pool (running targets) and of the patched build.

use std::io;
use std::path::PathBuf;
use std::process::ExitStatus;

use super::failure::Failure;

/// Why the pool could not run a test.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum PoolError {
    /// A worker process could not be started.
    #[error("cannot start worker {}: {source}", binary.display())]
    Spawn {
        /// The fuzz target binary.
        binary: PathBuf,
        /// What failed.
        source: io::Error,
    },
    /// The target's `init:` code panicked.
    #[error("the fuzz target's init code failed: {0}")]
    InitFailed(Failure),
    /// A worker died before it was ready, or kept dying without running tests.
    #[error("worker died ({status}) without running a test; its stderr ends with:\n{stderr}")]
    WorkerDied {
        /// Its exit status.
        status: ExitStatus,
        /// The end of its stderr.
        stderr: String,
    },
    /// A worker exited successfully before running a test: its binary runs
    /// no fuzz target (its `fuzz_target!` compiled out, or a plain program).
    #[error("the target exited ({status}) without running a test: its `fuzz_target!` is not compiled in (behind a `#[cfg]` or a feature that is off?) or it is no fuzz target")]
    NoFuzzTarget {
        /// Its exit status (a success).
        status: ExitStatus,
    },
    /// A worker did not finish its init code in time.
    #[error("worker did not start in time; its stderr ends with:\n{stderr}")]
    StartTimeout {
        /// The end of its stderr.
        stderr: String,
    },
    /// A worker broke the protocol (or is built against another harness).
    #[error("worker protocol error: {0}")]
    Protocol(String),
    /// The round was stopped by its [`StopFlag`](super::StopFlag).
    #[error("interrupted")]
    Interrupted,
    /// Shared memory, pipes or temporary files failed.
    #[error("worker pool I/O error: {0}")]
    Io(#[from] io::Error),
}

impl PoolError {
    /// A worker that died (`status`) without running a test; one that
    /// exited successfully runs no fuzz target at all.
    pub(crate) fn died(status: ExitStatus, stderr: String) -> Self {
        if status.success() {
            Self::NoFuzzTarget { status }
        } else {
            Self::WorkerDied { status, stderr }
        }
    }
}
