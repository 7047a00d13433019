//! `--shard K/N --features-out FILE`: what one machine records of its
//! share of each target's corpus (every input's features, or its failure),
//! so that `corpus merge` computes the set from the records alone. The
//! share is split by target and input content (`ci`'s [`Shard`]), so
//! identical files land on the same machine and the machines agree
//! without talking.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Exit};
use crate::job::ci::inputs::{one_sharding, Shard};
use crate::job::{Events, Message};

/// The records' format; `corpus merge` refuses another.
pub(crate) const FORMAT_VERSION: u32 = 1;

/// One machine's records (the `--features-out` file).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ShardRecord {
    pub format_version: u32,
    /// Which machine: K.
    pub shard: u64,
    /// Of N.
    pub shards: u64,
    pub targets: Vec<TargetRecord>,
}

/// One target's share.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TargetRecord {
    pub package: String,
    pub target: String,
    /// Its corpus directories (the first is what `--in-place` replaces).
    pub dirs: Vec<PathBuf>,
    /// Where its set goes without `--output`.
    pub out: PathBuf,
    /// The coverage build's counter count (for the edge count).
    pub counters: u32,
    pub inputs: Vec<InputRecord>,
}

/// One input of the share.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct InputRecord {
    pub path: PathBuf,
    /// The SHA-1 of its content, checked again when the merge reads it.
    pub sha1: String,
    pub size: usize,
    /// Its features, sorted (none if it failed or was rejected).
    pub features: Vec<u32>,
    /// Its failure's signature, if it failed (reported by its shard).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

impl ShardRecord {
    pub(crate) fn new(shard: Shard) -> Self {
        ShardRecord {
            format_version: FORMAT_VERSION,
            shard: shard.index,
            shards: shard.count,
            targets: Vec::new(),
        }
    }

    /// Writes the records to `path`, atomically.
    pub(crate) fn write(&self, path: &Path) -> Result<(), Error> {
        let text = serde_json::to_vec(self).expect("records serialize");
        crate::output::write_atomically(path, &text, None).map_err(|e| {
            let what = format!("cannot write the feature records `{}`", path.display());
            Error::caused(Exit::Failure, what, e)
        })
    }

    /// One `corpus-recorded` per target, once the records are at `path`.
    pub(crate) fn report(&self, path: &Path, events: &dyn Events) {
        for target in &self.targets {
            let mut features: Vec<u32> = target
                .inputs
                .iter()
                .flat_map(|i| i.features.iter().copied())
                .collect();
            features.sort_unstable();
            features.dedup();
            events.emit(&Message::CorpusRecorded {
                package: target.package.clone(),
                target: target.target.clone(),
                shard: self.shard,
                shards: self.shards,
                files: target.inputs.len(),
                failing: target.inputs.iter().filter(|i| i.failure.is_some()).count(),
                features: features.len(),
                record: path.to_path_buf(),
            });
        }
    }

    /// Reads the records at `path`.
    pub(crate) fn read(path: &Path) -> Result<Self, Error> {
        let text = std::fs::read(path).map_err(|e| {
            let what = format!("cannot read the feature records `{}`", path.display());
            Error::caused(Exit::BadInput, what, e)
        })?;
        let version = serde_json::from_slice::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v["format_version"].as_u64());
        if version.is_some_and(|v| v != u64::from(FORMAT_VERSION)) {
            return Err(Error::new(
                Exit::UnsupportedReport,
                format!(
                    "`{}` holds records of format {}, this cargo-reduce reads {FORMAT_VERSION}; record the shards again with this version",
                    path.display(),
                    version.unwrap_or_default()
                ),
            ));
        }
        serde_json::from_slice(&text).map_err(|e| {
            Error::caused(
                Exit::BadInput,
                format!(
                    "`{}` is not a feature record of `cargo reduce corpus --shard`",
                    path.display()
                ),
                e,
            )
        })
    }
}

/// The records of every shard, one target's together: each target's
/// records from N shards, each shard once; (package, target) order.
pub(crate) fn by_target(records: &[ShardRecord]) -> Result<Vec<Vec<&TargetRecord>>, Error> {
    if records.is_empty() {
        return Err(Error::new(Exit::Usage, "corpus merge needs a record file"));
    }
    let shards: Vec<Shard> = records
        .iter()
        .map(|r| Shard {
            index: r.shard,
            count: r.shards,
        })
        .collect();
    one_sharding(&shards, "records").map_err(|e| Error::new(Exit::BadInput, e))?;
    let mut targets: BTreeMap<(&str, &str), Vec<&TargetRecord>> = BTreeMap::new();
    for target in records.iter().flat_map(|r| &r.targets) {
        let key = (target.package.as_str(), target.target.as_str());
        targets.entry(key).or_default().push(target);
    }
    Ok(targets.into_values().collect())
}
