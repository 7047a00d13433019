//! What becomes of each input before reducing: named inputs are each
//! reduced; found ones are replayed and grouped first (`triage`), and one
//! input per distinct failure is reduced, the others reported as its
//! duplicates. Inputs that no longer fail are summed up, not errors.

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::pools::Pools;
use super::sanitize::Probed;
use super::{triage, Context, Summary, Work};
use crate::error::{Error, Exit};
use crate::fuzz::pool::Failure;
use crate::fuzz::project::FuzzProject;
use crate::job::group::Role;
use crate::job::message::SkipCause;
use crate::job::{Events, Message};

/// Each input's role (`None`: not to reduce), and its failure where
/// reproducing or replaying it found it.
pub(super) struct Roles {
    pub roles: Vec<Option<Role>>,
    pub known: Vec<Option<Failure>>,
}

/// What becomes of each input. `None`: Ctrl-C.
pub(super) fn assign(
    work: &[Work],
    projects: &[FuzzProject],
    pools: &Pools,
    probed: Probed,
    cx: Context<'_>,
    summary: &mut Summary,
) -> Option<Roles> {
    if !cx.request.artifacts.is_empty() {
        return Some(named(work, pools, probed, summary, cx.events));
    }
    let interrupted = || cx.settings.interrupt.load(Ordering::SeqCst);
    let replayed = triage::replay_all(work, projects, pools, probed, cx.request, &interrupted)?;
    Some(found(work, pools, replayed, cx, summary))
}

/// The roles of found inputs after replaying them: their groups, the
/// failures known, and rows for those that cannot be reduced. An input
/// that no longer fails is no error: it is summed up (`summary.stale`),
/// each one an `artifact-skipped` message; if none of the inputs fails,
/// that is the run's error.
fn found(
    work: &[Work],
    pools: &Pools,
    replayed: Vec<triage::Replayed>,
    cx: Context<'_>,
    summary: &mut Summary,
) -> Roles {
    let grouping = triage::group(work, pools, &replayed, cx.request);
    if pools.any() {
        cx.events.emit(&Message::FailuresGrouped {
            inputs: grouping.inputs,
            failures: grouping.failures,
        });
    }
    let mut reproduced = 0;
    let mut known = Vec::with_capacity(work.len());
    for ((replayed, item), role) in replayed.into_iter().zip(work).zip(&grouping.roles) {
        known.push(match replayed {
            triage::Replayed::Failed(failure) => {
                reproduced += 1;
                Some(failure)
            }
            // Reduced, it is reproduced first (its check), as a named input is.
            triage::Replayed::Matched(_) if *role == Some(Role::Reduce) => {
                reproduced += 1;
                None
            }
            triage::Replayed::Matched(failure) => {
                reproduced += 1;
                Some(failure)
            }
            triage::Replayed::Refused(e) if e.exit() == Exit::NotInteresting => {
                stale(item, &e, summary, cx.events);
                None
            }
            triage::Replayed::Refused(e) => {
                summary.record(item.row(Duration::ZERO, Err(e)), cx.events);
                None
            }
            triage::Replayed::Gone => None,
        });
    }
    if reproduced == 0 && summary.stale > 0 && summary.exit == Exit::Success {
        summary.fail(&nothing_reproduces(summary.stale), cx.events);
    }
    Roles {
        roles: grouping.roles,
        known,
    }
}

/// Records `item`, found in the project, as no longer failing (`e` says
/// how it was run).
fn stale(item: &Work, e: &Error, summary: &mut Summary, events: &dyn Events) {
    events.emit(&Message::ArtifactSkipped {
        path: item.artifact.path.clone(),
        target: item.target.clone(),
        why: e.line(),
        cause: SkipCause::DoesNotReproduce,
    });
    summary.stale += 1;
}

/// The run's error when none of the `stale` inputs found fails any more.
fn nothing_reproduces(stale: usize) -> Error {
    Error::new(
        Exit::NotInteresting,
        format!("none of the {stale} input(s) to reduce fails any more (their bugs fixed since, or they need another build, such as a sanitizer's): `-v` shows how each was run"),
    )
}

/// The roles of named inputs: each is reduced, but one whose probe failed
/// (it does not reproduce, is flaky) fails its row.
fn named(
    work: &[Work],
    pools: &Pools,
    mut probed: Probed,
    summary: &mut Summary,
    events: &dyn Events,
) -> Roles {
    let mut known = Vec::with_capacity(work.len());
    let mut roles = Vec::with_capacity(work.len());
    for (i, item) in work.iter().enumerate() {
        match probed[i].take() {
            Some(Err(e)) => {
                summary.record(item.row(Duration::ZERO, Err(e)), events);
                roles.push(None);
                known.push(None);
            }
            probed => {
                roles.push(pools.binary(i).map(|_| Role::Reduce));
                known.push(probed.and_then(Result::ok));
            }
        }
    }
    Roles { roles, known }
}
