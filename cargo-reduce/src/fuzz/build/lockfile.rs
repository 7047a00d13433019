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
    sources(text, name)
        .into_iter()
        .filter(|(source, _)| is_registry(source))
        .map(|(_, version)| version)
        .collect()
}

/// Where the lock in `text` takes package `name` from other than a
/// registry: a `git+…` source, or `path` for a path dependency.
pub fn non_registry_source(text: &str, name: &str) -> Option<String> {
    sources(text, name)
        .into_iter()
        .map(|(source, _)| source)
        .find(|source| !is_registry(source))
        .map(|source| {
            if source.is_empty() {
                "a path".into()
            } else {
                source
            }
        })
}

fn is_registry(source: &str) -> bool {
    source.starts_with("registry+") || source.starts_with("sparse+")
}

/// (source, version) of every package `name` in the lock in `text`; the
/// source is empty for path packages.
fn sources(text: &str, name: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
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
        if field("name").as_deref() == Some(name) {
            found.push((
                field("source").unwrap_or_default(),
                field("version").unwrap_or_default(),
            ));
        }
    }
    found
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

    #[test]
    fn names_a_git_or_path_source() {
        let lock = r#"
[[package]]
name = "afl"
version = "0.18.2"
source = "git+https://github.com/rust-fuzz/afl.rs#0123abcd"

[[package]]
name = "local"
version = "0.1.0"
"#;
        assert_eq!(
            non_registry_source(lock, "afl").as_deref(),
            Some("git+https://github.com/rust-fuzz/afl.rs#0123abcd")
        );
        assert_eq!(
            non_registry_source(lock, "local").as_deref(),
            Some("a path")
        );
        assert_eq!(non_registry_source(lock, "arbitrary"), None);
        assert!(registry_versions(lock, "afl").is_empty());
    }
}
