//! A fuzz engine's crate as cargo-reduce stands in for it: the crate it
//! replaces, the source files written out for the build, and the versions
//! it implements. One build serves every engine; what differs is a
//! [`StandIn`] value ([`crate::fuzz::engines::libfuzzer::LIBFUZZER_SYS`]).

use std::path::{Path, PathBuf};

use super::error::{io_error, BuildError};
use super::lockfile::{dependency_version, packages};
use super::shadow;

/// The modules every stand-in shares (`cargo-reduce/harness/src/`): the
/// worker, what a failure records, its call path, the test thread's
/// stack, the sanitizer's report, the protocol, the C library's
/// declarations, the alternate signal stacks, `getrandom`, and the hooks
/// that show a typed input's decoding.
pub(crate) const SHARED_FILES: &[(&str, &str)] = &[
    (
        "src/protocol.rs",
        include_str!("../../../harness/src/protocol.rs"),
    ),
    (
        "src/worker.rs",
        include_str!("../../../harness/src/worker.rs"),
    ),
    (
        "src/capture.rs",
        include_str!("../../../harness/src/capture.rs"),
    ),
    (
        "src/fault_trace.rs",
        include_str!("../../../harness/src/fault_trace.rs"),
    ),
    ("src/fork.rs", include_str!("../../../harness/src/fork.rs")),
    (
        "src/leaks.rs",
        include_str!("../../../harness/src/leaks.rs"),
    ),
    (
        "src/trace.rs",
        include_str!("../../../harness/src/trace.rs"),
    ),
    (
        "src/stack.rs",
        include_str!("../../../harness/src/stack.rs"),
    ),
    (
        "src/sanitizer.rs",
        include_str!("../../../harness/src/sanitizer.rs"),
    ),
    (
        "src/snapshot.rs",
        include_str!("../../../harness/src/snapshot.rs"),
    ),
    (
        "src/random.rs",
        include_str!("../../../harness/src/random.rs"),
    ),
    ("src/sys.rs", include_str!("../../../harness/src/sys.rs")),
    (
        "src/coverage.rs",
        include_str!("../../../harness/src/coverage.rs"),
    ),
    (
        "src/pc_table.rs",
        include_str!("../../../harness/src/pc_table.rs"),
    ),
    (
        "src/decode.rs",
        include_str!("../../../harness/src/decode.rs"),
    ),
    (
        "src/altstack.rs",
        include_str!("../../../harness/src/altstack.rs"),
    ),
];

/// A stand-in crate, shipped inside cargo-reduce as source.
#[derive(Debug)]
pub(crate) struct StandIn {
    /// The crate it replaces (`libfuzzer-sys`).
    pub package: &'static str,
    /// Its own files, relative to its directory (beside [`SHARED_FILES`]).
    /// `@VERSION@` in `Cargo.toml` becomes the locked version, so cargo's
    /// patch replaces exactly the locked package and re-resolves nothing
    /// else.
    pub files: &'static [(&'static str, &'static str)],
    /// The versions it implements, as users read them (`0.4.x`).
    pub versions: &'static str,
    /// The requirement that picks a version it implements, for the hint on
    /// one it does not (`0.4`).
    pub suggest: &'static str,
    /// True for a locked version it implements.
    pub supports: fn(&str) -> bool,
    /// The engine's own build flags minus its instrumentation (cargo-fuzz's
    /// or cargo-afl's `RUSTFLAGS`).
    pub rustflags: &'static str,
    /// Whether the engine's builds are release builds (`cargo fuzz build`)
    /// or debug ones (`cargo afl build`): stack depth and speed differ.
    pub release: bool,
}

/// Where a lock takes the engine crate from: the source the stand-in
/// replaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// crates.io (`[patch.crates-io]`).
    Registry,
    /// A git repository: its URL (`[patch."<url>"]`).
    Git(String),
    /// A path dependency: its directory (`[patch."file://<dir>"]`), once
    /// [`Locked::located`] found it in the manifests (a lock does not say
    /// where a path package is).
    Path(Option<PathBuf>),
}

/// The engine crate as a lock holds it: what the stand-in is written out
/// as, and which source it replaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Locked {
    /// Its version.
    pub version: String,
    /// Where it comes from.
    pub source: Source,
    /// The version of `arbitrary` it depends on: the stand-in re-exports
    /// that one (`@ARBITRARY@`), so that the targets' `Arbitrary` impls
    /// are for the trait it decodes with.
    pub arbitrary: Option<String>,
}

