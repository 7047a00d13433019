//! Every machine-readable message cargo-reduce prints, in one place: one
//! serde enum tagged by `reason`, as cargo's `machine_message`. With
//! `--message-format json` each is one line on stdout; the human renderer
//! reads the same values.

use std::path::Path;

use serde::Serialize;

/// One message; its `reason` is the variant's name in kebab-case.
#[derive(Debug, Serialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum Message<'a> {
    /// A fuzz crate's targets are being built against the stand-in.
    BuildStarted {
        /// The fuzz crate.
        package: &'a str,
        /// The targets to build.
        targets: &'a [&'a str],
    },
    /// A fuzz crate's targets were built against the stand-in.
    BuildFinished {
        /// The fuzz crate.
        package: &'a str,
        /// The targets built.
        targets: &'a [&'a str],
        /// Wall time of the build, in seconds.
        elapsed_s: f64,
        /// The units cargo compiled rather than found fresh (`crate@version
        /// target`); empty when nothing changed since the last build.
        compiled: &'a [String],
    },
    /// A reduction begins (INPUT or one artifact).
    ReductionStarted(Started<'a>),
    /// A fuzz artifact failed the same way in every reproduction run.
    ArtifactReproduced {
        /// The artifact.
        path: &'a Path,
        /// Its fuzz target.
        target: &'a str,
        /// The failure's signature.
        failure: &'a str,
        /// The short id of what `--match` compares of it.
        failure_id: &'a str,
    },
    /// The inputs were replayed and grouped by failure: `inputs` failing
    /// inputs, `failures` distinct signatures among them.
    FailuresGrouped {
        /// Inputs that failed (those that did not are reported apart).
        inputs: usize,
        /// Distinct failures.
        failures: usize,
    },
    /// An input is not reduced: it fails like `same_as`, which is (or was)
    /// reduced for it (without `--all`).
    ArtifactDuplicate {
        /// The input.
        path: &'a Path,
        /// Its fuzz target.
        target: &'a str,
        /// The failure's signature.
        failure: &'a str,
        /// The short id of what `--match` compares of it.
        failure_id: &'a str,
        /// The input its group is reduced from, or already was.
        same_as: &'a Path,
    },
    /// A fuzz artifact is not reduced, and why (a `leak-*`: no
    /// LeakSanitizer in-process).
    ArtifactSkipped {
        /// The artifact.
        path: &'a Path,
        /// Its fuzz target.
        target: &'a str,
        /// Why.
        why: &'a str,
    },
    /// One ddmin pass over one unit ended (`file` mode's unit passes).
    PassFinished {
        /// The unit (`line`, `char`…).
        unit: &'a str,
        /// Size after the pass.
        bytes: usize,
        /// Tests run so far.
        tests_run: u64,
        /// Cache hits so far.
        cache_hits: u64,
    },
    /// A limit (or Ctrl-C) stopped the reduction; the result is not
    /// 1-minimal.
    ReductionStopped {
        /// `max-tests`, `max-time`, `interrupted`, or `timeouts` (the
        /// reduction ended, but some verdicts were timeouts).
        why: &'a str,
    },
    /// A reduction ended and its result was written.
    ReductionFinished(Finished<'a>),
    /// `list`: one artifact of a target.
    FuzzArtifact {
        /// The fuzz crate.
        package: &'a str,
        /// Its manifest.
        manifest_path: &'a Path,
        /// The target.
        target: &'a str,
        /// The artifact.
        path: &'a Path,
        /// Its file name.
        name: &'a str,
        /// Its kind, from the name's prefix (AFL's hangs: `timeout`).
        kind: &'static str,
        /// Its size in bytes.
        size: u64,
        /// The engine that saved it: `libfuzzer` or `afl`.
        engine: &'static str,
        /// For AFL inputs, the instance that saved it.
        #[serde(skip_serializing_if = "Option::is_none")]
        instance: Option<&'a str>,
        /// Where its reduction goes.
        output: &'a Path,
        /// Its minimized copy, if any.
        minimized: Option<&'a Path>,
        /// The minimized copy's size, if readable.
        minimized_size: Option<u64>,
    },
    /// `list`: an AFL++ instance directory.
    AflInstance {
        /// The fuzz crate it was given to (the first afl.rs crate when no
        /// target matches).
        package: &'a str,
        /// The target whose binary it ran, if one does.
        target: Option<&'a str>,
        /// The instance directory.
        dir: &'a Path,
        /// Its name (`default`, or the `-M`/`-S` name).
        name: &'a str,
        /// The binary it ran.
        binary: Option<&'a Path>,
        /// Its hang timeout in milliseconds.
        exec_timeout_ms: Option<u64>,
        /// Its memory limit (afl-fuzz's `-m`) in MB; null: none.
        mem_limit_mb: Option<u64>,
        /// Whether the binary it ran has changed since (its `target_hash`
        /// differs); null when that cannot be told.
        rebuilt: Option<bool>,
        /// Its crashes (all folders).
        crashes: usize,
        /// Its hangs (all folders).
        hangs: usize,
    },
    /// `list`: a target without artifacts.
    FuzzTarget {
        /// The fuzz crate.
        package: &'a str,
        /// Its manifest.
        manifest_path: &'a Path,
        /// The target.
        target: &'a str,
        /// The engine its source is written for (`libfuzzer`, `afl`).
        engine: &'a str,
        /// Its source file.
        source: &'a Path,
        /// Where its artifacts would be.
        artifacts_dir: &'a Path,
    },
    /// `ci`: one target's inputs were replayed.
    CiReplayed {
        /// The fuzz crate.
        package: &'a str,
        /// The target.
        target: &'a str,
        /// Inputs replayed (this shard's).
        inputs: usize,
        /// Inputs that failed.
        failing: usize,
        /// Inputs answered from the cache.
        cached: usize,
        /// Distinct failures among them.
        failures: usize,
        /// Wall time of the replay: reading the inputs and running them
        /// (the build and the pool's start apart).
        elapsed_s: f64,
    },
    /// `ci replay`: one input was run.
    CiReplay {
        /// The input.
        path: &'a Path,
        /// The target.
        target: &'a str,
        /// Its failure's id at the `--match` level; null: it passed.
        failure_id: Option<&'a str>,
        /// Its failure's signature.
        failure: Option<&'a str>,
    },
    /// `ci`: one distinct failure, new or known.
    CiFailure(&'a crate::job::ci::report::FailureRecord),
    /// `ci`: a ledger entry whose failure is gone.
    CiFixed(&'a crate::job::ci::report::FixedRecord),
    /// `ci`: the summary, last.
    CiFinished {
        /// Inputs replayed.
        inputs: usize,
        /// Distinct failures.
        failures: usize,
        /// Not in the ledger.
        new: usize,
        /// In the ledger, still failing.
        known: usize,
        /// In the ledger, no longer failing.
        fixed: usize,
        /// Wall time, in seconds.
        elapsed_s: f64,
        /// The exit status.
        exit: i32,
    },
    /// Something the user should know that does not stop the run.
    Warning {
        /// The one-line message.
        message: &'a str,
    },
    /// The run (or one artifact of it) ended in an error.
    Error {
        /// The one-line message shown to humans.
        message: &'a str,
        /// The exit status it maps to.
        exit: i32,
    },
}

/// The `reduction-started` message.
#[derive(Debug, Serialize)]
pub struct Started<'a> {
    /// What is reduced.
    pub input: &'a Path,
    /// Where the result goes.
    pub output: &'a Path,
    /// Size of the input.
    pub original_bytes: usize,
    /// How the input is tested and reduced (mode-specific fields).
    #[serde(flatten)]
    pub how: How<'a>,
}

/// How an input is tested and reduced, as `reduction-started` says it.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum How<'a> {
    /// `file` mode: the test command and the plan.
    Command {
        /// The test command, quoted for a shell.
        command: &'a str,
        /// The plan (`unit`, or `lang` and `strategy`).
        #[serde(flatten)]
        plan: Plan,
    },
    /// Fuzz mode: the target.
    Target {
        /// The fuzz target.
        target: &'a str,
        /// The plan (`unit`, or `lang` and `strategy`).
        #[serde(flatten)]
        plan: Plan,
    },
}

/// How the bytes are reduced.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Plan {
    /// ddmin passes over these units (`line+char`, `byte`).
    Units {
        /// The units, `+`-separated.
        unit: String,
    },
    /// Syntax-aware reduction.
    Syntax {
        /// The language.
        lang: &'static str,
        /// The strategy, as `--strategy` spells it.
        strategy: String,
    },
}

