//! Replay outcomes remembered between runs: each input's failure (or
//! that it passed), keyed by the target binary's content, cargo-reduce's
//! own, the limits it ran under and the input's content. An unchanged
//! input on an unchanged build is not run again: `cargo reduce ci` keeps
//! them in its cache folder, fuzz mode under
//! `<target dir>/cargo-reduce/replay`.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::fuzz::pool::{portable_location, Failure, FailureKind, OverflowDepth};
use crate::output::write_if_changed;

/// A failure as the cache keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(in crate::job) struct Cached {
    kind: String,
    message: Option<String>,
    location: Option<String>,
    call_path: Vec<String>,
    /// A stack overflow's depth, so that its minimization keeps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    overflow_depth: Option<OverflowDepth>,
    /// An allocation failure's request, so that its minimization keeps it
    /// no larger.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    alloc_request: Option<u64>,
}

impl Cached {
    pub(in crate::job) fn of(failure: &Failure) -> Cached {
        Cached {
            kind: failure.kind.tag(),
            message: failure.message.clone(),
            location: failure.location.clone(),
            call_path: failure.call_path.clone(),
            overflow_depth: failure.overflow_depth,
            alloc_request: failure.alloc_request,
        }
    }

    /// The failure kept (an absolute location, as a cache written before
    /// [`portable_location`] has, read as a run now names it).
    pub(in crate::job) fn failure(&self) -> Option<Failure> {
        Some(Failure {
            kind: FailureKind::from_tag(&self.kind)?,
            message: self.message.clone(),
            location: self.location.clone().map(portable_location),
            call_path: self.call_path.clone(),
            overflow_depth: self.overflow_depth,
            alloc_request: self.alloc_request,
        })
    }
}

/// The replay outcomes of one binary under one set of limits: input hash
/// → its failure (`None`: it passed).
#[derive(Debug, Default)]
pub(in crate::job) struct ReplayCache {
    path: Option<PathBuf>,
    outcomes: BTreeMap<String, Option<Cached>>,
    changed: bool,
}

impl ReplayCache {
    /// The outcomes of `binary` run under `limits` (any text that changes
    /// outcomes: `PoolOptions::outcome_key`), kept in `dir`; `None`: no
    /// cache. A missing or unreadable file is an empty cache. Outcomes are
    /// kept per build of cargo-reduce too: another may place or name a
    /// failure otherwise.
    pub(in crate::job) fn open(dir: Option<&Path>, binary: &Path, limits: &str) -> ReplayCache {
        let (Some(dir), Some(own)) = (dir, own_hash()) else {
            return ReplayCache::default();
        };
        let key = match file_hash(binary) {
            Ok(hash) => format!("{hash}-{own}-{limits}"),
            Err(_) => return ReplayCache::default(),
        };
        let path = dir.join("replay").join(format!("{key}.json"));
        let outcomes = fs::read(&path)
            .ok()
            .and_then(|text| serde_json::from_slice(&text).ok())
            .unwrap_or_default();
        ReplayCache {
            path: Some(path),
            outcomes,
            changed: false,
        }
    }

    /// The remembered outcome of the input with content `hash`: `None` if
    /// it was never run, `Some(None)` if it passed.
    pub(in crate::job) fn get(&self, hash: &str) -> Option<Option<Failure>> {
        let cached = self.outcomes.get(hash)?;
        match cached {
            None => Some(None),
            Some(failure) => failure.failure().map(Some),
        }
    }

    /// Remembers an outcome.
    pub(in crate::job) fn put(&mut self, hash: &str, failure: Option<&Failure>) {
        self.outcomes
            .insert(hash.to_string(), failure.map(Cached::of));
        self.changed = true;
    }

    /// Writes the outcomes back (atomically), if any is new.
    pub(in crate::job) fn save(&self) -> io::Result<()> {
        match (&self.path, self.changed) {
            (Some(path), true) => {
                let text = serde_json::to_vec(&self.outcomes).map_err(io::Error::other)?;
                write_if_changed(path, &text).map(drop)
            }
            _ => Ok(()),
        }
    }
}

/// The content hash of this cargo-reduce's executable, if it can be read.
fn own_hash() -> Option<&'static str> {
    static HASH: OnceLock<Option<String>> = OnceLock::new();
    HASH.get_or_init(|| file_hash(&std::env::current_exe().ok()?).ok())
        .as_deref()
}

/// The content hash inputs are known by (16 hex digits of XXH3-64).
pub(in crate::job) fn content_hash(bytes: &[u8]) -> String {
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(bytes))
}

/// The content hash of the file at `path`, read in blocks (binaries are
/// large).
fn file_hash(path: &Path) -> io::Result<String> {
    let mut file = fs::File::open(path)?;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut block = vec![0; 1 << 20];
    loop {
        let n = file.read(&mut block)?;
        if n == 0 {
            break;
        }
        hasher.update(&block[..n]);
    }
    Ok(format!("{:016x}", hasher.digest()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_survive_a_reopen_and_follow_the_binary() {
        let dir = tempfile::tempdir().unwrap();
        let binary = dir.path().join("target");
        fs::write(&binary, b"build 1").unwrap();
        let failure = Failure::new(FailureKind::Signal(6), "killed by SIGABRT");
        // A stack overflow keeps its depth, which its minimization keeps.
        let overflow = Failure {
            overflow_depth: Some(OverflowDepth::WellPast),
            ..Failure::new(FailureKind::StackOverflow, "stack overflow")
        };
        let mut cache = ReplayCache::open(Some(dir.path()), &binary, "1000ms");
        assert_eq!(cache.get("aa"), None);
        cache.put("aa", Some(&failure));
        cache.put("bb", None);
        cache.put("cc", Some(&overflow));
        cache.save().unwrap();
        let again = ReplayCache::open(Some(dir.path()), &binary, "1000ms");
        assert_eq!(again.get("aa"), Some(Some(failure)));
        assert_eq!(again.get("bb"), Some(None));
        assert_eq!(again.get("cc"), Some(Some(overflow)));
        fs::write(&binary, b"build 2").unwrap();
        let rebuilt = ReplayCache::open(Some(dir.path()), &binary, "1000ms");
        assert_eq!(rebuilt.get("aa"), None, "a new build runs everything");
    }
}
