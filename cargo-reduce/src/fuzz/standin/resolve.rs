//! A lock for a fuzz crate that has none, or whose workspace's lock does
//! not hold it: most libraries commit no `Cargo.lock` for their fuzz crate,
//! and `cargo fuzz build` resolves one. So does this, as cargo would (a
//! `cargo metadata` that writes the lock), on a shadow (`shadow.rs`) of
//! its own, so that the user's folder is never written. The resolved lock
//! is kept there and seeds the next run's resolution, so versions stay put
//! from run to run, as with a committed lock, and only the first run needs
//! the network.
//!
//! Online first, as `cargo fuzz build` resolves (the artifact was most
//! likely found with what the registry and the git repositories held);
//! offline only when that fails (no network): cargo's offline resolution
//! takes the newest *downloaded* versions and the last *fetched* commit of
//! a git dependency, which may decode typed inputs differently (arbitrary
//! 1.x minor releases do) or run other code.
//!
//! An engine crate taken from git (`libfuzzer-sys = { git = … }`) is not
//! fetched: the stand-in replaces it in the build, so the resolution (and
//! the build after it) depends on a placeholder copy of the stand-in by
//! path instead (`shadow::Placeholder`), written as the dependency's
//! version or the newest the stand-in implements.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::crate_files::{Locked, Source, StandIn};
use super::error::{io_error, BuildError};
use super::lockfile::packages;
use super::shadow::{self, Placeholder};

/// The lock file a build takes its versions from.
#[derive(Debug)]
pub(super) struct Lock {
    /// Its path: the user's, or one resolved for this run.
    pub path: PathBuf,
    /// When resolved: the one line that says so.
    pub resolved: Option<String>,
    /// When resolved: the placeholders that stand for engines from git.
    pub placeholders: Vec<Placeholder>,
}

/// The lock of the fuzz crate whose manifest is `manifest`: the user's
/// `user_lock` when it locks `package`; else one resolved in a directory
/// of that crate's own under `parent` (seeded with the user's lock when
/// there is one, else with the last run's), so no other crate's versions
/// leak into it; `engines` taken from git get placeholders there.
pub(super) fn lock(
    package: &str,
    engines: &[&StandIn],
    manifest: &Path,
    user_lock: &Path,
    parent: &Path,
) -> Result<Lock, BuildError> {
    let exists = user_lock.is_file();
    if exists {
        let text = std::fs::read_to_string(user_lock).map_err(io_error(user_lock))?;
        if packages(&text).iter().any(|p| p.name == package) {
            return Ok(Lock {
                path: user_lock.to_path_buf(),
                resolved: None,
                placeholders: Vec::new(),
            });
        }
    }
    let absolute = std::fs::canonicalize(manifest).unwrap_or_else(|_| manifest.to_path_buf());
    let key = xxhash_rust::xxh3::xxh3_64(absolute.as_os_str().as_encoded_bytes());
    let dir = parent.join(format!("{key:016x}"));
    let placeholders = placeholders(engines, manifest, &dir)?;
    let shadow = shadow::prepare(manifest, exists.then_some(user_lock), &dir, &placeholders)?;
    resolve(&shadow.manifest, manifest)?;
    let path = dir.join("Cargo.lock");
    let resolved = if exists {
        format!(
            "{} does not lock {package}: resolved the fuzz crate's dependencies for this run in {} (yours is unchanged)",
            user_lock.display(),
            path.display()
        )
    } else {
        format!(
            "no Cargo.lock in {}: resolved one for this run, kept as {} (your folder is unchanged)",
            user_lock.parent().unwrap_or(Path::new(".")).display(),
            path.display()
        )
    };
    Ok(Lock {
        path,
        resolved: Some(resolved),
        placeholders,
    })
}

/// A placeholder under `dir` for each of `engines` that the package of
/// `manifest` takes from git.
fn placeholders(
    engines: &[&StandIn],
    manifest: &Path,
    dir: &Path,
) -> Result<Vec<Placeholder>, BuildError> {
    let metadata = shadow::metadata_no_deps(manifest)?;
    let Some(package) = metadata
        .packages
        .iter()
        .find(|p| shadow::same_path(p.manifest_path.as_std_path(), manifest))
    else {
        return Ok(Vec::new());
    };
    let mut placeholders = Vec::new();
    for engine in engines {
        let from_git = package.dependencies.iter().find(|d| {
            d.name == engine.package
                && d.source
                    .as_ref()
                    .is_some_and(|s| s.repr.starts_with("git+"))
        });
        let Some(dependency) = from_git else {
            continue;
        };
        let locked = Locked {
            version: placeholder_version(&dependency.req.to_string(), engine.suggest),
            source: Source::Registry,
            arbitrary: None,
        };
        let placeholder = dir.join(format!("placeholder-{}", engine.package));
        engine.write(&placeholder, &locked)?;
        placeholders.push(Placeholder {
            package: engine.package,
            dir: placeholder,
        });
    }
    Ok(placeholders)
}

/// The version a placeholder is written as: the one a git dependency's
/// requirement names (`0.4` → `0.4.0`), else the newest line the stand-in
/// implements (`suggest`); `*` (no requirement) takes `suggest`.
fn placeholder_version(requirement: &str, suggest: &str) -> String {
    let requirement = requirement.trim_start_matches(['^', '=', '~', ' ']);
    let parts: Vec<&str> = requirement.split('.').collect();
    let numeric = parts.len() <= 3 && parts.iter().all(|p| p.parse::<u64>().is_ok());
    let named = if numeric { requirement } else { suggest };
    let mut version: Vec<&str> = named.split('.').collect();
    version.resize(3, "0");
    version.join(".")
}

