//! The messages of `--message-format json`: one [`Message`] per line on
//! stdout, tagged by `reason` as cargo's `machine_message`, with the
//! [`FORMAT_VERSION`](crate::FORMAT_VERSION) beside it ([`Line`]).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::ci::{FailureRecord, FixedRecord};
pub use crate::kinds::{ArtifactKind, Build, Engine, Severity, SkipCause, StopReason};
use crate::Exit;

/// One line of `--message-format json`: a message and the format version
/// it is written in (the last field). Fields may be added within a
/// version; a consumer ignores the ones it does not know.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Line {
    /// The message, `reason` first.
    #[serde(flatten)]
    pub message: Message,
    /// [`FORMAT_VERSION`](crate::FORMAT_VERSION) of the cargo-reduce that
    /// wrote it.
    pub format_version: u32,
}

impl Line {
    /// `message` in the current format version.
    pub fn new(message: Message) -> Line {
        Line {
            message,
            format_version: crate::FORMAT_VERSION,
        }
    }
}

/// One source file's line coverage (`coverage-report`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FileCoverage {
    /// The file, relative to the fuzz crate's workspace root when under
    /// it, else as found.
    pub path: PathBuf,
    /// Lines of code instrumented (the start of a block the coverage
    /// build counts, or a call inlined there).
    pub lines_instrumented: usize,
    /// Of those, lines some input reached.
    pub lines_covered: usize,
}

/// A dependency that an ICE's MCVE needs as a crate of its own (the ICE
/// goes away when the dependency's source is taken into the MCVE), as
/// rust-lang/rust's tests have them (`//@ aux-build`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AuxiliaryCrate {
    /// Its source, one file, beside the MCVE.
    pub source: PathBuf,
    /// The rustc command that builds it, to run before the MCVE's: it
    /// writes `lib{crate name}.rlib` into the working directory, which
    /// the MCVE's command names with `--extern`.
    pub command: String,
}

