//! The worker pools of a fuzz-mode run: one per binary, started once, and
//! the binary each input runs in (an input moves to its target's
//! AddressSanitizer build when it fails only there).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::build_targets::{self, Binaries};
use super::{Summary, Work};
use crate::error::{Error, Exit};
use crate::fuzz::pool::{PoolOptions, WorkerPool};
use crate::job::Events;

/// Each target's pool options, by its project's index and its name.
#[derive(Default)]
pub(super) struct TargetOptions(HashMap<(usize, String), PoolOptions>);

impl TargetOptions {
    /// Sets the options of `item`'s target.
    pub(super) fn insert(&mut self, item: &Work, options: PoolOptions) {
        self.0.insert((item.project, item.target.clone()), options);
    }

    /// The options of `item`'s target.
    pub(super) fn of(&self, item: &Work) -> &PoolOptions {
        &self.0[&(item.project, item.target.clone())]
    }
}

/// Each input's binary, and the pools started.
pub(super) struct Pools {
    /// By item of the work: the binary it runs in; `None` when its target
    /// was not built or did not start.
    binaries: Vec<Option<PathBuf>>,
    pools: HashMap<PathBuf, WorkerPool>,
}

impl Pools {
    /// Each item's binary, its pool started (with the options of the
    /// item's target in `options`). A target that cannot be built or
    /// started is reported once, whole, and each of its artifacts' rows
    /// says so in a few words.
    pub(super) fn start(
        work: &[Work],
        binaries: &Binaries,
        options: &TargetOptions,
        summary: &mut Summary,
        events: &dyn Events,
    ) -> Pools {
        let mut started = Pools {
            binaries: Vec::with_capacity(work.len()),
            pools: HashMap::new(),
        };
        let mut told = HashSet::new();
        for item in work {
            let ready = binaries[&(item.project, item.target.clone())]
                .clone()
                .and_then(|binary| {
                    started.ensure(&binary, options.of(item), &item.target)?;
                    Ok(binary)
                });
            match ready {
                Ok(binary) => started.binaries.push(Some(binary)),
                Err(e) => {
                    if told.insert(e.line()) {
                        summary.fail(&e, events);
                    }
                    if !item.done {
                        let short = Error::new(e.exit(), build_targets::in_a_few_words(&e));
                        summary.rows.push(item.row(Duration::ZERO, Err(short)));
                        summary.not_built += 1;
                    }
                    started.binaries.push(None);
                }
            }
        }
        started
    }

    /// Starts the pool of `binary` (a build of `target`) unless it runs.
    pub(super) fn ensure(
        &mut self,
        binary: &Path,
        options: &PoolOptions,
        target: &str,
    ) -> Result<&WorkerPool, Error> {
        if !self.pools.contains_key(binary) {
            let pool = WorkerPool::start(binary, options.clone())
                .map_err(|e| Error::caused(Exit::Failure, format!("cannot start {target}"), e))?;
            self.pools.insert(binary.to_path_buf(), pool);
        }
        Ok(&self.pools[binary])
    }

    /// The binary item `i` runs in.
    pub(super) fn binary(&self, i: usize) -> Option<&Path> {
        self.binaries[i].as_deref()
    }

    /// The pool item `i` runs in.
    pub(super) fn of(&self, i: usize) -> Option<&WorkerPool> {
        self.binary(i).map(|binary| &self.pools[binary])
    }

    /// Whether any item has a pool.
    pub(super) fn any(&self) -> bool {
        self.binaries.iter().any(Option::is_some)
    }

    /// Item `i` runs in `binary` from now on (its pool started).
    pub(super) fn move_to(&mut self, i: usize, binary: &Path) {
        debug_assert!(self.pools.contains_key(binary));
        self.binaries[i] = Some(binary.to_path_buf());
    }
}
