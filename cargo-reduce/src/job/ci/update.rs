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
use crate::fuzz::pool::MessageForm;
use crate::output::same_file;

/// Files the new failures of `report` (and better inputs of entries not
/// minimal yet) in the ledger folder `dir_of(package, target)` gives, and
/// records where each went.
pub(crate) fn file_new(
    report: &mut CiReport,
    dir_of: &dyn Fn(&str, &str) -> Option<PathBuf>,
) -> Result<(), Error> {
    for failure in &mut report.failures {
        let Some((reduced, replaced)) = filing(failure) else {
            continue;
        };
        let reduced = &reduced;
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
        // A refiled entry keeps the name of the input it came from.
        let (old, original) = match replaced {
            Some(entry) => (Some(entry.input), entry.sidecar.original),
            None => (None, file_name(&failure.input)),
        };
        let sidecar = sidecar(failure, reduced, original);
        let written = ledger::write(&dir, &name, &bytes, &sidecar).map_err(|e| {
            Error::caused(
                Exit::Failure,
                format!(
                    "cannot write the ledger entry `{}`",
                    dir.join(&name).display()
                ),
                e,
            )
        })?;
        if let Some(old) = old.filter(|old| !same_file(old, &written.input)) {
            // Best effort: the new entry is written; a stale one is only
            // a duplicate.
            let _ = ledger::remove(&old);
            failure.replaced = Some(super::shown(&old));
        }
        failure.ledger = Some(super::shown(&written.input));
    }
    Ok(())
}

/// The ledger entry a filing replaces.
struct Replaced {
    input: PathBuf,
    sidecar: Sidecar,
}

/// What to file for `failure`, and the entry it replaces: a new failure's
/// minimized input; a known one's minimal input in place of an entry that
/// is not minimal (only a minimal input replaces one that is not); or a
/// known one's entry again under its new id, when the panic moved (its
/// entry matched with the line left out).
fn filing(failure: &FailureRecord) -> Option<(Reduced, Option<Replaced>)> {
    if failure.status == Status::New {
        return Some((failure.reduced.clone()?, None));
    }
    let input = PathBuf::from(failure.ledger.as_ref()?);
    let sidecar = ledger::read_sidecar(&input)?;
    let reduced = match &failure.reduced {
        Some(reduced) if reduced.minimal && !sidecar.minimal => reduced.clone(),
        _ if sidecar.id != failure.id => {
            let bytes = std::fs::read(&input).ok()?;
            Reduced {
                hex: super::report::hex(&bytes),
                size: bytes.len(),
                minimal: sidecar.minimal,
                debug: sidecar.debug.clone(),
            }
        }
        _ => return None,
    };
    Some((reduced, Some(Replaced { input, sidecar })))
}

fn file_name(path: &str) -> String {
    Path::new(path)
        .file_name()
        .map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned())
}

fn sidecar(failure: &FailureRecord, reduced: &Reduced, original: String) -> Sidecar {
    Sidecar {
        id: failure.id.clone(),
        matching: failure.matching.clone(),
        signature: failure.signature.clone(),
        kind: failure.kind.clone(),
        location: failure.location.clone(),
        call_path: failure.call_path.clone(),
        message: failure.message.clone(),
        original,
        debug: reduced.debug.clone(),
        minimal: reduced.minimal,
        tool: super::tool(),
        message_form: MessageForm::CURRENT as u32,
    }
}

/// Moves the fixed entries of `report` into their folder's `fixed/`, and
/// records where each went.
pub(crate) fn prune_fixed(report: &mut CiReport) -> Result<(), Error> {
    for fixed in &mut report.fixed {
        let moved = ledger::prune(Path::new(&fixed.ledger)).map_err(|e| {
            Error::caused(
                Exit::Failure,
                format!("cannot move the fixed entry `{}`", fixed.ledger),
                e,
            )
        })?;
        fixed.pruned_from = Some(std::mem::replace(&mut fixed.ledger, super::shown(&moved)));
    }
    Ok(())
}
