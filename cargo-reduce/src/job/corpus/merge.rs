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
use crate::fuzz::project::sha1_hex;
use crate::job::{Events, Message};

/// What `cargo reduce corpus merge` was asked.
#[derive(Debug, Clone, Default)]
pub(crate) struct MergeRequest {
    /// The shards' `--features-out` files.
    pub records: Vec<PathBuf>,
    /// `--output DIR` (one target) [default: the shards' output directory].
    pub out: Option<PathBuf>,
    /// `--in-place`: the (first) corpus directory is replaced.
    pub in_place: bool,
    /// Threads to choose the set on (the same set for any number).
    pub threads: usize,
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
                "--output names the set of one target, and the records hold {}; drop --output to write each to its default place",
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
    match request.in_place {
        true => super::refuse_afl_queue(&output)?,
        false => write::check_output(&output, "corpus", super::OUTPUT_HINT)?,
    }
    let inputs = distinct(shares);
    let items = items(&inputs);
    let kept = cover::minimize(&items, request.threads);
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
        features_lost: 0,
        edges: super::edges(&all, counters),
        build: None,
        failing,
        rejected: featureless - failing,
        shrink_rounds: 0,
        shrink_stopped: None,
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
    if sha1_hex(&bytes) != input.sha1 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::ci::inputs::Shard;
    use proptest::prelude::*;

    fn record(shard: Shard, inputs: Vec<InputRecord>) -> ShardRecord {
        ShardRecord {
            targets: vec![TargetRecord {
                package: "fuzz".into(),
                target: "parse".into(),
                dirs: vec!["corpus/parse".into()],
                out: "corpus-min/parse".into(),
                counters: 64,
                inputs,
            }],
            ..ShardRecord::new(shard)
        }
    }

    fn corpus() -> impl Strategy<Value = Vec<InputRecord>> {
        let input = (0usize..64, proptest::collection::btree_set(0u32..48, 0..10)).prop_map(
            |(size, set)| {
                let features: Vec<u32> = set.into_iter().collect();
                // Content decides the hash: equal (size, features) are one
                // file, as identical files are.
                let sha1 = format!("{size}-{features:?}");
                InputRecord {
                    path: format!("corpus/parse/{sha1}").into(),
                    sha1,
                    size,
                    features,
                    failure: None,
                }
            },
        );
        proptest::collection::vec(input, 0..32)
    }

    /// The set a merge computes, as file hashes.
    fn merged(records: &[ShardRecord]) -> Vec<String> {
        let targets = by_target(records).unwrap();
        assert_eq!(targets.len(), 1);
        let inputs = distinct(&targets[0]);
        let mut kept: Vec<String> = cover::minimize(&items(&inputs), 2)
            .into_iter()
            .map(|i| inputs[i].sha1.clone())
            .collect();
        kept.sort_unstable();
        kept
    }

    proptest! {
        /// Split over any number of machines, in any order of the files,
        /// the merge keeps the set one machine keeps.
        #[test]
        fn the_merge_of_any_sharding_is_the_unsharded_set(
            inputs in corpus(),
            count in 1u64..6,
            rotate in 0usize..6,
        ) {
            let whole = merged(&[record(Shard { index: 1, count: 1 }, inputs.clone())]);
            let mut shards: Vec<ShardRecord> = (1..=count)
                .map(|index| {
                    let shard = Shard { index, count };
                    let share = inputs
                        .iter()
                        .filter(|i| shard.takes("parse", &i.sha1))
                        .cloned()
                        .collect();
                    record(shard, share)
                })
                .collect();
            let turn = rotate % shards.len();
            shards.rotate_left(turn);
            prop_assert_eq!(merged(&shards), whole);
        }
    }

    #[test]
    fn a_missing_or_repeated_shard_is_refused() {
        let shard = |index| record(Shard { index, count: 3 }, Vec::new());
        let missing = by_target(&[shard(1), shard(3)]).unwrap_err();
        assert!(
            missing.to_string().contains("shard 2/3 are missing"),
            "{missing}"
        );
        let twice = by_target(&[shard(1), shard(2), shard(2), shard(3)]).unwrap_err();
        assert!(twice.to_string().contains("one shard twice"), "{twice}");
        assert!(by_target(&[shard(2), shard(3), shard(1)]).is_ok());
    }
}
