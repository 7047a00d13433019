//! The other failures `ci`'s minimizations ran into (kept with each
//! minimization, in the cache too): one input of each whose signature
//! neither the run nor the ledger knows is written as an artifact of its
//! target, as fuzz mode files them (`crash-<sha1>-found-reducing-<name>`),
//! and becomes a new failure of the run, minimized in the budget left and
//! reported (and filed by `--update`) as the others are.

use std::collections::HashSet;
use std::path::PathBuf;

use super::inputs::Input;
use super::report::{Source, Status};
use super::{Group, TargetRun};
use crate::error::Error;
use crate::fuzz::oracle::{MatchLevel, OtherFailure};
use crate::fuzz::project::{file_name, Artifact, FuzzProject};
use crate::job::fuzz_mode::{named, write_also_found};
use crate::job::{Events, Message};

/// Adds to each run the failures its minimizations ran into that it does
/// not know; how many.
pub(super) fn add(
    runs: &mut [TargetRun],
    projects: &[FuzzProject],
    events: &dyn Events,
) -> Result<usize, Error> {
    let mut added = 0;
    for run in runs {
        let dir = projects[run.project].results_dir(&run.name);
        for (from, other) in unknown(run) {
            let (path, _) = write_also_found(&dir, &file_name(&from), &other)?;
            let (failure, failure_id) = named(&other.failure, run.options.matching());
            events.emit(&Message::ArtifactAlsoFound {
                path: path.clone(),
                target: run.name.clone(),
                failure,
                failure_id,
                found_reducing: from,
            });
            let level = run.options.matching();
            add_failure(run, path, other, level);
            added += 1;
        }
    }
    Ok(added)
}

/// The other failures of `run`'s minimizations (with the input each was
/// found reducing) that neither its groups nor its ledger entries have,
/// one per signature, compared as [`MatchLevel::other_bug`] says.
fn unknown(run: &TargetRun) -> Vec<(PathBuf, OtherFailure)> {
    let level = run.options.matching().other_bug();
    let bug = |other: &OtherFailure| named(&other.failure, level).1;
    let mut known: HashSet<String> = run
        .groups
        .iter()
        .map(|g| named(&g.failure, level).1)
        .collect();
    let ledgered = run.entries.iter().filter_map(|e| e.sidecar.signature());
    known.extend(ledgered.map(|signature| level.key(&signature).id()));
    let mut found = Vec::new();
    for group in &run.groups {
        let Some(reduced) = &group.reduced else {
            continue;
        };
        let from = group.smallest(&run.inputs).artifact.path.clone();
        for other in reduced.others.iter().filter_map(|o| o.other()) {
            if known.insert(bug(&other)) {
                found.push((from.clone(), other));
            }
        }
    }
    found
}

/// `other`, written at `path`, as an input of `run` failing in a new
/// group of its own.
fn add_failure(run: &mut TargetRun, path: PathBuf, other: OtherFailure, level: MatchLevel) {
    let key = level.key(&other.failure.signature());
    run.groups.push(Group {
        id: key.id(),
        unmoored: key.unmoored().id(),
        failure: other.failure.clone(),
        members: vec![run.inputs.len()],
        status: Status::New,
        reduced: None,
        ledger: None,
    });
    run.outcomes.push((Some(other.failure), false));
    run.inputs.push(Input {
        artifact: Artifact::plain(path, other.bytes.len() as u64),
        source: Source::Artifact,
        hash: super::content_hash(&other.bytes),
        bytes: other.bytes,
        ledger: None,
    });
}