/// The `reduction-finished` message, field for field and in order.
#[derive(Debug, Serialize)]
pub struct Finished<'a> {
    /// What was reduced.
    pub input: &'a Path,
    /// Where the result is.
    pub output: &'a Path,
    /// Size of the input.
    pub original_bytes: usize,
    /// Size of the result.
    pub reduced_bytes: usize,
    /// Every execution of the test, the checks of input and result included.
    pub tests_run: u64,
    /// Candidates answered from the cache.
    pub cache_hits: u64,
    /// Wall time, in seconds (millisecond precision).
    pub elapsed_s: f64,
    /// True unless a limit stopped the reduction.
    pub minimal: bool,
    /// What stopped it (`max-tests`, `max-time`, `interrupted`, `timeouts`), if
    /// something did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<&'static str>,
    /// Tests per step of a syntax-aware reduction, or of a fuzz artifact's
    /// byte reduction with a search (`--effort` above quick), in the order
    /// the steps first ran (absent for plain ddmin).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepTests>,
    /// What fuzz mode adds.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub artifact: Option<ArtifactFields<'a>>,
}

/// The tests one step of a reduction ran (every run of it together).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StepTests {
    /// The step (`coarse-hdd`, `hdd`, `hoist`, `plain`, `rename`,
    /// `literals`, `tokens`; `ddmin`, `canonical`, `search-2byte`,
    /// `search-chunks`, `search-move`, `search-mutate`, `search-settle`).
    pub step: &'static str,
    /// Tests it ran, cache hits not counted.
    pub tests: u64,
    /// Wall time spent in it, in seconds: with `tests`, where a slow
    /// target's time goes.
    pub elapsed_s: f64,
}