impl Locked {
    /// The engine with the directory of a path source found: the path
    /// dependency of that name of the package whose manifest is
    /// `manifest`, or of another package of its workspace. A path engine
    /// reached only through a package outside the workspace is refused
    /// ([`BuildError::PathNotFound`]).
    pub(crate) fn located(
        self,
        manifest: &Path,
        package: &'static str,
    ) -> Result<Locked, BuildError> {
        if self.source != Source::Path(None) {
            return Ok(self);
        }
        let metadata = shadow::metadata_no_deps(manifest)?;
        let own = |p: &&cargo_metadata::Package| {
            shadow::same_path(p.manifest_path.as_std_path(), manifest)
        };
        let (mine, others): (Vec<_>, Vec<_>) = metadata.packages.iter().partition(own);
        let dir = mine
            .iter()
            .chain(&others)
            .flat_map(|p| &p.dependencies)
            .find(|d| d.name == package && d.path.is_some())
            .and_then(|d| d.path.clone());
        match dir {
            Some(dir) => Ok(Locked {
                source: Source::Path(Some(dir.into_std_path_buf())),
                ..self
            }),
            None => Err(BuildError::PathNotFound {
                manifest: manifest.to_path_buf(),
                package,
            }),
        }
    }
}

impl StandIn {
    /// The crate as the lock file `lock` holds it, from crates.io, git or
    /// a path (then [`Locked::located`] says where).
    pub(crate) fn locked(&self, lock: &Path) -> Result<Locked, BuildError> {
        let text = std::fs::read_to_string(lock).map_err(io_error(lock))?;
        let mut found: Vec<_> = packages(&text)
            .into_iter()
            .filter(|p| p.name == self.package)
            .collect();
        match found.len() {
            0 => Err(BuildError::NotLocked {
                lock: lock.to_path_buf(),
                package: self.package,
            }),
            1 => {
                let package = found.remove(0);
                let source = match package.git_url() {
                    Some(url) => Source::Git(url.to_string()),
                    None if package.source.is_empty() => Source::Path(None),
                    None => Source::Registry,
                };
                Ok(Locked {
                    source,
                    arbitrary: dependency_version(&text, &package, "arbitrary"),
                    version: package.version,
                })
            }
            _ => Err(BuildError::SeveralVersions {
                lock: lock.to_path_buf(),
                package: self.package,
                versions: found.into_iter().map(|p| p.version).collect(),
            }),
        }
    }

    /// Every file of the stand-in: its own and the shared modules.
    pub(crate) fn all_files(&self) -> impl Iterator<Item = &(&'static str, &'static str)> {
        self.files.iter().chain(SHARED_FILES)
    }

    /// A stand-in file's content for the engine `locked`: the manifest
    /// gets its version and the `arbitrary` it depends on. arbitrary 0.1
    /// and 0.2 (libfuzzer-sys 0.1.x) have no `derive` feature, which cargo
    /// rejects a feature naming: there, `arbitrary-derive` enables nothing
    /// (libfuzzer-sys 0.1.x had no such feature either).
    pub(crate) fn render(name: &str, content: &str, locked: &Locked) -> String {
        match name {
            "Cargo.toml" => {
                let arbitrary = locked
                    .arbitrary
                    .as_ref()
                    .map_or("*".to_string(), |v| format!("={v}"));
                let rendered = content
                    .replace("@VERSION@", &locked.version)
                    .replace("@ARBITRARY@", &arbitrary);
                match locked.arbitrary.as_deref() {
                    Some(v) if v.starts_with("0.1.") || v.starts_with("0.2.") => rendered.replace(
                        "arbitrary-derive = [\"arbitrary/derive\"]",
                        "arbitrary-derive = []",
                    ),
                    _ => rendered,
                }
            }
            _ => content.to_string(),
        }
    }

    /// Writes the stand-in into `dir` as the `locked` crate. Files whose
    /// content is unchanged are left alone, so cargo does not rebuild.
    pub(crate) fn write(&self, dir: &Path, locked: &Locked) -> Result<(), BuildError> {
        for (name, content) in self.all_files() {
            let content = Self::render(name, content, locked);
            let path = dir.join(name);
            if std::fs::read(&path).is_ok_and(|old| old == content.as_bytes()) {
                continue;
            }
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(io_error(parent))?;
            }
            std::fs::write(&path, content).map_err(io_error(&path))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manifest_gets_the_version() {
        let dir = tempfile::tempdir().unwrap();
        let stand_in = StandIn {
            package: "engine",
            files: &[
                (
                    "Cargo.toml",
                    "version = \"@VERSION@\" arbitrary = \"@ARBITRARY@\"",
                ),
                ("src/lib.rs", ""),
            ],
            versions: "1.x",
            suggest: "1",
            supports: |_| true,
            rustflags: "",
            release: true,
        };
        let locked = Locked {
            version: "1.2.3".into(),
            source: Source::Registry,
            arbitrary: Some("0.4.7".into()),
        };
        stand_in.write(dir.path(), &locked).unwrap();
        let manifest = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
        assert_eq!(manifest, "version = \"1.2.3\" arbitrary = \"=0.4.7\"");
        assert!(dir.path().join("src/lib.rs").exists());
    }
}
