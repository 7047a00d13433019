//! The report of one `cargo reduce ci` run or shard: every input replayed,
//! every distinct failure with its status, and the ledger entries that no
//! longer fail. It is written as JSON (`--report`), joined from shards
//! ([`CiReport::merge`]), and rendered by the CLI as a table, GitHub
//! annotations and job summary, SARIF and JUnit.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The report format's version; `merge` refuses others.
pub const REPORT_VERSION: u32 = 1;

/// What one run found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CiReport {
    /// [`REPORT_VERSION`].
    pub version: u32,
    /// `cargo-reduce <version>`.
    pub tool: String,
    /// `K/N` for a shard; `None` for a whole run or a merge.
    pub shard: Option<String>,
    /// The `--match` level the ids are computed at.
    #[serde(rename = "match")]
    pub matching: String,
    /// Every input replayed, by target then path.
    pub inputs: Vec<InputRecord>,
    /// Every distinct failure seen, by target then id.
    pub failures: Vec<FailureRecord>,
    /// Ledger entries whose failure is gone, by target then id.
    pub fixed: Vec<FixedRecord>,
    /// Wall time of the run (a merge: the longest shard's).
    pub elapsed_s: f64,
}

/// Where an input comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// libFuzzer's `artifacts/<target>/`.
    Artifact,
    /// An AFL++ instance's crashes or hangs.
    Afl,
    /// The regression ledger.
    Ledger,
    /// An OSS-Fuzz / ClusterFuzzLite `clusterfuzz-testcase-*`.
    Clusterfuzz,
    /// The target's corpus (`--corpus`).
    Corpus,
}

/// One input and what replaying it gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputRecord {
    /// The fuzz crate.
    pub package: String,
    /// The fuzz target.
    pub target: String,
    /// The file, relative to the current directory when under it.
    pub path: String,
    /// Where it comes from.
    pub source: Source,
    /// Its content hash (16 hex digits).
    pub hash: String,
    /// Its size.
    pub size: u64,
    /// The id of its failure; `None`: it passed.
    pub failure_id: Option<String>,
    /// Answered from the replay cache.
    pub cached: bool,
}

/// Whether a failure is in the ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Not in the ledger.
    New,
    /// In the ledger, still failing.
    Known,
    /// In the ledger, no longer failing.
    Fixed,
}

impl Status {
    /// `new`, `known`, `fixed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::New => "new",
            Status::Known => "known",
            Status::Fixed => "fixed",
        }
    }
}

/// One distinct failure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailureRecord {
    /// The fuzz crate.
    pub package: String,
    /// The fuzz target.
    pub target: String,
    /// The signature's short id at the `--match` level.
    pub id: String,
    /// New or known.
    pub status: Status,
    /// The signature, as reports show it.
    pub signature: String,
    /// Its kind (`panic`, `signal-6`, …).
    pub kind: String,
    /// A panic's `file:line:col`, as the build records it.
    pub location: Option<String>,
    /// A panic's call path, innermost first.
    pub call_path: Vec<String>,
    /// A panic's message, normalized.
    pub message: Option<String>,
    /// Where it panicked, in the source tree (relative to the current
    /// directory when the file is the user's), with its line.
    pub file: Option<String>,
    /// The line in `file`.
    pub line: Option<u32>,
    /// The target's source file (where a failure without a position in
    /// the user's code is shown).
    pub source: String,
    /// How many inputs fail this way.
    pub inputs: usize,
    /// The smallest of them.
    pub input: String,
    /// Its minimized form, if one was made (or found in the ledger).
    pub reduced: Option<Reduced>,
    /// Its ledger entry's input file, if it has one.
    pub ledger: Option<String>,
}

/// A failure's minimized input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reduced {
    /// The bytes, in hex (a merge writes them to the ledger).
    pub hex: String,
    /// Its size.
    pub size: usize,
    /// Whether it is 1-minimal (the budget did not cut it short).
    pub minimal: bool,
    /// A typed target's value, as its `Debug` form.
    pub debug: Option<String>,
}

impl Reduced {
    /// Whether `self` is a better result than `other`: minimal first,
    /// then smaller, then the lower bytes (so merges are deterministic).
    pub fn better_than(&self, other: &Reduced) -> bool {
        (!self.minimal, self.size, &self.hex) < (!other.minimal, other.size, &other.hex)
    }
}

/// A ledger entry whose failure no input shows any more.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FixedRecord {
    /// The fuzz crate.
    pub package: String,
    /// The fuzz target.
    pub target: String,
    /// The entry's signature id.
    pub id: String,
    /// Its signature.
    pub signature: String,
    /// The entry's input file.
    pub ledger: String,
}

impl CiReport {
    /// How many failures have `status` (`Fixed`: the fixed entries).
    pub fn count(&self, status: Status) -> usize {
        match status {
            Status::Fixed => self.fixed.len(),
            _ => self.failures.iter().filter(|f| f.status == status).count(),
        }
    }

    /// Puts inputs, failures and fixed entries in their documented order.
    pub fn sort(&mut self) {
        self.inputs
            .sort_by(|a, b| (&a.target, &a.path).cmp(&(&b.target, &b.path)));
        self.failures
            .sort_by(|a, b| (&a.target, &a.id).cmp(&(&b.target, &b.id)));
        self.fixed
            .sort_by(|a, b| (&a.target, &a.id).cmp(&(&b.target, &b.id)));
    }

    /// Joins shard reports into the report of one unsharded run: inputs
    /// are united, a failure seen by several shards counts all their
    /// inputs and keeps the smallest input and the best reduction, and a
    /// ledger entry is fixed only if no shard saw its failure.
    pub fn merge(reports: Vec<CiReport>) -> Result<CiReport, String> {
        let first = reports.first().ok_or("no report to merge")?;
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
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes lowercase or uppercase `hex` spells.
pub fn unhex(hex: &str) -> Option<Vec<u8>> {
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
            status: Status::New,
            signature: format!("panic {id}"),
            kind: "panic".into(),
            location: None,
            call_path: Vec::new(),
            message: None,
            file: None,
            line: None,
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
        }
    }

    fn fixed(id: &str) -> FixedRecord {
        FixedRecord {
            package: "fuzz".into(),
            target: "t".into(),
            id: id.into(),
            signature: format!("panic {id}"),
            ledger: format!("regressions/t/{id}"),
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
        let merged = CiReport::merge(vec![one, two]).unwrap();
        assert_eq!(merged.shard, None);
        assert_eq!(merged.failures.len(), 2);
        let a = &merged.failures[0];
        assert_eq!((a.inputs, a.input.as_str()), (2, "x1"));
        assert_eq!(a.reduced.as_ref().unwrap().hex, "4142", "minimal wins");
        assert_eq!(merged.fixed, vec![fixed("c")], "b still fails in shard 2");
    }

    #[test]
    fn reports_of_other_match_levels_do_not_merge() {
        let mut other = report("2/2", vec![], vec![]);
        other.matching = "message".into();
        assert!(CiReport::merge(vec![report("1/2", vec![], vec![]), other]).is_err());
        assert!(CiReport::merge(vec![]).is_err());
    }
}
