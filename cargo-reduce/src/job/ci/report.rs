//! The report of one `cargo reduce ci` run or shard: every input replayed,
//! every distinct failure with its status, and the ledger entries that no
//! longer fail. Its types are `cargo-reduce-messages`' (re-exported here);
//! this module reads reports ([`read`]) and joins shards ([`merge`]); the
//! CLI renders them as a table, GitHub annotations and job summary, SARIF
//! and JUnit.

use std::collections::BTreeMap;

use super::inputs::{one_sharding, Shard};

pub(crate) use cargo_reduce_messages::ci::{
    CiReport, FailureRecord, FixedRecord, InputRecord, Reduced, ReportVersion, Source, Status,
    REPORT_VERSION,
};

/// Why bytes are not a report this cargo-reduce can read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReadError {
    /// A report, of a format version this cargo-reduce does not read.
    #[error("report format version {0}, but this cargo-reduce reads version {REPORT_VERSION}")]
    Version(u32),
    /// Not a report at all.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
}

/// The report `text` holds: its version is read first, so a report of
/// another version is told apart from a broken one.
pub(crate) fn read(text: &[u8]) -> Result<CiReport, ReadError> {
    let ReportVersion { version } = serde_json::from_slice(text)?;
    if version != REPORT_VERSION {
        return Err(ReadError::Version(version));
    }
    Ok(serde_json::from_slice(text)?)
}

/// Joins shard reports into the report of one unsharded run: inputs
/// are united, a failure seen by several shards counts all their
/// inputs and keeps the smallest input and the best reduction, and a
/// ledger entry is fixed only if no shard saw its failure.
pub(crate) fn merge(reports: Vec<CiReport>) -> Result<CiReport, String> {
    let first = reports.first().ok_or("no report to merge")?;
    // A whole run's report is the one shard of 1.
    let shards = reports
        .iter()
        .map(|r| r.shard.as_deref().unwrap_or("1/1").parse::<Shard>())
        .collect::<Result<Vec<_>, _>>()?;
    one_sharding(&shards, "reports")?;
    let (tool, matching) = (first.tool.clone(), first.matching.clone());
    let mut inputs = BTreeMap::new();
    let mut failures: BTreeMap<(String, String), FailureRecord> = BTreeMap::new();
    let mut fixed = BTreeMap::new();
    let mut elapsed_s: f64 = 0.0;
    for report in reports {
        if report.version != REPORT_VERSION {
            return Err(format!(
                "report version {} is not {REPORT_VERSION}",
                report.version
            ));
        }
        if report.matching != matching {
            return Err(format!(
                "reports made with --match {} and --match {matching} cannot be merged",
                report.matching
            ));
        }
        elapsed_s = elapsed_s.max(report.elapsed_s);
        for input in report.inputs {
            inputs.insert((input.target.clone(), input.hash.clone()), input);
        }
        for failure in report.failures {
            let key = (failure.target.clone(), failure.id.clone());
            match failures.get_mut(&key) {
                Some(seen) => absorb(seen, failure),
                None => {
                    failures.insert(key, failure);
                }
            }
        }
        for entry in report.fixed {
            fixed.insert((entry.target.clone(), entry.id.clone()), entry);
        }
    }
    fixed.retain(|key, _| !failures.contains_key(key));
    for ((target, id), path) in smallest_inputs(inputs.values()) {
        if let Some(failure) = failures.get_mut(&(target, id)) {
            failure.input = path;
        }
    }
    let mut merged = CiReport {
        version: REPORT_VERSION,
        tool,
        shard: None,
        matching,
        inputs: inputs.into_values().collect(),
        failures: failures.into_values().collect(),
        fixed: fixed.into_values().collect(),
        elapsed_s,
    };
    merged.sort();
    Ok(merged)
}

/// Per (target, failure id): the path of its smallest input, by size and
/// then path, as one unsharded run picks it.
fn smallest_inputs<'r>(
    inputs: impl Iterator<Item = &'r InputRecord>,
) -> BTreeMap<(String, String), String> {
    let mut smallest: BTreeMap<(String, String), &InputRecord> = BTreeMap::new();
    for input in inputs {
        let Some(id) = &input.failure_id else {
            continue;
        };
        let key = (input.target.clone(), id.clone());
        let rank = |i: &InputRecord| (i.size, std::path::PathBuf::from(&i.path));
        match smallest.get(&key) {
            Some(seen) if rank(seen) <= rank(input) => {}
            _ => {
                smallest.insert(key, input);
            }
        }
    }
    smallest
        .into_iter()
        .map(|(key, input)| (key, input.path.clone()))
        .collect()
}

/// Adds another shard's view of the same failure to `seen`.
fn absorb(seen: &mut FailureRecord, other: FailureRecord) {
    let other_smaller = (other.inputs > 0) && other.input < seen.input;
    seen.inputs += other.inputs;
    if other_smaller {
        seen.input = other.input;
    }
    if let Some(reduced) = other.reduced {
        if seen.reduced.as_ref().is_none_or(|r| reduced.better_than(r)) {
            seen.reduced = Some(reduced);
        }
    }
    seen.ledger = seen.ledger.take().or(other.ledger);
}

