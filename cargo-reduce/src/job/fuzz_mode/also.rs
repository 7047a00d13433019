//! The other failures the reductions ran into ([`HarnessOracle::others`]):
//! one input of each failure not known in the run, written as an artifact
//! of its target (libFuzzer's prefix, so `cargo fuzz run` and `tmin` read
//! it and the next `cargo reduce` reduces it), named after the input whose
//! reduction found it, and reported.
//!
//! [`HarnessOracle::others`]: crate::fuzz::oracle::HarnessOracle::others

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{named, triage, Context, FuzzRequest, Work};
use crate::error::Error;
use crate::fuzz::oracle::OtherFailure;
use crate::fuzz::pool::WorkerPool;
use crate::fuzz::project::{sha1_hex, Artifact, ALSO_FOUND_INFIX};
use crate::job::{write, Message};

/// A failure a reduction ran into, filed as an artifact.
#[derive(Debug, Clone)]
pub(crate) struct AlsoFound {
    /// `target/file name` of the artifact written.
    pub name: String,
    /// The artifact written.
    pub path: PathBuf,
    /// The failure's signature.
    pub failure: String,
}

/// The failures known in the run, by target (its project's index and its
/// name: two fuzz crates may name a target alike) and the id of what
/// [`MatchLevel::other_bug`] compares: another input of one of them is not
/// filed again.
///
/// [`MatchLevel::other_bug`]: crate::fuzz::oracle::MatchLevel::other_bug
#[derive(Debug, Default)]
pub(super) struct Known {
    failures: HashSet<(usize, String, String)>,
    /// The targets whose other artifacts [`Known::learn`] replayed.
    learned: HashSet<(usize, String)>,
}

impl Known {
    /// Adds the failure `id` of `item`'s target; false if it was known.
    pub(super) fn add(&mut self, item: &Work, id: String) -> bool {
        self.failures
            .insert((item.project, item.target.clone(), id))
    }

    /// Whether a failure of `others` is not known for `item`'s target.
    pub(super) fn misses(&self, item: &Work, others: &[OtherFailure]) -> bool {
        others.iter().any(|other| {
            let id = bug_id(item, other);
            !self
                .failures
                .contains(&(item.project, item.target.clone(), id))
        })
    }

    /// Adds the failures of the other artifacts of `item`'s target
    /// (`artifacts`), each replayed once in `pool`, from its minimized copy
    /// where it has one (smaller, and failing alike); once per target. A
    /// run that names its inputs replays no others, and without this would
    /// file a bug already filed (and reduced) again. Timeout and slow-unit
    /// artifacts are not replayed: the failures filed are never timeouts
    /// ([`HarnessOracle::others`]), and each would wait the whole timeout.
    ///
    /// [`HarnessOracle::others`]: crate::fuzz::oracle::HarnessOracle::others
    pub(super) fn learn(
        &mut self,
        item: &Work,
        artifacts: &[Artifact],
        pool: &WorkerPool,
        request: &FuzzRequest,
    ) {
        if !self.learned.insert((item.project, item.target.clone())) {
            return;
        }
        let others = artifacts
            .iter()
            .filter(|a| a.path != item.artifact.path && !a.fails_by_time());
        for artifact in others {
            let mut replayed = item.clone();
            replayed.done = true;
            replayed.artifact = artifact.clone();
            if let Some(minimized) = &artifact.minimized {
                replayed.artifact.path = minimized.clone();
            }
            if let triage::Replayed::Failed(failure) = triage::replay(&replayed, pool, request) {
                let level = item.options.matching().other_bug();
                self.add(item, named(&failure, level).1);
            }
        }
    }
}

/// The id by which [`Known`] holds `other`, found reducing `item`.
fn bug_id(item: &Work, other: &OtherFailure) -> String {
    named(&other.failure, item.options.matching().other_bug()).1
}

/// Files the failures of `others`, found reducing `item`, that `known`
/// does not hold (and adds them to it).
pub(super) fn file(
    item: &Work,
    others: &[OtherFailure],
    known: &mut Known,
    cx: Context<'_>,
) -> Result<Vec<AlsoFound>, Error> {
    let mut filed = Vec::new();
    for other in others {
        let (failure, failure_id) = named(&other.failure, item.options.matching());
        if !known.add(item, bug_id(item, other)) {
            continue;
        }
        let dir = item.artifact.output.parent().unwrap_or(Path::new("."));
        if write::file_with_content(dir, &other.bytes).is_some() {
            continue;
        }
        let from = item.name();
        let from = from
            .strip_prefix(&format!("{}/", item.target))
            .unwrap_or(&from);
        let (path, new) = write(dir, from, other)?;
        if !new {
            // Filed by an earlier run that found the same input.
            continue;
        }
        cx.events.emit(&Message::ArtifactAlsoFound {
            path: path.clone(),
            target: item.target.clone(),
            failure: failure.clone(),
            failure_id,
            found_reducing: item.artifact.path.clone(),
        });
        let file_name = path.file_name().unwrap_or_default().to_string_lossy();
        filed.push(AlsoFound {
            name: format!("{}/{file_name}", item.target),
            path,
            failure,
        });
    }
    Ok(filed)
}

/// Writes `other`, found reducing the input named `from`, into `dir` as
/// `<prefix><sha1>-found-reducing-<from>`, unless that file exists; its
/// path, and whether it was written. An input that was itself found
/// reducing another names that one, the first: names do not nest.
pub(crate) fn write(
    dir: &Path,
    from: &str,
    other: &OtherFailure,
) -> Result<(PathBuf, bool), Error> {
    let from = from
        .rsplit_once(ALSO_FOUND_INFIX)
        .map_or(from, |(_, first)| first);
    let sha1 = sha1_hex(&other.bytes);
    let name = format!(
        "{}{sha1}{ALSO_FOUND_INFIX}{from}",
        write::artifact_prefix(other.failure.kind)
    );
    write::artifact(dir, &name, &other.bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::pool::{Failure, FailureKind};

    #[test]
    fn an_input_found_reducing_a_found_one_names_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let other = OtherFailure {
            failure: Failure::new(FailureKind::Panic, "boom"),
            bytes: b"ab".to_vec(),
        };
        let sha1 = sha1_hex(b"ab");
        let (path, new) = write(dir.path(), "crash-2a-found-reducing-crash-b2", &other).unwrap();
        assert!(new);
        let expected = format!("crash-{sha1}-found-reducing-crash-b2");
        assert_eq!(path.file_name().unwrap().to_str(), Some(expected.as_str()));
        let (path, _) = write(dir.path(), "timeout-c3", &other).unwrap();
        let expected = format!("crash-{sha1}-found-reducing-timeout-c3");
        assert_eq!(path.file_name().unwrap().to_str(), Some(expected.as_str()));
    }
}
