//! Replay before reducing: every input of a target that has inputs to
//! reduce runs in the target's pool, and the failures are grouped by
//! signature ([`crate::job::group`]), so that each distinct failure is
//! reduced once, from its smallest input.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use super::limits::{InputLimits, LimitsOverride};
use super::outcomes::{self, Caches, OutcomeKeys, Replay};
use super::pools::Pools;
use super::sanitize::Probed;
use super::{FuzzRequest, Work};
use crate::error::Error;
use crate::fuzz::pool::{Failure, OverflowDepth, Signature, WorkerPool};
use crate::fuzz::project::FuzzProject;
use crate::fuzz::shrink::ArtifactError;
use crate::job::group::{self, Member, Role};

/// What replaying one input gave.
pub(super) enum Replayed {
    /// It failed, alike in every run.
    Failed(Failure),
    /// A timeout artifact that failed once as one reproduced before it in
    /// the run did: a duplicate, its timeout not waited out again (if it
    /// is its failure's smallest input, its reduction reproduces it).
    Matched(Failure),
    /// It cannot be reduced (it does not reproduce, or is flaky): the
    /// reason.
    Refused(Error),
    /// An input with a minimized copy that no longer fails: nothing to
    /// group it with, nothing to report.
    Gone,
}

impl Replayed {
    /// The failure it showed, if it failed.
    pub(super) fn failure(&self) -> Option<&Failure> {
        match self {
            Replayed::Failed(failure) | Replayed::Matched(failure) => Some(failure),
            _ => None,
        }
    }
}

/// What replaying each of `work` gave: its probe's result if it has one
/// (`probed`), else a replay in its pool, or its outcome remembered from an
/// earlier run on the same binary ([`Remembered`]); `None` if
/// `interrupted()`.
pub(super) fn replay_all(
    work: &[Work],
    projects: &[FuzzProject],
    pools: &Pools,
    mut probed: Probed,
    request: &FuzzRequest,
    interrupted: &dyn Fn() -> bool,
) -> Option<Vec<Replayed>> {
    let mut remembered = Remembered {
        caches: Caches::new(projects),
        reproduced: HashSet::new(),
    };
    remembered.run_timeouts_once(work, pools, &probed, request);
    let mut replayed = Vec::with_capacity(work.len());
    for (i, item) in work.iter().enumerate() {
        if interrupted() {
            remembered.save();
            return None;
        }
        replayed.push(match (probed[i].take(), pools.binary(i), pools.of(i)) {
            (Some(Ok(failure)), ..) => Replayed::Failed(failure),
            (Some(Err(e)), ..) => Replayed::Refused(e),
            (None, Some(binary), Some(pool)) => remembered.replay(item, binary, pool, request),
            (None, ..) => Replayed::Gone,
        });
    }
    remembered.save();
    Some(replayed)
}

/// Replay outcomes remembered between runs ([`Caches`]), so that a run with
/// nothing new does not reproduce every input again (each timeout waited
/// out [`crate::fuzz::shrink::REPRODUCE_RUNS`] times). Only outcomes that hold on the
/// same binary are kept: a failure alike in every run, or none, and a
/// single run's; a flaky input runs again. Within the run, the failures
/// reproduced so far (by binary, at their `--match` level), which a
/// timeout artifact's single run may match.
struct Remembered<'a> {
    caches: Caches<'a>,
    reproduced: HashSet<(PathBuf, Signature)>,
}

impl Remembered<'_> {
    /// What replaying `item` in `pool` (of `binary`) gives, remembered
    /// or run: an input with a minimized copy once; a timeout artifact
    /// once first, taken as a duplicate if it fails as a failure
    /// reproduced before it did; else reproduced.
    fn replay(
        &mut self,
        item: &Work,
        binary: &Path,
        pool: &WorkerPool,
        request: &FuzzRequest,
    ) -> Replayed {
        let bytes = match read(item) {
            Ok(bytes) => bytes,
            Err(replayed) => return replayed,
        };
        let limits = item.limits(&request.options);
        let signature = |f: &Failure| {
            (
                binary.to_path_buf(),
                item.options.matching().key(&f.signature()),
            )
        };
        let Remembered { caches, reproduced } = self;
        let replay = Replay::new(item, (binary, pool), &bytes, limits);
        let replayed = if item.done {
            // Reduced before: reproduced then, and failing still.
            replayed_as(item, caches.once(&replay))
        } else {
            if item.is_timeout() && !caches.remembers_reproduced(&replay) {
                if let Ok(Some(failure)) = caches.once(&replay) {
                    if reproduced.contains(&signature(&failure)) {
                        return Replayed::Matched(failure);
                    }
                }
            }
            replayed_as(item, caches.reproduce(&replay))
        };
        if let Replayed::Failed(failure) = &replayed {
            reproduced.insert(signature(failure));
        }
        replayed
    }

    /// Runs once, in one round per pool and limits, the timeout artifacts
    /// whose single run [`Self::replay`] would otherwise wait out one at a
    /// time, and remembers each outcome as that run's: a round of hangs
    /// takes a timeout per `-j` of them. (Each hang ends its test process,
    /// so the next input starts fresh, as a single run would.)
    fn run_timeouts_once(
        &mut self,
        work: &[Work],
        pools: &Pools,
        probed: &Probed,
        request: &FuzzRequest,
    ) {
        for ((binary, limits), runs) in self.timeouts_to_run(work, pools, probed, request) {
            let pool = pools.of(runs[0].item).expect("gathered with its pool");
            let _limits = LimitsOverride::new(pool, limits);
            let inputs: Vec<&[u8]> = runs.iter().map(|run| &run.bytes[..]).collect();
            let Ok(outcomes) = pool.run_fresh_each(&inputs) else {
                continue;
            };
            let cache = self.caches.opened(&binary).expect("opened while gathering");
            for (run, outcome) in runs.iter().zip(&outcomes) {
                cache.put(&run.key, outcome.failure());
            }
        }
    }

    /// The timeout artifacts of `work` to run once (not probed, and whose
    /// outcome is not remembered), by binary and limits.
    fn timeouts_to_run(
        &mut self,
        work: &[Work],
        pools: &Pools,
        probed: &Probed,
        request: &FuzzRequest,
    ) -> BTreeMap<(PathBuf, InputLimits), Vec<OnceRun>> {
        let mut rounds: BTreeMap<_, Vec<OnceRun>> = BTreeMap::new();
        for (i, item) in work.iter().enumerate() {
            let (Some(binary), Some(pool)) = (pools.binary(i), pools.of(i)) else {
                continue;
            };
            if probed[i].is_some() || item.done || !item.is_timeout() {
                continue;
            }
            let Ok(bytes) = read(item) else {
                continue;
            };
            let limits = item.limits(&request.options);
            let keys = OutcomeKeys::of(item, &bytes, limits);
            let cache = self.caches.of(item, binary, pool);
            if cache.get(&keys.once).is_none() && cache.get(&keys.reproduced).is_none() {
                let run = OnceRun {
                    item: i,
                    bytes,
                    key: keys.once,
                };
                let round = (binary.to_path_buf(), limits);
                rounds.entry(round).or_default().push(run);
            }
        }
        rounds
    }

    /// Writes the new outcomes ([`Caches::save`]).
    fn save(&self) {
        self.caches.save();
    }
}