/// One message; its `reason` is the variant's name in kebab-case. New
/// reasons may come within a format version (a consumer skips a line it
/// cannot read), so a match on it needs a wildcard arm.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum Message {
    /// A fuzz crate's targets are being built against the stand-in.
    BuildStarted {
        /// The fuzz crate.
        package: String,
        /// The targets to build.
        targets: Vec<String>,
        /// Which build (absent before it was told: `plain`).
        #[serde(default)]
        build: Build,
    },
    /// A fuzz crate's targets were built against the stand-in.
    BuildFinished {
        /// The fuzz crate.
        package: String,
        /// The targets built.
        targets: Vec<String>,
        /// Which build (absent before it was told: `plain`).
        #[serde(default)]
        build: Build,
        /// Wall time of the build, in seconds.
        elapsed_s: f64,
        /// The units cargo compiled rather than found fresh (`crate@version
        /// target`); empty when nothing changed since the last build.
        compiled: Vec<String>,
    },
    /// A reduction begins (INPUT or one artifact).
    ReductionStarted(Started),
    /// A fuzz artifact failed the same way in every reproduction run.
    ArtifactReproduced {
        /// The artifact.
        path: PathBuf,
        /// Its fuzz target.
        target: String,
        /// The failure's signature.
        failure: String,
        /// The short id of what `--match` compares of it.
        failure_id: String,
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
        path: PathBuf,
        /// Its fuzz target.
        target: String,
        /// The failure's signature.
        failure: String,
        /// The short id of what `--match` compares of it.
        failure_id: String,
        /// The input its group is reduced from, or already was.
        same_as: PathBuf,
    },
    /// A reduction ran into a failure other than its input's, and one not
    /// known in the run: the smallest candidate that failed so, written as
    /// an artifact of the target (libFuzzer's `crash-`/`oom-` prefix) for
    /// a later run to reduce. One per failure.
    ArtifactAlsoFound {
        /// Where it was written, in the target's artifacts folder.
        path: PathBuf,
        /// Its fuzz target.
        target: String,
        /// The failure's signature.
        failure: String,
        /// The short id of what `--match` compares of it.
        failure_id: String,
        /// The input whose reduction ran into it.
        found_reducing: PathBuf,
    },
    /// A fuzz artifact is not reduced, and why (a `leak-*` under
    /// `--sanitizer none`; an out-of-memory artifact without a memory
    /// limit).
    ArtifactSkipped {
        /// The artifact.
        path: PathBuf,
        /// Its fuzz target.
        target: String,
        /// Why, in a sentence for humans.
        why: String,
        /// Why, for tools.
        cause: SkipCause,
    },
    /// One ddmin pass over one unit ended (`file` mode's unit passes).
    PassFinished {
        /// The unit (`line`, `char`…).
        unit: String,
        /// Size after the pass.
        bytes: usize,
        /// Tests run so far.
        tests_run: u64,
        /// Cache hits so far.
        cache_hits: u64,
    },
    /// The best result so far changed (rate-limited: at most ten a
    /// second, and always the last change before the reduction ends).
    ReductionProgress(Improved),
    /// A limit (or Ctrl-C) stopped the reduction; the result is not
    /// 1-minimal.
    ReductionStopped {
        /// What is reduced, as `reduction-started` names it (absent in
        /// the messages of earlier releases).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        input: Option<PathBuf>,
        /// What stopped it.
        why: StopReason,
    },
    /// A reduction ended and its result was written.
    ReductionFinished(Finished),
    /// `list`: one artifact of a target.
    FuzzArtifact {
        /// The fuzz crate.
        package: String,
        /// Its manifest.
        manifest_path: PathBuf,
        /// The target.
        target: String,
        /// The artifact.
        path: PathBuf,
        /// Its file name.
        name: String,
        /// Its kind, from the name's prefix (AFL's hangs: `timeout`).
        kind: ArtifactKind,
        /// Its size in bytes.
        size: u64,
        /// The engine that saved it.
        engine: Engine,
        /// For AFL inputs, the instance that saved it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        instance: Option<String>,
        /// Where its reduction goes.
        output: PathBuf,
        /// Its minimized copy, if any.
        minimized: Option<PathBuf>,
        /// The minimized copy's size, if readable.
        minimized_size: Option<u64>,
        /// `cargo fuzz tmin`'s result for it, if it left one: the last of
        /// libFuzzer's `minimized-from-<sha1>` files, each named after
        /// the SHA-1 of the one it was minimized from.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tmin: Option<PathBuf>,
        /// The input it fails like, if a run of `cargo reduce` found it a
        /// duplicate (and so did not reduce it), and it is unchanged since.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        duplicate_of: Option<PathBuf>,
    },
    /// `list`: an AFL++ instance directory.
    AflInstance {
        /// The fuzz crate it was given to (the first afl.rs crate when no
        /// target matches).
        package: String,
        /// The target whose binary it ran, if one does.
        target: Option<String>,
        /// The instance directory.
        dir: PathBuf,
        /// Its name (`default`, or the `-M`/`-S` name).
        name: String,
        /// The binary it ran.
        binary: Option<PathBuf>,
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
        package: String,
        /// Its manifest.
        manifest_path: PathBuf,
        /// The target.
        target: String,
        /// The engine its source is written for.
        engine: Engine,
        /// Its source file.
        source: PathBuf,
        /// Where its artifacts would be.
        artifacts_dir: PathBuf,
    },
    /// `ci`: one target's inputs were replayed.
    CiReplayed {
        /// The fuzz crate.
        package: String,
        /// The target.
        target: String,
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
        path: PathBuf,
        /// The target.
        target: String,
        /// Its failure's id at the `--match` level; null: it passed.
        failure_id: Option<String>,
        /// Its failure's signature.
        failure: Option<String>,
    },
    /// `ci`: one distinct failure, new or known (the report's record).
    CiFailure(FailureRecord),
    /// `ci`: a ledger entry whose failure is gone (the report's record).
    CiFixed(FixedRecord),
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
        exit: Exit,
    },
    /// `corpus`: an input of a corpus fails (crash, timeout,
    /// out-of-memory); it is not in the minimized corpus, and is kept as an
    /// artifact for `cargo reduce` (one line per distinct failure).
    CorpusFailure {
        /// The fuzz crate.
        package: String,
        /// The target.
        target: String,
        /// The failure's signature.
        failure: String,
        /// The short id of its signature.
        failure_id: String,
        /// The corpus files that fail so.
        inputs: Vec<PathBuf>,
        /// The artifact that holds the smallest of them (written unless it,
        /// or a file of the same content such as a minimized copy, was
        /// there).
        artifact: PathBuf,
    },
    /// `corpus`: one target's corpus was minimized.
    CorpusMinimized {
        /// The fuzz crate.
        package: String,
        /// The target.
        target: String,
        /// Distinct inputs read (identical files count once).
        files_before: usize,
        /// Their bytes.
        bytes_before: u64,
        /// Inputs kept.
        files_after: usize,
        /// Their bytes.
        bytes_after: u64,
        /// Features (as libFuzzer counts them: an edge and its hit-count
        /// bucket, and the stack depth) of the kept inputs, replayed on
        /// their own: every feature of the whole corpus but
        /// `features_lost`.
        features: usize,
        /// Features of the whole corpus's replay that the kept inputs'
        /// own replay lacks (each also said in a `warning`): hit counts
        /// that vary with what ran before an input (0 in messages of
        /// earlier releases).
        #[serde(default)]
        features_lost: usize,
        /// Edges covered (libFuzzer's `cov`).
        edges: usize,
        /// The build the features are counted in: `coverage` (without
        /// AddressSanitizer; `cargo fuzz build`'s default binary has ASan
        /// and the edges of its checks) or `coverage-asan`; absent in
        /// messages of earlier releases and of `corpus merge`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        build: Option<Build>,
        /// Inputs that failed (each reported by a `corpus-failure`).
        failing: usize,
        /// Passing inputs with no feature (rejected by the target, or too
        /// short for its type), which libFuzzer drops too.
        rejected: usize,
        /// With `--shrink`, the rounds of cover and shrink until one
        /// changed nothing (0 without).
        #[serde(default)]
        shrink_rounds: usize,
        /// With `--shrink`, what stopped it before its fixed point
        /// (`--max-time`, Ctrl-C): the set keeps every feature, its inputs
        /// not all shrunk; absent when it converged.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        shrink_stopped: Option<StopReason>,
        /// Where the minimized corpus is.
        output: PathBuf,
        /// Wall time of the replay and the minimization, in seconds.
        elapsed_s: f64,
    },
    /// `coverage`: the line coverage of one target's corpus, or (without
    /// a target) of every target's, merged; and where its reports are.
    CoverageReport {
        /// The fuzz crate (none when merged over crates).
        package: Option<String>,
        /// The target (none when merged over targets).
        target: Option<String>,
        /// Distinct inputs replayed.
        inputs: usize,
        /// Inputs that failed (crash, timeout, out-of-memory): their
        /// coverage is not counted.
        failing: usize,
        /// Per source file, by path.
        files: Vec<FileCoverage>,
        /// Lines of code instrumented, in every file.
        lines_instrumented: usize,
        /// Of those, lines some input reached.
        lines_covered: usize,
        /// The lcov tracefile.
        lcov: PathBuf,
        /// The HTML report's index.
        html: PathBuf,
    },
    /// `corpus --shrink`: a round ended, in which every input of the set
    /// was shrunk once (or found shrunk before) and the set covered again.
    CorpusShrinkRound {
        /// The fuzz crate.
        package: String,
        /// The target.
        target: String,
        /// The round, from 1.
        round: usize,
        /// Inputs of the set after it.
        files: usize,
        /// The set's bytes before it.
        bytes_before: usize,
        /// The set's bytes after it.
        bytes_after: usize,
        /// Seconds since the shrink began.
        elapsed_s: f64,
    },
    /// `corpus --features-out`: one target's share of its corpus was
    /// replayed and its features recorded, for `corpus merge`.
    CorpusRecorded {
        /// The fuzz crate.
        package: String,
        /// The target.
        target: String,
        /// This machine's share: K (of `shards`).
        shard: u64,
        /// N.
        shards: u64,
        /// Distinct inputs of the share.
        files: usize,
        /// Of them, inputs that failed (each reported by a
        /// `corpus-failure`).
        failing: usize,
        /// Distinct features of the share.
        features: usize,
        /// The records file.
        record: PathBuf,
    },
    /// `cargo reduce ice`: the build crashed rustc (an internal compiler
    /// error) compiling this crate.
    IceFound {
        /// The crate whose compilation crashed.
        #[serde(rename = "crate")]
        krate: String,
        /// Its rustc command line, as cargo ran it.
        command: String,
        /// Where in the compiler: `compiler/rustc_x/src/y.rs:LINE:COL`.
        location: String,
        /// What the compiler said (its first line).
        message: String,
        /// The query stack, innermost first (empty for a delayed bug).
        queries: Vec<String>,
    },
    /// `cargo reduce ice`: the reduced crate and its issue report were
    /// written.
    IceReported {
        /// The reduced crate, one file.
        mcve: PathBuf,
        /// The Markdown report beside it.
        report: PathBuf,
        /// The command that crashes rustc on `mcve`.
        command: String,
        /// The crates `mcve` is compiled against, each built first by its
        /// command (a cross-crate ICE); absent when there are none.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        auxiliaries: Vec<AuxiliaryCrate>,
    },
    /// Something the user should know that does not stop the run.
    Warning {
        /// The one-line message.
        message: String,
    },
    /// The run (or one artifact of it) ended in an error.
    Error {
        /// The one-line message shown to humans.
        message: String,
        /// The exit status it maps to.
        exit: Exit,
    },
}