/// Resolves the dependencies of the shadow manifest `shadow` into its
/// `Cargo.lock`: online, else offline; cargo's online error if neither
/// works. Run from the fuzz crate's folder with the build's flags, so that
/// cargo reads the configuration the build reads.
fn resolve(shadow: &Path, manifest: &Path) -> Result<(), BuildError> {
    let metadata = |offline: bool| {
        let mut command = Command::new("cargo");
        if let Some(dir) = manifest.parent().filter(|d| !d.as_os_str().is_empty()) {
            command.current_dir(dir);
        }
        super::with_build_rustflags(&mut command)
            .args(["metadata", "--format-version", "1", "--manifest-path"])
            .arg(shadow)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if offline {
            command.arg("--offline");
        }
        command.output().map_err(|source| BuildError::Spawn {
            command: format!("cargo metadata --manifest-path {}", shadow.display()),
            source,
        })
    };
    let online = metadata(false)?;
    if super::invoke::interrupted(online.status) {
        return Err(BuildError::Interrupted);
    }
    if online.status.success() || metadata(true)?.status.success() {
        return Ok(());
    }
    Err(BuildError::Resolve {
        manifest: manifest.to_path_buf(),
        reason: cargo_error(&String::from_utf8_lossy(&online.stderr)),
    })
}

/// cargo's error, on one line: its `error:` line and the causes after it.
fn cargo_error(stderr: &str) -> String {
    let from_error = stderr
        .lines()
        .skip_while(|l| !l.starts_with("error"))
        .map(str::trim)
        .filter(|l| !l.is_empty() && *l != "Caused by:");
    let text = from_error.collect::<Vec<_>>().join(" ");
    let text = text.strip_prefix("error: ").unwrap_or(&text);
    match text.char_indices().nth(400) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_placeholder_has_the_version_its_dependency_asks_for() {
        assert_eq!(placeholder_version("*", "0.4"), "0.4.0");
        assert_eq!(placeholder_version("^0.3", "0.4"), "0.3.0");
        assert_eq!(placeholder_version("=0.4.7", "0.4"), "0.4.7");
        assert_eq!(placeholder_version(">=0.2, <0.5", "0.18"), "0.18.0");
    }

    #[test]
    fn cargo_errors_are_one_line() {
        let stderr = "    Updating crates.io index\nerror: failed to select a version for the requirement `libfuzzer-sys = \"=0.4.999\"`\ncandidate versions found which didn't match: 0.4.13\n\nCaused by:\n  nothing\n";
        assert_eq!(
            cargo_error(stderr),
            "failed to select a version for the requirement `libfuzzer-sys = \"=0.4.999\"` candidate versions found which didn't match: 0.4.13 nothing"
        );
    }

    /// A crate with no lock: one is resolved apart, the crate's folder gets
    /// none, and a second run finds the same one.
    #[test]
    fn a_crate_without_a_lock_gets_one_apart() {
        let tmp = tempfile::tempdir().unwrap();
        let krate = tmp.path().join("fuzz");
        std::fs::create_dir_all(krate.join("src")).unwrap();
        std::fs::write(
            krate.join("Cargo.toml"),
            "[package]\nname = \"f\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nlocal = { path = \"local\" }\n\n[workspace]\n",
        )
        .unwrap();
        std::fs::write(krate.join("src/lib.rs"), "").unwrap();
        // A nightly-only flag in the crate's config (image-rs/image's
        // fuzz-afl has one): the build replaces it, and so must the
        // resolution.
        std::fs::create_dir_all(krate.join(".cargo")).unwrap();
        std::fs::write(
            krate.join(".cargo/config.toml"),
            "[build]\nrustflags = [\"-Znew-llvm-pass-manager=no\"]\n",
        )
        .unwrap();
        std::fs::create_dir_all(krate.join("local/src")).unwrap();
        std::fs::write(
            krate.join("local/Cargo.toml"),
            "[package]\nname = \"local\"\nversion = \"0.3.0\"\nedition = \"2021\"\n",
        )
        .unwrap();
        std::fs::write(krate.join("local/src/lib.rs"), "").unwrap();
        let parent = tmp.path().join("resolved");
        let user_lock = krate.join("Cargo.lock");
        let lock =
            super::lock("local", &[], &krate.join("Cargo.toml"), &user_lock, &parent).unwrap();
        assert!(lock.path.starts_with(&parent));
        let said = lock.resolved.unwrap();
        assert!(said.starts_with("no Cargo.lock in "), "{said}");
        assert!(said.contains(&lock.path.display().to_string()), "{said}");
        let text = std::fs::read_to_string(&lock.path).unwrap();
        assert!(packages(&text).iter().any(|p| p.name == "local"), "{text}");
        assert!(!user_lock.exists(), "the user's folder is not written");
        let again =
            super::lock("local", &[], &krate.join("Cargo.toml"), &user_lock, &parent).unwrap();
        assert_eq!(again.path, lock.path);
        assert_eq!(std::fs::read_to_string(&again.path).unwrap(), text);
    }
}