/// The fields fuzz mode adds to `reduction-finished`.
#[derive(Debug, Serialize)]
pub struct ArtifactFields<'a> {
    /// The fuzz target.
    pub target: &'a str,
    /// The failure's signature.
    pub failure: &'a str,
    /// The short id of what `--match` compares of it.
    pub failure_id: &'a str,
    /// A typed target's value, as its `Debug` form.
    pub debug: Option<&'a str>,
    /// Wall time of each phase.
    pub phases: Phases,
}

/// Wall time of each phase of one reduction, in seconds (microsecond
/// precision). The reproduction and the final check are bound by the
/// failure itself (a timeout artifact's runs take the whole timeout); the
/// reduction phase is what the algorithms and the pool decide.
#[derive(Debug, Serialize, Clone, Copy, Default)]
pub struct Phases {
    /// Checking or reproducing the input.
    pub reproduce_s: f64,
    /// ddmin and canonicalization (with a timeout artifact's probes and
    /// their checks).
    pub reduce_s: f64,
    /// The result's final check and its writing.
    pub verify_s: f64,
}

/// `duration` in seconds, rounded to `digits` decimals.
pub fn seconds(duration: std::time::Duration, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (duration.as_secs_f64() * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_has_its_reason_first() {
        let m = Message::ReductionStopped { why: "max-tests" };
        assert_eq!(
            serde_json::to_string(&m).unwrap(),
            r#"{"reason":"reduction-stopped","why":"max-tests"}"#
        );
        let m = Message::ReductionStarted(Started {
            input: Path::new("a.js"),
            output: Path::new("a.reduced.js"),
            original_bytes: 3,
            how: How::Command {
                command: "sh t.sh",
                plan: Plan::Syntax {
                    lang: "js",
                    strategy: "best".into(),
                },
            },
        });
        assert_eq!(
            serde_json::to_string(&m).unwrap(),
            r#"{"reason":"reduction-started","input":"a.js","output":"a.reduced.js","original_bytes":3,"command":"sh t.sh","lang":"js","strategy":"best"}"#
        );
    }
}
