//! Reading a `Cargo.lock` (never writing the user's): where it is, which
//! versions of a crate it pins and from where, and what those depend on.

use toml_edit::{DocumentMut, Item};

/// The `Cargo.lock` that governs `fuzz_dir` (its workspace's); it may not
/// exist. (The build finds it through `cargo metadata`; the tests ask
/// cargo directly.)
#[cfg(test)]
pub(crate) fn lock_file(
    fuzz_dir: &std::path::Path,
) -> Result<std::path::PathBuf, super::error::BuildError> {
    use std::path::PathBuf;
    use std::process::Command;

    use super::invoke::run_for_output;

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

/// One `[[package]]` of a lock file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct LockedPackage {
    /// Its name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// Where it comes from (`registry+…`, `git+…`); empty for a path package.
    pub source: String,
    /// Its dependencies as the lock names them: `name`, or `name version`
    /// (and a source) when the lock holds several of that name.
    pub dependencies: Vec<String>,
}

impl LockedPackage {
    /// From a registry (crates.io or another).
    pub(super) fn is_registry(&self) -> bool {
        self.source.starts_with("registry+") || self.source.starts_with("sparse+")
    }

    /// The repository URL of a git source, without the `git+` scheme
    /// prefix, the query (`?rev=…`, `?branch=…`) and the commit
    /// (`#…`): what `[patch."<url>"]` names.
    pub(super) fn git_url(&self) -> Option<&str> {
        let url = self.source.strip_prefix("git+")?;
        let end = url.find(['?', '#']).unwrap_or(url.len());
        Some(&url[..end])
    }
}

/// Every package of the lock file in `text` (none if it is not TOML).
pub(super) fn packages(text: &str) -> Vec<LockedPackage> {
    let Ok(doc) = text.parse::<DocumentMut>() else {
        return Vec::new();
    };
    let Some(packages) = doc.get("package").and_then(Item::as_array_of_tables) else {
        return Vec::new();
    };
    let field =
        |t: &toml_edit::Table, key| t.get(key).and_then(Item::as_str).unwrap_or("").to_string();
    packages
        .iter()
        .map(|t| LockedPackage {
            name: field(t, "name"),
            version: field(t, "version"),
            source: field(t, "source"),
            dependencies: t
                .get("dependencies")
                .and_then(Item::as_array)
                .into_iter()
                .flatten()
                .filter_map(|d| d.as_str().map(String::from))
                .collect(),
        })
        .collect()
}

/// Versions of package `name` from a registry in lock file `text`.
pub(super) fn registry_versions(text: &str, name: &str) -> Vec<String> {
    packages(text)
        .into_iter()
        .filter(|p| p.name == name && p.is_registry())
        .map(|p| p.version)
        .collect()
}

/// The version of `dependency` that `package` depends on in the lock in
/// `text`.
pub(super) fn dependency_version(
    text: &str,
    package: &LockedPackage,
    dependency: &str,
) -> Option<String> {
    let named = package.dependencies.iter().find_map(|d| {
        let mut words = d.split(' ');
        (words.next() == Some(dependency)).then(|| words.next().map(String::from))
    })?;
    named.or_else(|| {
        // Named alone: the lock holds one package of that name.
        packages(text)
            .into_iter()
            .find(|p| p.name == dependency)
            .map(|p| p.version)
    })
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
    fn reads_git_sources_and_dependencies() {
        let lock = r#"
[[package]]
name = "libfuzzer-sys"
version = "0.4.10"
source = "git+https://github.com/rust-fuzz/libfuzzer-sys?rev=0123abc#0123abcdef"
dependencies = [
 "arbitrary 1.3.2",
 "cc",
]

[[package]]
name = "arbitrary"
version = "1.3.2"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "arbitrary"
version = "0.4.7"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "cc"
version = "1.0.0"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "local"
version = "0.1.0"
"#;
        let packages = packages(lock);
        let engine = &packages[0];
        assert!(!engine.is_registry());
        assert_eq!(
            engine.git_url(),
            Some("https://github.com/rust-fuzz/libfuzzer-sys")
        );
        assert_eq!(
            dependency_version(lock, engine, "arbitrary").as_deref(),
            Some("1.3.2")
        );
        assert_eq!(
            dependency_version(lock, engine, "cc").as_deref(),
            Some("1.0.0")
        );
        assert_eq!(dependency_version(lock, engine, "libc"), None);
        let local = packages.iter().find(|p| p.name == "local").unwrap();
        assert_eq!((local.source.as_str(), local.git_url()), ("", None));
        assert!(registry_versions(lock, "libfuzzer-sys").is_empty());
    }
}
