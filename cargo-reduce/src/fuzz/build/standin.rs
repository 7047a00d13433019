//! A fuzz engine's crate as cargo-reduce stands in for it: the crate it
//! replaces, the source files written out for the build, and the versions
//! it implements. One build serves every engine; what differs is a
//! [`StandIn`] value ([`crate::fuzz::libfuzzer::LIBFUZZER_SYS`]).

use std::path::Path;

use super::error::{io_error, BuildError};
use super::lockfile::{existing_lock, non_registry_source, registry_versions};

/// The modules every stand-in shares (`cargo-reduce/harness/src/`): the
/// worker, what a failure records, its call path, the test thread's
/// stack, the protocol, the C library's declarations, and the
/// alternate signal stacks.
pub const SHARED_FILES: &[(&str, &str)] = &[
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
        "src/trace.rs",
        include_str!("../../../harness/src/trace.rs"),
    ),
    (
        "src/stack.rs",
        include_str!("../../../harness/src/stack.rs"),
    ),
    ("src/sys.rs", include_str!("../../../harness/src/sys.rs")),
    (
        "src/altstack.rs",
        include_str!("../../../harness/src/altstack.rs"),
    ),
];

/// A stand-in crate, shipped inside cargo-reduce as source.
#[derive(Debug)]
pub struct StandIn {
    /// The crate it replaces (`libfuzzer-sys`).
    pub package: &'static str,
    /// Its own files, relative to its directory (beside [`SHARED_FILES`]).
    /// `@VERSION@` in `Cargo.toml` becomes the locked version, so cargo's
    /// patch replaces exactly the locked package and re-resolves nothing
    /// else.
    pub files: &'static [(&'static str, &'static str)],
    /// The versions it implements, as users read them (`0.4.x`).
    pub versions: &'static str,
    /// True for a locked version it implements.
    pub supports: fn(&str) -> bool,
    /// The engine's own build flags minus its instrumentation (cargo-fuzz's
    /// or cargo-afl's `RUSTFLAGS`).
    pub rustflags: &'static str,
    /// Whether the engine's builds are release builds (`cargo fuzz build`)
    /// or debug ones (`cargo afl build`): stack depth and speed differ.
    pub release: bool,
}

impl StandIn {
    /// The version of the crate (from crates.io) that `fuzz_dir`'s lock
    /// file holds.
    pub fn locked_version(&self, fuzz_dir: &Path) -> Result<String, BuildError> {
        let lock = existing_lock(fuzz_dir)?;
        let text = std::fs::read_to_string(&lock).map_err(io_error(&lock))?;
        let mut versions = registry_versions(&text, self.package);
        match versions.len() {
            0 => Err(BuildError::NotLocked {
                elsewhere: non_registry_source(&text, self.package),
                lock,
                package: self.package,
            }),
            1 => Ok(versions.remove(0)),
            _ => Err(BuildError::SeveralVersions {
                lock,
                package: self.package,
                versions,
            }),
        }
    }

    /// Every file of the stand-in: its own and the shared modules.
    pub fn all_files(&self) -> impl Iterator<Item = &(&'static str, &'static str)> {
        self.files.iter().chain(SHARED_FILES)
    }

    /// Writes the stand-in into `dir` as version `version`. Files whose
    /// content is unchanged are left alone, so cargo does not rebuild.
    pub fn write(&self, dir: &Path, version: &str) -> Result<(), BuildError> {
        for (name, content) in self.all_files() {
            let content = match *name {
                "Cargo.toml" => content.replace("@VERSION@", version),
                _ => content.to_string(),
            };
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
                ("Cargo.toml", "version = \"@VERSION@\""),
                ("src/lib.rs", ""),
            ],
            versions: "1.x",
            supports: |_| true,
            rustflags: "",
            release: true,
        };
        stand_in.write(dir.path(), "1.2.3").unwrap();
        let manifest = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
        assert_eq!(manifest, "version = \"1.2.3\"");
        assert!(dir.path().join("src/lib.rs").exists());
    }
}
