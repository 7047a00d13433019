//! An input's replay, run or remembered between runs in a cache per binary
//! beside its crate's build (`<target dir>/cargo-reduce/replay`): what
//! reproducing it gave (the probe of the inputs to reduce, the ASan retry,
//! the replay of found ones) and what a single run gave, each under its
//! own key, so that a run with nothing new runs none of them again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::limits::{InputLimits, LimitsOverride};
use super::Work;
use crate::error::Error;
use crate::fuzz::pool::{Failure, WorkerPool};
use crate::fuzz::project::FuzzProject;
use crate::fuzz::shrink::{self, ArtifactError};
use crate::job::replay_cache::{content_hash, ReplayCache};

/// The replay caches of a run's binaries, each opened on first use.
pub(super) struct Caches<'a> {
    projects: &'a [FuzzProject],
    caches: HashMap<PathBuf, ReplayCache>,
}

impl<'a> Caches<'a> {
    pub(super) fn new(projects: &'a [FuzzProject]) -> Self {
        Caches {
            projects,
            caches: HashMap::new(),
        }
    }

    /// The cache of `binary` (`item`'s, run in `pool`), by the pool's
    /// options that outcomes depend on (its limits, which exits fail:
    /// `AFL_CRASH_EXITCODE`, whether it looks for leaks).
    pub(super) fn of(&mut self, item: &Work, binary: &Path, pool: &WorkerPool) -> &mut ReplayCache {
        let projects = self.projects;
        self.caches.entry(binary.to_path_buf()).or_insert_with(|| {
            let target_dir = &projects[item.project].target_dir;
            let options = pool.outcome_key();
            ReplayCache::open(Some(&target_dir.join("cargo-reduce")), binary, &options)
        })
    }

    /// The cache of `binary`, if it was opened.
    pub(super) fn opened(&mut self, binary: &Path) -> Option<&mut ReplayCache> {
        self.caches.get_mut(binary)
    }

    /// What reproducing `replay` gives ([`reproduce`]), or gave on an
    /// earlier run: the failure alike in every run, or none in any, is
    /// remembered; anything else (flaky, a pool that failed) runs again
    /// next time.
    pub(super) fn reproduce(&mut self, replay: &Replay<'_>) -> Result<Option<Failure>, Error> {
        let cache = self.of(replay.item, replay.binary, replay.pool);
        remembered_or_run(cache, &[&replay.keys.reproduced], || {
            reproduce(replay.item, replay.bytes, replay.pool, replay.limits)
        })
    }

    /// What running `replay` once gives ([`once`]), or gave on an earlier
    /// run, once or reproduced.
    pub(super) fn once(&mut self, replay: &Replay<'_>) -> Result<Option<Failure>, Error> {
        let cache = self.of(replay.item, replay.binary, replay.pool);
        let keys = &replay.keys;
        remembered_or_run(cache, &[&keys.once, &keys.reproduced], || {
            once(replay.item, replay.bytes, replay.pool, replay.limits)
        })
    }

    /// Whether what reproducing `replay` gives is remembered.
    pub(super) fn remembers_reproduced(&mut self, replay: &Replay<'_>) -> bool {
        let cache = self.of(replay.item, replay.binary, replay.pool);
        cache.get(&replay.keys.reproduced).is_some()
    }

    /// Writes the new outcomes; one that cannot be written is run again
    /// next time, which is all the cache saves.
    pub(super) fn save(&self) {
        for cache in self.caches.values() {
            let _ = cache.save();
        }
    }
}

/// The outcome remembered in `cache` under the first of `keys` it has,
/// else `run`'s, remembered under the first key unless it is an error.
fn remembered_or_run(
    cache: &mut ReplayCache,
    keys: &[&str],
    run: impl FnOnce() -> Result<Option<Failure>, Error>,
) -> Result<Option<Failure>, Error> {
    if let Some(failure) = keys.iter().find_map(|key| cache.get(key)) {
        return Ok(failure);
    }
    let outcome = run();
    if let Ok(failure) = &outcome {
        cache.put(keys[0], failure.as_ref());
    }
    outcome
}

/// Runs `item`'s `bytes` once in a fresh test process of `pool`, under
/// its own `limits`: the failure, or none.
pub(super) fn once(
    item: &Work,
    bytes: &[u8],
    pool: &WorkerPool,
    limits: InputLimits,
) -> Result<Option<Failure>, Error> {
    let _limits = LimitsOverride::new(pool, limits);
    match pool.run_fresh(bytes) {
        Ok(outcome) => Ok(outcome.failure().cloned()),
        Err(e) => Err(Error::of_pool(format!("replaying {}", item.name()), e)),
    }
}

/// Runs `item`'s `bytes` [`shrink::REPRODUCE_RUNS`] times in `pool` under
/// its own `limits`: `Ok`, the failure all runs showed alike at its
/// `--match` level, or none in any; `Err`: anything else (flaky, a pool
/// that failed).
pub(super) fn reproduce(
    item: &Work,
    bytes: &[u8],
    pool: &WorkerPool,
    limits: InputLimits,
) -> Result<Option<Failure>, Error> {
    let artifact = &item.artifact;
    let _limits = LimitsOverride::new(pool, limits);
    let level = item.options.matching();
    match shrink::reproduce(pool, &artifact.path, bytes, item.is_timeout(), level) {
        Ok(failure) => Ok(Some(failure)),
        Err(ArtifactError::DoesNotReproduce { .. }) => Ok(None),
        Err(e) => Err(Error::from(e)),
    }
}

/// One input's replay: `bytes`, `item`'s content, run in `pool` (of
/// `binary`) under its own `limits`, and the keys its outcomes are
/// remembered by, computed once.
pub(super) struct Replay<'r> {
    item: &'r Work,
    binary: &'r Path,
    pool: &'r WorkerPool,
    bytes: &'r [u8],
    limits: InputLimits,
    keys: OutcomeKeys,
}

impl<'r> Replay<'r> {
    pub(super) fn new(
        item: &'r Work,
        (binary, pool): (&'r Path, &'r WorkerPool),
        bytes: &'r [u8],
        limits: InputLimits,
    ) -> Self {
        Replay {
            item,
            binary,
            pool,
            bytes,
            limits,
            keys: OutcomeKeys::of(item, bytes, limits),
        }
    }
}

/// What an outcome of an input is remembered by: its content, how it ran
/// (once, or reproduced at its `--match` level), and its own limits where
/// they are not its pool's. A reproduced outcome answers for a single run
/// too.
pub(super) struct OutcomeKeys {
    pub once: String,
    pub reproduced: String,
}

impl OutcomeKeys {
    pub(super) fn of(item: &Work, bytes: &[u8], limits: InputLimits) -> OutcomeKeys {
        let own = limits.key_suffix();
        let key = |how: &str| format!("{}@{how}{own}", content_hash(bytes));
        OutcomeKeys {
            once: key("once"),
            reproduced: key(&format!("{:?}", item.options.matching())),
        }
    }
}
