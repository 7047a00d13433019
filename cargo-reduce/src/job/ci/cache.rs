//! What `cargo reduce ci` remembers between runs, in one folder that CI
//! caches can save and restore (`<target dir>/cargo-reduce/ci-cache`, or
//! `--cache-dir`): each input's replay outcome, keyed by the target
//! binary's content and limits and the input's content, and each
//! minimization, keyed by the failure's id and the input's content. An
//! unchanged input on an unchanged build is not run again.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::fuzz::oracle::OtherFailure;
use crate::fuzz::pool::{portable_location, Failure, FailureKind, OverflowDepth};
use crate::output::write_if_changed;

/// A failure as the cache keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Cached {
    kind: String,
    message: Option<String>,
    location: Option<String>,
    call_path: Vec<String>,
    /// A stack overflow's depth, so that its minimization keeps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    overflow_depth: Option<OverflowDepth>,
}

impl Cached {
    fn of(failure: &Failure) -> Cached {
        Cached {
            kind: failure.kind.tag(),
            message: failure.message.clone(),
            location: failure.location.clone(),
            call_path: failure.call_path.clone(),
            overflow_depth: failure.overflow_depth,
        }
    }

    /// The failure kept (an absolute location, as a cache written before
    /// [`portable_location`] has, read as a run now names it).
    fn failure(&self) -> Option<Failure> {
        Some(Failure {
            kind: FailureKind::from_tag(&self.kind)?,
            message: self.message.clone(),
            location: self.location.clone().map(portable_location),
            call_path: self.call_path.clone(),
            overflow_depth: self.overflow_depth,
        })
    }
}

/// The replay outcomes of one binary under one set of limits: input hash
/// → its failure (`None`: it passed).
#[derive(Debug, Default)]
pub(super) struct ReplayCache {
    path: Option<PathBuf>,
    outcomes: BTreeMap<String, Option<Cached>>,
    changed: bool,
}

impl ReplayCache {
    /// The outcomes of `binary` run under `limits` (any text that changes
    /// outcomes: the timeout, the memory limit), kept in `dir`; `None`: no
    /// cache. A missing or unreadable file is an empty cache.
    pub(super) fn open(dir: Option<&Path>, binary: &Path, limits: &str) -> ReplayCache {
        let Some(dir) = dir else {
            return ReplayCache::default();
        };
        let key = match file_hash(binary) {
            Ok(hash) => format!("{hash}-{limits}"),
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
    pub(super) fn get(&self, hash: &str) -> Option<Option<Failure>> {
        let cached = self.outcomes.get(hash)?;
        match cached {
            None => Some(None),
            Some(failure) => failure.failure().map(Some),
        }
    }

    /// Remembers an outcome.
    pub(super) fn put(&mut self, hash: &str, failure: Option<&Failure>) {
        self.outcomes
            .insert(hash.to_string(), failure.map(Cached::of));
        self.changed = true;
    }

    /// Writes the outcomes back (atomically), if any is new.
    pub(super) fn save(&self) -> io::Result<()> {
        match (&self.path, self.changed) {
            (Some(path), true) => {
                let text = serde_json::to_vec(&self.outcomes).map_err(io::Error::other)?;
                write_if_changed(path, &text).map(drop)
            }
            _ => Ok(()),
        }
    }
}

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
