//! Replay before reducing: every input of a target that has inputs to
//! reduce runs in the target's pool, and the failures are grouped by
//! signature ([`crate::job::group`]), so that each distinct failure is
//! reduced once, from its smallest input.

use std::collections::HashSet;
use std::path::PathBuf;

use super::limits::{InputLimits, LimitsOverride};
use super::pools::Pools;
use super::sanitize::Probed;
use super::{FuzzRequest, Work};
use crate::error::Error;
use crate::fuzz::pool::{Failure, OverflowDepth, Signature, WorkerPool};
use crate::fuzz::shrink;
use crate::job::group::{self, Member, Role};

/// What replaying one input gave.
pub(super) enum Replayed {
    /// It failed, alike in every run.
    Failed(Failure),
    /// It cannot be reduced (it does not reproduce, or is flaky): the
    /// reason.
    Refused(Error),
    /// An input with a minimized copy that no longer fails: nothing to
    /// group it with, nothing to report.
    Gone,
}

/// What replaying each of `work` gave: its probe's result if it has one
/// (`probed`), else a replay in its pool; `None` if `interrupted()`.
pub(super) fn replay_all(
    work: &[Work],
    pools: &Pools,
    mut probed: Probed,
    request: &FuzzRequest,
    interrupted: &dyn Fn() -> bool,
) -> Option<Vec<Replayed>> {
    let mut replayed = Vec::with_capacity(work.len());
    for (i, item) in work.iter().enumerate() {
        if interrupted() {
            return None;
        }
        replayed.push(match (probed[i].take(), pools.of(i)) {
            (Some(Ok(failure)), _) => Replayed::Failed(failure),
            (Some(Err(e)), _) => Replayed::Refused(e),
            (None, Some(pool)) => replay(item, pool, request),
            (None, None) => Replayed::Gone,
        });
    }
    Some(replayed)
}

/// Replays `item` in `pool` under its own limits: an input to reduce
/// [`shrink::REPRODUCE_RUNS`] times (it must fail alike in each), one
/// with a minimized copy once (only its group is wanted).
pub(super) fn replay(item: &Work, pool: &WorkerPool, request: &FuzzRequest) -> Replayed {
    let artifact = &item.artifact;
    let bytes = match std::fs::read(&artifact.path) {
        Ok(bytes) => bytes,
        Err(_) if item.done => return Replayed::Gone,
        Err(e) => {
            return Replayed::Refused(Error::caused(
                crate::error::Exit::BadInput,
                format!("cannot read artifact `{}`", artifact.path.display()),
                e,
            ))
        }
    };
    let limits = InputLimits::of(artifact, &item.options, &request.options);
    let _limits = LimitsOverride::new(pool, limits);
    if item.done {
        return match pool
            .run_fresh(&bytes)
            .ok()
            .and_then(|o| o.failure().cloned())
        {
            Some(failure) => Replayed::Failed(failure),
            None => Replayed::Gone,
        };
    }
    let level = item.options.matching();
    match shrink::reproduce(pool, &artifact.path, &bytes, item.is_timeout(), level) {
        Ok(failure) => Replayed::Failed(failure),
        Err(e) => Replayed::Refused(Error::from(e)),
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
        if let (Replayed::Failed(failure), Some(binary)) = (&replayed[i], pools.binary(i)) {
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
