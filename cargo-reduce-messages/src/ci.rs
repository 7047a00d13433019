//! The report of one `cargo reduce ci` run or shard (`ci --report`, what
//! `ci merge` reads): every input replayed, every distinct failure with
//! its status, and the ledger entries that no longer fail.

use serde::{Deserialize, Serialize};

use crate::kinds::Severity;

/// The report format's version; `ci merge` refuses others.
pub const REPORT_VERSION: u32 = 2;

/// The part of a report that every version has: read it first, and the
/// rest only when the version is one the reader knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportVersion {
    /// The report's [`REPORT_VERSION`].
    pub version: u32,
}

/// What one run found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CiReport {
    /// [`REPORT_VERSION`].
    pub version: u32,
    /// `cargo-reduce <version>`.
    pub tool: String,
    /// `K/N` for a shard; `None` for a whole run or a merge.
    pub shard: Option<String>,
    /// The command line's `--match` level (`stack` when none is given);
    /// shards merge only with the same one. A target's `Cargo.toml` may
    /// set its own: each failure records the level of its id.
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FailureRecord {
    /// The fuzz crate.
    pub package: String,
    /// The fuzz target.
    pub target: String,
    /// The signature's short id at [`FailureRecord::matching`]'s level.
    pub id: String,
    /// The `--match` level `id` is computed at: the command line's, else
    /// the target's in its `Cargo.toml`, else `stack`.
    #[serde(rename = "match")]
    pub matching: String,
    /// New or known.
    pub status: Status,
    /// The signature, as reports show it.
    pub signature: String,
    /// Its kind: `panic`, `stack-overflow`, `out-of-memory`, `timeout`,
    /// `signal-<n>`, `exit-<n>`, `asan-<bug type>`.
    #[cfg_attr(
        feature = "schema",
        schemars(regex(
            pattern = r"^(panic|stack-overflow|out-of-memory|timeout|signal-[0-9]+|exit--?[0-9]+|asan-[A-Za-z0-9-]+)$"
        ))
    )]
    pub kind: String,
    /// How serious it is (docs/signatures.md).
    pub severity: Severity,
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
    /// The column in `file` (reports before it lack it).
    #[serde(default)]
    pub column: Option<u32>,
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
    /// The entry `--update` replaced by `ledger`: a known failure's entry
    /// filed again under its new id (its panic moved) or with a minimal
    /// input (a budget had cut it short). Reports before it lack it.
    #[serde(default)]
    pub replaced: Option<String>,
}

/// A failure's minimized input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Reduced {
    /// The bytes, in lowercase hex (a merge writes them to the ledger).
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    /// Where the entry was before `--prune-fixed` moved it to `ledger`
    /// (in its folder's `fixed/`). Reports before it lack it.
    #[serde(default)]
    pub pruned_from: Option<String>,
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
        // The most serious first.
        self.failures
            .sort_by(|a, b| (a.severity, &a.target, &a.id).cmp(&(b.severity, &b.target, &b.id)));
        self.fixed
            .sort_by(|a, b| (&a.target, &a.id).cmp(&(&b.target, &b.id)));
    }
}
