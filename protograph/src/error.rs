//! The library's error type.

use std::path::PathBuf;

/// Everything that can go wrong in discovery, learning and graph handling.
/// Messages are one line and say what failed; the CLI adds what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A graph or engine answer was not valid JSON of the expected shape.
    #[error("invalid JSON: {0}")]
    Json(#[source] serde_json::Error),
    /// A graph is inconsistent (dangling edge, unknown root, root mismatch).
    #[error("invalid graph: {0}")]
    Invalid(String),
    /// A snippet's expression is not in generated form.
    #[error("snippet not in generated form: {0}")]
    Snippet(String),
    /// An engine could not be started.
    #[error("cannot run {engine}: {source}")]
    Spawn {
        /// The engine's name.
        engine: String,
        /// The underlying failure.
        #[source]
        source: std::io::Error,
    },
    /// The script threw or the engine exited with an error.
    #[error("{engine} failed: {message}")]
    Engine {
        /// The engine's name.
        engine: String,
        /// The first line of its error output.
        message: String,
    },
    /// The engine was not compiled in (e.g. `boa` without the `boa` feature).
    #[error("engine `{0}` is not available in this build")]
    Unavailable(String),
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying failure.
        #[source]
        source: std::io::Error,
    },
}
