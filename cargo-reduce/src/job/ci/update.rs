//! Writing a report's findings into the regression ledger: `--update`
//! files each new failure's minimized input (and replaces an entry that a
//! budget cut short by a minimal one), `--prune-fixed` moves fixed entries
//! to `fixed/`. Both work from the report alone, so that `ci merge` files
//! what the shards found exactly as one unsharded run would.

use std::path::{Path, PathBuf};

use super::ledger::{self, Sidecar};
use super::report::unhex;
use super::report::{CiReport, FailureRecord, Reduced, Status};
use crate::error::{Error, Exit};
use crate::output::same_file;

/// Files the new failures of `report` (and better inputs of entries not
/// minimal yet) in the ledger folder `dir_of(package, target)` gives, and
/// records where each went.
pub fn file_new(
    report: &mut CiReport,
    dir_of: &dyn Fn(&str, &str) -> Option<PathBuf>,
) -> Result<(), Error> {
    let matching = report.matching.clone();
    for failure in &mut report.failures {
        let Some(reduced) = &failure.reduced else {
            continue;
        };
        let old = match (failure.status, &failure.ledger) {
            (Status::New, _) => None,
            (_, Some(old)) if replaceable(Path::new(old), reduced) => Some(PathBuf::from(old)),
            _ => continue,
        };
        let dir = dir_of(&failure.package, &failure.target).ok_or_else(|| {
            Error::new(
                Exit::BadInput,
                format!(
                    "no fuzz target `{}` in `{}` to file failure {} under; run from the project the report was made in",
                    failure.target, failure.package, failure.id
                ),
            )
        })?;
        let bytes = unhex(&reduced.hex).ok_or_else(|| {
            Error::new(
                Exit::BadInput,
                format!("the report's input of failure {} is not hex", failure.id),
            )
        })?;
        let name = ledger::entry_name(&failure.id, &bytes);
        let sidecar = sidecar(failure, reduced, &matching);
        let written = ledger::write(&dir, &name, &bytes, &sidecar).map_err(|e| {
            Error::new(
                Exit::Failure,
                format!(
                    "cannot write the ledger entry `{}`: {e}",
                    dir.join(&name).display()
                ),
            )
        })?;
        if let Some(old) = old.filter(|old| !same_file(old, &written.input)) {
            // Best effort: the new entry is written; a stale one is only
            // a duplicate.
            let _ = ledger::remove(&old);
        }
        failure.ledger = Some(super::shown(&written.input));
    }
    Ok(())
}

/// Whether the entry at `old` may be replaced by `reduced`: only a minimal
/// input replaces one that is not.
fn replaceable(old: &Path, reduced: &Reduced) -> bool {
    reduced.minimal && ledger::read_sidecar(old).is_some_and(|s| !s.minimal)
}

fn sidecar(failure: &FailureRecord, reduced: &Reduced, matching: &str) -> Sidecar {
    let original = Path::new(&failure.input).file_name().map_or_else(
        || failure.input.clone(),
        |n| n.to_string_lossy().into_owned(),
    );
    Sidecar {
        id: failure.id.clone(),
        matching: matching.to_string(),
        signature: failure.signature.clone(),
        kind: failure.kind.clone(),
        location: failure.location.clone(),
        call_path: failure.call_path.clone(),
        message: failure.message.clone(),
        original,
        debug: reduced.debug.clone(),
        minimal: reduced.minimal,
        tool: super::tool(),
    }
}

/// Moves the fixed entries of `report` into their folder's `fixed/`, and
/// records where each went.
pub fn prune_fixed(report: &mut CiReport) -> Result<(), Error> {
    for fixed in &mut report.fixed {
        let moved = ledger::prune(Path::new(&fixed.ledger)).map_err(|e| {
            Error::new(
                Exit::Failure,
                format!("cannot move the fixed entry `{}`: {e}", fixed.ledger),
            )
        })?;
        fixed.ledger = super::shown(&moved);
    }
    Ok(())
}
