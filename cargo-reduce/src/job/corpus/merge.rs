//! `cargo reduce corpus merge FILE…`: the set computed from every shard's
//! records (`record`) with the same pure [`cover::minimize`] one machine
//! runs, then read from the corpus (each file checked against its recorded
//! SHA-1) and written as one machine writes it. No build, no replay.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Instant;

use super::cover::{self, Item};
use super::record::{by_target, InputRecord, ShardRecord, TargetRecord};
use super::write::{self, Mode};
use crate::error::{Error, Exit};
use crate::job::{Events, Message};

/// What `cargo reduce corpus merge` was asked.
#[derive(Debug, Clone, Default)]
pub(crate) struct MergeRequest {
    /// The shards' `--features-out` files.
    pub records: Vec<PathBuf>,
    /// `--out DIR` (one target) [default: the shards' output directory].
    pub out: Option<PathBuf>,
    /// `--in-place`: the (first) corpus directory is replaced.
    pub in_place: bool,
}

/// Runs `cargo reduce corpus merge`.
pub(crate) fn run(request: &MergeRequest, events: &dyn Events) -> Result<Exit, Error> {
    let records = request
        .records
        .iter()
        .map(|path| ShardRecord::read(path))
        .collect::<Result<Vec<_>, _>>()?;
    let targets = by_target(&records)?;
    if request.out.is_some() && targets.len() != 1 {
        return Err(Error::new(
            Exit::Usage,
            format!(
                "--out names the set of one target, and the records hold {}; leave --out out to write each to its default place",
                targets.len()
            ),
        ));
    }
    for shares in targets {
        merge_target(&shares, request, events)?;
    }
    Ok(Exit::Success)
}

/// The distinct inputs of every share (identical content once).
pub(crate) fn distinct<'r>(shares: &[&'r TargetRecord]) -> Vec<&'r InputRecord> {
    let mut seen = HashSet::new();
    shares
        .iter()
        .flat_map(|s| &s.inputs)
        .filter(|i| seen.insert(i.sha1.as_str()))
        .collect()
}

/// The cover's view of recorded inputs.
pub(crate) fn items<'r>(inputs: &[&'r InputRecord]) -> Vec<Item<'r>> {
    inputs
        .iter()
        .map(|i| Item {
            size: i.size,
            key: &i.sha1,
            features: &i.features,
        })
        .collect()
}

/// One target's set from its shares, written.
fn merge_target(
    shares: &[&TargetRecord],
    request: &MergeRequest,
    events: &dyn Events,
) -> Result<(), Error> {
    let started = Instant::now();
    let first = shares[0];
    let output = match (&request.out, request.in_place) {
        (_, true) => first.dirs[0].clone(),
        (Some(out), false) => out.clone(),
        (None, false) => first.out.clone(),
    };
    if !request.in_place {
        write::check_output(&output)?;
    }
    let inputs = distinct(shares);
    let items = items(&inputs);
    let kept = cover::minimize(&items);
    let mut files = Vec::with_capacity(kept.len());
    for &i in &kept {
        files.push((inputs[i].sha1.clone(), read_recorded(inputs[i])?));
    }
    let borrowed: Vec<(String, &[u8])> = files
        .iter()
        .map(|(name, bytes)| (name.clone(), bytes.as_slice()))
        .collect();
    let mode = match request.in_place {
        true => Mode::InPlace,
        false => Mode::Output,
    };
    write::write_set(&output, &borrowed, mode)?;
    let all = cover::all_features(&items);
    let counters = shares.iter().map(|s| s.counters).max().unwrap_or(0);
    let failing = inputs.iter().filter(|i| i.failure.is_some()).count();
    let featureless = inputs.iter().filter(|i| i.features.is_empty()).count();
    events.emit(&Message::CorpusMinimized {
        package: first.package.clone(),
        target: first.target.clone(),
        files_before: inputs.len(),
        bytes_before: inputs.iter().map(|i| i.size as u64).sum(),
        files_after: files.len(),
        bytes_after: files.iter().map(|f| f.1.len() as u64).sum(),
        features: all.len(),
        edges: super::edges(&all, counters),
        failing,
        rejected: featureless - failing,
        shrink_rounds: 0,
        output,
        elapsed_s: started.elapsed().as_secs_f64(),
    });
    Ok(())
}

/// A kept input's bytes, as recorded: the merge writes what the shard
/// replayed, or nothing.
fn read_recorded(input: &InputRecord) -> Result<Vec<u8>, Error> {
    let bytes = std::fs::read(&input.path).map_err(|e| {
        let what = format!(
            "cannot read the recorded input `{}`; run the merge in the checkout the shards ran in",
            input.path.display()
        );
        Error::caused(Exit::BadInput, what, e)
    })?;
    if sha1_smol::Sha1::from(&bytes).digest().to_string() != input.sha1 {
        return Err(Error::new(
            Exit::BadInput,
            format!(
                "`{}` changed since its shard recorded it; record the shards again",
                input.path.display()
            ),
        ));
    }
    Ok(bytes)
}
