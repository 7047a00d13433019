//! Replay outcomes remembered between runs, a cache per binary beside its
//! crate's build (`<target dir>/cargo-reduce/replay`): what reproducing
//! an input gave (the probe of the inputs to reduce, the replay of found
//! ones) and what a single run gave, each under its own key, so that a
//! run with nothing new runs none of them again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::limits::InputLimits;
use super::Work;
use crate::fuzz::pool::{Failure, WorkerPool};
use crate::fuzz::project::FuzzProject;
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

    /// What reproducing `item` (its `bytes`, in `pool` of `binary`) gave
    /// on an earlier run: its failure, or `None` when it did not fail;
    /// `None` when nothing is remembered.
    pub(super) fn reproduced(
        &mut self,
        item: &Work,
        (binary, pool): (&Path, &WorkerPool),
        bytes: &[u8],
        limits: InputLimits,
    ) -> Option<Option<Failure>> {
        let key = OutcomeKeys::of(item, bytes, limits).reproduced;
        self.of(item, binary, pool).get(&key)
    }

    /// Remembers what reproducing `item` gave ([`Self::reproduced`]).
    pub(super) fn remember_reproduced(
        &mut self,
        item: &Work,
        (binary, pool): (&Path, &WorkerPool),
        (bytes, limits): (&[u8], InputLimits),
        failure: Option<&Failure>,
    ) {
        let key = OutcomeKeys::of(item, bytes, limits).reproduced;
        self.of(item, binary, pool).put(&key, failure);
    }

    /// Writes the new outcomes; one that cannot be written is run again
    /// next time, which is all the cache saves.
    pub(super) fn save(&self) {
        for cache in self.caches.values() {
            let _ = cache.save();
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