/// The `reduction-started` message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Started {
    /// What is reduced.
    pub input: PathBuf,
    /// Where the result goes.
    pub output: PathBuf,
    /// Size of the input.
    pub original_bytes: usize,
    /// How the input is tested and reduced (mode-specific fields).
    #[serde(flatten)]
    pub how: How,
}

/// How an input is tested and reduced, as `reduction-started` says it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum How {
    /// `file` mode: the test command and the plan.
    Command {
        /// The test command, quoted for a shell.
        command: String,
        /// The plan (`unit`, or `lang` and `strategy`).
        #[serde(flatten)]
        plan: Plan,
    },
    /// Fuzz mode: the target.
    Target {
        /// The fuzz target.
        target: String,
        /// The plan (`unit`, or `lang` and `strategy`).
        #[serde(flatten)]
        plan: Plan,
    },
}

/// How the bytes are reduced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum Plan {
    /// ddmin passes over these units (`line+char`, `byte`).
    Units {
        /// The units, `+`-separated.
        unit: String,
    },
    /// Syntax-aware reduction.
    Syntax {
        /// The language (`rust`, `js`).
        lang: String,
        /// The strategy, as `--strategy` spells it.
        strategy: String,
    },
}

/// The `reduction-finished` message, field for field and in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Finished {
    /// What was reduced.
    pub input: PathBuf,
    /// Where the result is.
    pub output: PathBuf,
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
    /// What stopped it, if something did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<StopReason>,
    /// Tests per step of a syntax-aware reduction, or of a fuzz artifact's
    /// byte reduction with a search (`--effort` above quick), in the order
    /// the steps first ran (absent for plain ddmin).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepTests>,
    /// What fuzz mode adds.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub artifact: Option<ArtifactFields>,
}

