//! Reading the user's `Cargo.lock` (never writing it): where it is, and
//! which versions of a crate it pins.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::error::BuildError;
use super::invoke::run_for_output;

/// The `Cargo.lock` that governs `fuzz_dir` (its workspace's).
pub fn lock_file(fuzz_dir: &Path) -> Result<PathBuf, BuildError> {
    let mut command = Command::new("cargo");
    command
        .args([
            "locate-project",
            "--workspace",
            "--message-format",
            "plain",
            "--manifest-path",
        ])
        .arg(fuzz_dir.join("Cargo.toml"));
    let stdout = run_for_output(&mut command)?;
    let manifest = PathBuf::from(stdout.trim());
    Ok(manifest.with_file_name("Cargo.lock"))
}

/// [`lock_file`], which must exist: the stand-in takes its version from it.
pub fn existing_lock(fuzz_dir: &Path) -> Result<PathBuf, BuildError> {
    let lock = lock_file(fuzz_dir)?;
    if lock.is_file() {
        return Ok(lock);
    }
    Err(BuildError::NoLock {
        manifest: fuzz_dir.join("Cargo.toml"),
    })
}

/// Versions of package `name` from a registry in lock file `text`.
pub fn registry_versions(text: &str, name: &str) -> Vec<String> {
    let mut versions = Vec::new();
    for block in text.split("[[package]]").skip(1) {
        let field = |key: &str| {
            block.lines().find_map(|line| {
                let value = line
                    .trim()
                    .strip_prefix(key)?
                    .trim_start()
                    .strip_prefix('=')?;
                Some(value.trim().trim_matches('"').to_string())
            })
        };
        let from_registry =
            field("source").is_some_and(|s| s.starts_with("registry+") || s.starts_with("sparse+"));
        if field("name").as_deref() == Some(name) && from_registry {
            versions.extend(field("version"));
        }
    }
    versions
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_registry_versions_only() {
        let lock = r#"
[[package]]
name = "libfuzzer-sys"
version = "0.4.7"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "libfuzzer-sys"
version = "0.4.9"

[[package]]
name = "arbitrary"
version = "1.3.2"
source = "registry+https://github.com/rust-lang/crates.io-index"
"#;
        assert_eq!(registry_versions(lock, "libfuzzer-sys"), ["0.4.7"]);
        assert_eq!(registry_versions(lock, "arbitrary"), ["1.3.2"]);
    }
}