/// Lowercase hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes lowercase or uppercase `hex` spells.
pub(crate) fn unhex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips() {
        assert_eq!(hex(b"\0A\xff"), "0041ff");
        assert_eq!(unhex("0041FF"), Some(b"\0A\xff".to_vec()));
        assert_eq!(unhex("0"), None);
        assert_eq!(unhex("zz"), None);
    }

    fn report(shard: &str, failures: Vec<FailureRecord>, fixed: Vec<FixedRecord>) -> CiReport {
        CiReport {
            version: REPORT_VERSION,
            tool: "cargo-reduce test".into(),
            shard: Some(shard.into()),
            matching: "stack".into(),
            inputs: Vec::new(),
            failures,
            fixed,
            elapsed_s: 1.0,
        }
    }

    fn failure(id: &str, input: &str, reduced: Option<(&str, bool)>) -> FailureRecord {
        FailureRecord {
            package: "fuzz".into(),
            target: "t".into(),
            id: id.into(),
            matching: "stack".into(),
            status: Status::New,
            signature: format!("panic {id}"),
            kind: "panic".into(),
            severity: crate::fuzz::pool::Severity::Abort,
            location: None,
            call_path: Vec::new(),
            message: None,
            file: None,
            line: None,
            column: None,
            source: "fuzz_targets/t.rs".into(),
            inputs: 1,
            input: input.into(),
            reduced: reduced.map(|(hex, minimal)| Reduced {
                hex: hex.into(),
                size: hex.len() / 2,
                minimal,
                debug: None,
            }),
            ledger: None,
            replaced: None,
        }
    }

    fn fixed(id: &str) -> FixedRecord {
        FixedRecord {
            package: "fuzz".into(),
            target: "t".into(),
            id: id.into(),
            signature: format!("panic {id}"),
            ledger: format!("regressions/t/{id}"),
            pruned_from: None,
        }
    }

    #[test]
    fn shards_merge_into_one_run() {
        let one = report(
            "1/2",
            vec![failure("a", "x2", Some(("4142", true)))],
            vec![fixed("b"), fixed("c")],
        );
        let two = report(
            "2/2",
            vec![
                failure("a", "x1", Some(("41", false))),
                failure("b", "y", None),
            ],
            vec![],
        );
        let merged = merge(vec![one.clone(), two.clone()]).unwrap();
        assert_eq!(merged.shard, None);
        assert_eq!(merged.failures.len(), 2);
        let a = &merged.failures[0];
        assert_eq!((a.inputs, a.input.as_str()), (2, "x1"));
        assert_eq!(a.reduced.as_ref().unwrap().hex, "4142", "minimal wins");
        assert_eq!(merged.fixed, vec![fixed("c")], "b still fails in shard 2");
        // With the inputs recorded, the smallest by size, as one run picks
        // it: a ledger entry of 4 bytes over an artifact of 71 whose path
        // sorts first.
        let input = |path: &str, size: u64| InputRecord {
            package: "fuzz".into(),
            target: "t".into(),
            path: path.into(),
            source: Source::Ledger,
            hash: format!("{size:016x}"),
            size,
            failure_id: Some("a".into()),
            cached: false,
        };
        let (mut one, mut two) = (one, two);
        one.inputs = vec![input("fuzz/artifacts/t/crash-1", 71)];
        two.inputs = vec![input("fuzz/regressions/t/a-1", 4)];
        for reports in [vec![one.clone(), two.clone()], vec![two, one]] {
            let merged = merge(reports).unwrap();
            assert_eq!(merged.failures[0].input, "fuzz/regressions/t/a-1");
        }
    }

    #[test]
    fn reports_of_other_versions_are_told_from_broken_ones() {
        let mut text = serde_json::to_value(report("1/1", vec![], vec![])).unwrap();
        let good = serde_json::to_vec(&text).unwrap();
        assert_eq!(read(&good).unwrap(), report("1/1", vec![], vec![]));
        // A later version may change any other field: only `version` is read.
        let next = REPORT_VERSION + 1;
        text["version"] = next.into();
        text["inputs"] = "changed".into();
        let later = serde_json::to_vec(&text).unwrap();
        assert!(matches!(read(&later), Err(ReadError::Version(v)) if v == next));
        assert!(matches!(read(b"{\"inputs\": []}"), Err(ReadError::Json(_))));
        assert!(matches!(read(b"not json"), Err(ReadError::Json(_))));
    }

    /// A merge is of one sharding, every shard once: a shard twice would
    /// count its inputs twice, a missing one lose its failures.
    #[test]
    fn only_every_shard_of_one_sharding_merges() {
        let shard = |k: &str| report(k, vec![], vec![]);
        let error = |reports| merge(reports).unwrap_err();
        assert!(error(vec![shard("1/2"), shard("1/2")]).contains("one shard twice"));
        assert!(error(vec![shard("1/2")]).contains("shard 2/2 are missing"));
        assert!(error(vec![shard("1/2"), shard("2/3"), shard("3/3")]).contains("not one sharding"));
        let mut whole = shard("1/1");
        whole.shard = None;
        assert!(merge(vec![whole.clone()]).is_ok());
        assert!(error(vec![whole, shard("2/2")]).contains("not one sharding"));
    }

    #[test]
    fn reports_of_other_match_levels_do_not_merge() {
        let mut other = report("2/2", vec![], vec![]);
        other.matching = "message".into();
        assert!(merge(vec![report("1/2", vec![], vec![]), other]).is_err());
        assert!(merge(vec![]).is_err());
    }
}
