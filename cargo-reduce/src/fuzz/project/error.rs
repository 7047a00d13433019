//! Why a fuzz project, target or artifact could not be found. Each message
//! is one line: what went wrong, which path, and what to do about it.

use std::io;
use std::path::PathBuf;

/// Why discovery failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum DiscoveryError {
    /// No `Cargo.toml` in the start directory or any parent.
    #[error(
        "could not find `Cargo.toml` in `{}` or any parent directory; run this inside a Rust project or pass --manifest-path",
        start.display()
    )]
    NoManifest {
        /// Where the upward search began (the current directory).
        start: PathBuf,
    },
    /// `--manifest-path` names no file.
    #[error(
        "manifest path `{}` does not exist; pass the path of a `Cargo.toml` to --manifest-path",
        path.display()
    )]
    ManifestMissing {
        /// The path given.
        path: PathBuf,
    },
    /// `--manifest-path` names a file other than a `Cargo.toml`.
    #[error(
        "`{}` is not a `Cargo.toml`; pass a fuzz crate's or workspace's `Cargo.toml` (or its folder) to --manifest-path",
        path.display()
    )]
    NotAManifest {
        /// The path given.
        path: PathBuf,
    },
    /// `cargo metadata` could not read a manifest.
    #[error(
        "`cargo metadata` failed for `{}`: {reason}; fix the manifest or pass another --manifest-path",
        manifest.display()
    )]
    Metadata {
        /// The manifest it was run on.
        manifest: PathBuf,
        /// Cargo's first error line (or why cargo could not run).
        reason: String,
    },
    /// Neither the workspace, a `fuzz/` directory beside it nor a folder
    /// below it holds a crate with `cargo-fuzz = true` in its
    /// `[package.metadata]` or one with afl.rs targets.
    #[error(
        "no cargo-fuzz crate or afl.rs target found (looked in {} and the folders below `{}`); run `cargo fuzz init`, or pass --manifest-path <fuzz crate>/Cargo.toml",
        crate::output::list_paths(looked),
        below.display()
    )]
    NoFuzzCrate {
        /// The manifests searched, and `fuzz/Cargo.toml` candidates tried.
        looked: Vec<PathBuf>,
        /// The workspace root, below which fuzz crates were looked for.
        below: PathBuf,
    },
    /// `-p NAME` names no fuzz crate.
    #[error("no fuzz package named `{name}` (fuzz packages: {}); check -p/--package", available.join(", "))]
    UnknownPackage {
        /// The name given.
        name: String,
        /// The fuzz packages found.
        available: Vec<String>,
    },
    /// The artifact path names no file.
    #[error(
        "input `{}` does not exist or is not a file; pass the path of an input file (an artifact: crash-, oom-, timeout-, leak-, slow-unit-)",
        path.display()
    )]
    ArtifactMissing {
        /// The path given.
        path: PathBuf,
    },
    /// A folder where an input's path goes.
    #[error(
        "input `{}` is a folder; pass the paths of the input files in it (`{}/*`), or no path at all to reduce every artifact not yet reduced",
        path.display(),
        path.display()
    )]
    InputIsAFolder {
        /// The path given.
        path: PathBuf,
    },
    /// A fuzz target's name where an input's path goes (`cargo fuzz
    /// tmin TARGET FILE`'s order), with no file of that name there.
    #[error(
        "`{name}` is a fuzz target, not an input file; give the input's path (its folder `artifacts/{name}/` or `corpus/{name}/` names its target; elsewhere add --fuzz-target {name})"
    )]
    TargetForInput {
        /// The target's name.
        name: String,
    },
    /// The artifact is not in `<fuzz dir>/artifacts/<target>/` (or
    /// `corpus/`, `corpus-min/`, `regressions/<target>/`) nor named as a
    /// ClusterFuzz testcase, so its target cannot be inferred.
    #[error(
        "`{}` is not in a target's folder of a fuzz crate (`artifacts/<target>/`, `corpus/`, `corpus-min/` or `regressions/<target>/`), nor a `clusterfuzz-testcase-…-<target>-…`; pass --fuzz-target to name its fuzz target",
        path.display()
    )]
    NoTarget {
        /// The artifact.
        path: PathBuf,
    },
    /// The artifact is in the `artifacts/` of a fuzz crate the run did not
    /// search.
    #[error(
        "the input is in the artifacts of the fuzz crate `{}`, which this run does not search; pass --manifest-path {}",
        manifest.parent().unwrap_or(manifest).display(),
        manifest.display()
    )]
    OtherCrate {
        /// That crate's manifest.
        manifest: PathBuf,
    },
    /// `--fuzz-target NAME` (or an `artifacts/NAME/` directory) names no target.
    #[error("no fuzz target named `{name}` (targets: {}); {}", known.join(", "), match from_folder {
        true => "check the artifact's `artifacts/<target>/` folder, or name its target with --fuzz-target",
        false => "check --fuzz-target",
    })]
    UnknownTarget {
        /// The name given or inferred.
        name: String,
        /// The targets of the fuzz crates searched.
        known: Vec<String>,
        /// Whether the name is an artifact's folder's, not --fuzz-target's.
        from_folder: bool,
    },
    /// `--engine` leaves no target of the selection.
    #[error("no fuzz target for {engine} is selected (targets: {}); check --engine and --fuzz-target", known.join(", "))]
    NoTargetOfEngine {
        /// The engine given (`libfuzzer`, `afl`).
        engine: &'static str,
        /// The targets selected before, with their engines.
        known: Vec<String>,
    },
    /// `--out-dir DIR` cannot be made or written.
    #[error("cannot write under --out-dir `{}` ({source}); choose a folder you can write", path.display())]
    OutDir {
        /// The folder given.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `--afl-out DIR` names no directory.
    #[error(
        "AFL output directory `{}` does not exist; pass the `-o` directory of afl-fuzz to --afl-out",
        path.display()
    )]
    AflOutMissing {
        /// The path given.
        path: PathBuf,
    },
    /// `--afl-out DIR` holds no afl-fuzz instance.
    #[error(
        "`{}` is not an AFL++ output directory: no instance (a folder with queue/ and fuzzer_stats or cmdline) in it or below; pass the `-o` directory of afl-fuzz to --afl-out",
        path.display()
    )]
    NotAflOutput {
        /// The path given.
        path: PathBuf,
    },
    /// `[package.metadata.cargo-reduce]` (or a target's table in it) has
    /// a key or value cargo-reduce does not take.
    #[error(
        "bad `[{table}]` in `{}`: {reason}; fix it (keys: timeout, rss-limit-mb, sanitizer, match, lang, strategy, effort, slow-unit-secs, targets)",
        manifest.display()
    )]
    Settings {
        /// The fuzz crate's manifest.
        manifest: PathBuf,
        /// The table (`package.metadata.cargo-reduce.targets.NAME`).
        table: String,
        /// What is wrong (serde's `unknown field `x`, expected …`).
        reason: String,
    },
    /// A directory or file could not be read.
    #[error("cannot read `{}`: {source}; check its permissions", path.display())]
    Io {
        /// What could not be read.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

impl DiscoveryError {
    /// The I/O error `source` on `path`.
    pub(crate) fn io(path: impl Into<PathBuf>, source: io::Error) -> Self {
        DiscoveryError::Io {
            path: path.into(),
            source,
        }
    }
}