/// The `reduction-progress` message: the best result of a reduction so
/// far, when it changed. A reduction's messages of this kind, in order,
/// are its best size over time; the last one has the result's size (none
/// when the input was already minimal: then it is `reduction-started`'s
/// `original_bytes`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Improved {
    /// What is reduced, as `reduction-started` names it.
    pub input: PathBuf,
    /// Size of the best result so far, the whole of it. It only shrinks,
    /// except in `ice` where a dependency's source is taken in or the
    /// result is made readable.
    pub bytes: usize,
    /// Its tokens when the reduction is syntax-aware, as the benchmarks
    /// count them (runs of letters, digits, `_` and non-ASCII bytes, and
    /// every other byte that is not white space); null otherwise.
    pub tokens: Option<usize>,
    /// Every execution of the test so far, the checks of the input
    /// included.
    pub tests_run: u64,
    /// Seconds since the reduction started (millisecond precision), on a
    /// monotonic clock.
    pub elapsed_s: f64,
}

/// The tests one step of a reduction ran (every run of it together).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StepTests {
    /// The step (`coarse-hdd`, `hdd`, `hoist`, `plain`, `rename`,
    /// `literals`, `tokens`; `drop-values`, `ddmin`, `canonical`,
    /// `search-values`, `search-splice`, `search-2byte`, `search-chunks`,
    /// `search-runs`, `search-move`, `search-mutate`, `search-settle`).
    pub step: String,
    /// Tests it ran, cache hits not counted.
    pub tests: u64,
    /// Wall time spent in it, in seconds: with `tests`, where a slow
    /// target's time goes.
    pub elapsed_s: f64,
}

/// The fields fuzz mode adds to `reduction-finished`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ArtifactFields {
    /// The fuzz target.
    pub target: String,
    /// The failure's signature, as the result shows it (a panic's message
    /// is the result's own).
    pub failure: String,
    /// The short id of what `--match` compares of it.
    pub failure_id: String,
    /// How serious the failure is (docs/signatures.md).
    pub severity: Severity,
    /// A typed target's value, as its `Debug` form.
    pub debug: Option<String>,
    /// The command that runs the real engine's binary on the result (built
    /// with debug info by `cargo fuzz build` or `cargo afl build`), quoted
    /// for a shell: `cargo reduce run … --fuzz-target NAME FILE`; add
    /// `--debugger gdb` to start it under a debugger.
    pub run: String,
    /// Wall time of each phase.
    pub phases: Phases,
}

/// Wall time of each phase of one reduction, in seconds (microsecond
/// precision). The reproduction and the final check are bound by the
/// failure itself (a timeout artifact's runs take the whole timeout); the
/// reduction phase is what the algorithms and the pool decide.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Phases {
    /// Checking or reproducing the input.
    pub reproduce_s: f64,
    /// ddmin and canonicalization (with a timeout artifact's probes and
    /// their checks).
    pub reduce_s: f64,
    /// The result's final check and its writing.
    pub verify_s: f64,
}
