//! What `cargo reduce ci` remembers between runs, in one folder that CI
//! caches can save and restore (`<target dir>/cargo-reduce/ci-cache`, or
//! `--cache-dir`): each input's replay outcome
//! ([`crate::job::replay_cache`]), and each minimization, keyed by the
//! failure's id and the input's content.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::fuzz::oracle::OtherFailure;
use crate::job::replay_cache::Cached;
use crate::output::write_if_changed;

/// A minimization remembered: the bytes, whether they are 1-minimal, and
/// the other failures it ran into (a run that takes it from the cache
/// reports them as the run that made it did).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Minimized {
    /// The reduced bytes.
    #[serde(skip)]
    pub bytes: Vec<u8>,
    /// Whether they are 1-minimal.
    pub minimal: bool,
    /// A typed target's value, as its `Debug` form.
    pub debug: Option<String>,
    /// One input of each other failure its candidates ran into.
    #[serde(default)]
    pub others: Vec<OtherInput>,
}

/// An input of another failure, as the cache keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct OtherInput {
    failure: Cached,
    bytes: Vec<u8>,
}

impl OtherInput {
    /// `other` as the cache keeps it.
    pub(super) fn of(other: &OtherFailure) -> OtherInput {
        OtherInput {
            failure: Cached::of(&other.failure),
            bytes: other.bytes.clone(),
        }
    }

    /// The failure and its input (`None`: a kind this build does not know).
    pub(super) fn other(&self) -> Option<OtherFailure> {
        Some(OtherFailure {
            failure: self.failure.failure()?,
            bytes: self.bytes.clone(),
        })
    }
}

/// Where the minimization of `input_hash` for failure `id` of `target` is
/// kept.
pub(super) fn minimized_path(dir: &Path, target: &str, id: &str, input_hash: &str) -> PathBuf {
    dir.join("minimized")
        .join(target)
        .join(format!("{id}-{input_hash}"))
}

/// The minimization kept at `path`, if any.
pub(super) fn load_minimized(path: &Path) -> Option<Minimized> {
    let bytes = fs::read(path).ok()?;
    let meta = fs::read(meta_path(path)).ok()?;
    let mut minimized: Minimized = serde_json::from_slice(&meta).ok()?;
    minimized.bytes = bytes;
    Some(minimized)
}

/// Keeps a minimization at `path`.
pub(super) fn save_minimized(path: &Path, minimized: &Minimized) -> io::Result<()> {
    write_if_changed(path, &minimized.bytes)?;
    let meta = serde_json::to_vec(minimized).map_err(io::Error::other)?;
    write_if_changed(&meta_path(path), &meta).map(drop)
}

fn meta_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".json");
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::pool::{Failure, FailureKind};

    #[test]
    fn minimizations_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = minimized_path(dir.path(), "t", "0badcafe", "00ff");
        assert_eq!(load_minimized(&path), None);
        let other = OtherFailure {
            failure: Failure::new(FailureKind::Signal(6), "killed by SIGABRT"),
            bytes: b"xyz".to_vec(),
        };
        let kept = Minimized {
            bytes: b"AB".to_vec(),
            minimal: true,
            debug: None,
            others: vec![OtherInput::of(&other)],
        };
        save_minimized(&path, &kept).unwrap();
        let loaded = load_minimized(&path).unwrap();
        assert_eq!(loaded.others[0].other(), Some(other));
        assert_eq!(loaded, kept);
    }
}