/// An input to run once, and the key its outcome is remembered by.
struct OnceRun {
    item: usize,
    bytes: Vec<u8>,
    key: String,
}

/// `item`'s bytes, or what its replay is when they cannot be read.
fn read(item: &Work) -> Result<Vec<u8>, Replayed> {
    let path = &item.artifact.path;
    std::fs::read(path).map_err(|e| match item.done {
        true => Replayed::Gone,
        false => Replayed::Refused(Error::caused(
            crate::error::Exit::BadInput,
            format!("cannot read artifact `{}`", path.display()),
            e,
        )),
    })
}

/// Replays `item` in `pool` under its own limits: once if it has a
/// minimized copy, else reproduced.
pub(super) fn replay(item: &Work, pool: &WorkerPool, request: &FuzzRequest) -> Replayed {
    let bytes = match read(item) {
        Ok(bytes) => bytes,
        Err(replayed) => return replayed,
    };
    let limits = item.limits(&request.options);
    let outcome = match item.done {
        true => outcomes::once(item, &bytes, pool, limits),
        false => outcomes::reproduce(item, &bytes, pool, limits),
    };
    replayed_as(item, outcome)
}

/// What `outcome`, `item`'s run, makes of it: an input with a minimized
/// copy that no longer fails (or cannot run) is gone; one to reduce that
/// does not fail cannot be reduced.
fn replayed_as(item: &Work, outcome: Result<Option<Failure>, Error>) -> Replayed {
    match (outcome, item.done) {
        (Ok(Some(failure)), _) => Replayed::Failed(failure),
        (_, true) => Replayed::Gone,
        (Ok(None), false) => {
            let not_reproduced =
                ArtifactError::not_reproduced(&item.artifact.path, item.is_timeout());
            Replayed::Refused(Error::from(not_reproduced))
        }
        (Err(e), false) => Replayed::Refused(e),
    }
}

/// The groups of the replayed inputs.
pub(super) struct Grouping {
    /// Each input's role; `None` for inputs that did not fail.
    pub roles: Vec<Option<Role>>,
    /// Failing inputs without a minimized copy.
    pub inputs: usize,
    /// Distinct failures among them.
    pub failures: usize,
}

/// Groups `work` by what replaying each gave: inputs of one binary whose
/// failures match at their target's `match` level form a group.
pub(super) fn group(
    work: &[Work],
    pools: &Pools,
    replayed: &[Replayed],
    request: &FuzzRequest,
) -> Grouping {
    let mut index = Vec::new();
    let mut members: Vec<Member<(PathBuf, Signature)>> = Vec::new();
    for (i, item) in work.iter().enumerate() {
        if let (Some(failure), Some(binary)) = (replayed[i].failure(), pools.binary(i)) {
            index.push(i);
            members.push(Member {
                key: (
                    binary.to_path_buf(),
                    item.options.matching().key(&failure.signature()),
                ),
                size: item.artifact.size,
                name: item.name(),
                done: item.done,
                // Reduced, it stays well past the limit: not at the edge
                // where the real binary overflows on some runs only.
                preferred: failure.overflow_depth == Some(OverflowDepth::WellPast),
            });
        }
    }
    let pending: Vec<&Member<_>> = members.iter().filter(|m| !m.done).collect();
    let failures = pending.iter().map(|m| &m.key).collect::<HashSet<_>>().len();
    let mut roles = vec![None; work.len()];
    for (m, role) in group::roles(&members, request.all, request.force)
        .into_iter()
        .enumerate()
    {
        roles[index[m]] = Some(match role {
            Role::Duplicate { of } => Role::Duplicate { of: index[of] },
            other => other,
        });
    }
    Grouping {
        roles,
        inputs: pending.len(),
        failures,
    }
}
