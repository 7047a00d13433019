//! Finds the cargo-fuzz crates of a project, their fuzz targets, and the
//! artifacts libFuzzer left for each target, the way `cargo fuzz` users
//! expect.
//!
//! The start is the manifest given with `--manifest-path`, else the nearest
//! `Cargo.toml` upward from the current directory (like cargo). Fuzz crates
//! are packages with `cargo-fuzz = true` in `[package.metadata]`: those of
//! that manifest's workspace and, when the manifest is not itself a fuzz
//! crate, of `fuzz/Cargo.toml` beside the workspace root or the package,
//! which is normally a workspace of its own. `cargo metadata --no-deps` reads
//! every manifest, so discovery needs no network and no dependency
//! resolution.

mod artifact;
mod error;
#[cfg(test)]
mod tests;

use std::fs;
use std::path::{Path, PathBuf};

use cargo_metadata::{Metadata, MetadataCommand, Package, TargetKind};

pub use artifact::{
    locate_artifact, scan_artifacts, Artifact, ArtifactKind, ArtifactLocation, MINIMIZED_PREFIX,
    PARTIAL_PREFIX,
};
pub use error::DiscoveryError;

/// A cargo-fuzz crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FuzzProject {
    /// Its package name (what `-p` selects).
    pub package: String,
    /// Its `Cargo.toml`.
    pub manifest_path: PathBuf,
    /// The directory of its `Cargo.toml`; `artifacts/` and `corpus/` live
    /// here.
    pub fuzz_dir: PathBuf,
    /// The root of the workspace it belongs to (often itself).
    pub workspace_root: PathBuf,
    /// Where cargo builds it.
    pub target_dir: PathBuf,
    /// Its workspace's `Cargo.lock`, which pins the `libfuzzer-sys` its
    /// targets are built with (it may not exist yet).
    pub lock_file: PathBuf,
    /// Its fuzz targets, sorted by name.
    pub targets: Vec<FuzzTarget>,
}

/// A fuzz target: one `[[bin]]` of a fuzz crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FuzzTarget {
    /// Its name (what `cargo fuzz run NAME` takes).
    pub name: String,
    /// Its source file.
    pub source: PathBuf,
    /// `<fuzz dir>/artifacts/<name>`, where libFuzzer writes its artifacts.
    pub artifacts_dir: PathBuf,
    /// The artifacts in there, sorted by name.
    pub artifacts: Vec<Artifact>,
}

/// The fuzz crates of the project around the current directory, or of
/// `manifest_path`; only those named in `packages` unless it is empty.
pub fn discover(
    manifest_path: Option<&Path>,
    packages: &[String],
) -> Result<Vec<FuzzProject>, DiscoveryError> {
    let cwd = std::env::current_dir().map_err(|e| DiscoveryError::io(".", e))?;
    discover_from(&cwd, manifest_path, packages)
}

/// [`discover`] as if run in `cwd` (a relative `manifest_path` is relative
/// to it); tests and callers that must not change the process's directory
/// use this.
pub fn discover_from(
    cwd: &Path,
    manifest_path: Option<&Path>,
    packages: &[String],
) -> Result<Vec<FuzzProject>, DiscoveryError> {
    let manifest = match manifest_path {
        Some(path) => given_manifest(&cwd.join(path))?,
        None => nearest_manifest(cwd)?,
    };
    select_packages(fuzz_projects(&manifest)?, packages)
}

/// Keeps only target `name` in each of `projects`, and only the projects
/// that have it (for `--target`).
pub fn select_target(projects: &mut Vec<FuzzProject>, name: &str) -> Result<(), DiscoveryError> {
    if !projects
        .iter()
        .any(|p| p.targets.iter().any(|t| t.name == name))
    {
        return Err(artifact::unknown_target(projects, name));
    }
    for project in projects.iter_mut() {
        project.targets.retain(|t| t.name == name);
    }
    projects.retain(|p| !p.targets.is_empty());
    Ok(())
}

/// `--manifest-path`: a `Cargo.toml`, or a directory holding one.
fn given_manifest(path: &Path) -> Result<PathBuf, DiscoveryError> {
    let file = if path.is_dir() {
        path.join("Cargo.toml")
    } else {
        path.to_path_buf()
    };
    match fs::canonicalize(&file) {
        Ok(canonical) if canonical.is_file() => Ok(canonical),
        _ => Err(DiscoveryError::ManifestMissing {
            path: path.to_path_buf(),
        }),
    }
}

/// The nearest `Cargo.toml` in `start` or a parent (`cargo locate-project`).
fn nearest_manifest(start: &Path) -> Result<PathBuf, DiscoveryError> {
    start
        .ancestors()
        .map(|dir| dir.join("Cargo.toml"))
        .find(|manifest| manifest.is_file())
        .and_then(|manifest| fs::canonicalize(manifest).ok())
        .ok_or_else(|| DiscoveryError::NoManifest {
            start: start.to_path_buf(),
        })
}

/// The fuzz crates of `manifest`'s workspace and of the `fuzz/` crates
/// beside it, sorted by package name.
fn fuzz_projects(manifest: &Path) -> Result<Vec<FuzzProject>, DiscoveryError> {
    let metadata = read_metadata(manifest)?;
    let mut looked = vec![manifest.to_path_buf()];
    let mut projects = fuzz_crates(&metadata)?;
    if !projects.iter().any(|p| p.manifest_path == manifest) {
        for candidate in beside_candidates(manifest, &metadata) {
            if candidate.is_file() {
                projects.extend(fuzz_crates(&read_metadata(&candidate)?)?);
            }
            looked.push(candidate);
        }
    }
    if projects.is_empty() {
        return Err(DiscoveryError::NoFuzzCrate { looked });
    }
    projects.sort_by(|a, b| (&a.package, &a.manifest_path).cmp(&(&b.package, &b.manifest_path)));
    // A member `fuzz/` crate is found twice: in its workspace and beside it.
    projects.dedup_by(|a, b| a.manifest_path == b.manifest_path);
    Ok(projects)
}

/// Where `cargo fuzz init` puts a fuzz crate for this project: `fuzz/`
/// beside the workspace root, and beside the package.
fn beside_candidates(manifest: &Path, metadata: &Metadata) -> Vec<PathBuf> {
    let root = metadata.workspace_root.as_std_path();
    let package_dir = manifest.parent().unwrap_or(root);
    let mut candidates: Vec<PathBuf> = [root, package_dir]
        .iter()
        .map(|dir| dir.join("fuzz").join("Cargo.toml"))
        .map(|path| fs::canonicalize(&path).unwrap_or(path))
        .filter(|path| path != manifest)
        .collect();
    candidates.dedup();
    candidates
}

/// `cargo metadata --no-deps` on `manifest`.
fn read_metadata(manifest: &Path) -> Result<Metadata, DiscoveryError> {
    MetadataCommand::new()
        .manifest_path(manifest)
        .no_deps()
        .exec()
        .map_err(|e| DiscoveryError::Metadata {
            manifest: manifest.to_path_buf(),
            reason: metadata_failure(&e),
        })
}

/// Cargo's first error line, without its `error: ` prefix; or the whole
/// error when cargo did not run.
fn metadata_failure(error: &cargo_metadata::Error) -> String {
    let cargo_metadata::Error::CargoMetadata { stderr } = error else {
        return error.to_string();
    };
    let lines = || stderr.lines().map(str::trim).filter(|l| !l.is_empty());
    let line = lines()
        .find(|l| l.starts_with("error"))
        .or_else(|| lines().next())
        .unwrap_or("cargo printed no error message");
    line.strip_prefix("error: ").unwrap_or(line).to_string()
}

/// The fuzz crates among the workspace members in `metadata`.
fn fuzz_crates(metadata: &Metadata) -> Result<Vec<FuzzProject>, DiscoveryError> {
    metadata
        .packages
        .iter()
        .filter(|p| is_fuzz_crate(p))
        .map(|p| fuzz_project(p, metadata))
        .collect()
}

/// True for a package with `cargo-fuzz = true` in `[package.metadata]`.
fn is_fuzz_crate(package: &Package) -> bool {
    package.metadata.get("cargo-fuzz").and_then(|v| v.as_bool()) == Some(true)
}

fn fuzz_project(package: &Package, metadata: &Metadata) -> Result<FuzzProject, DiscoveryError> {
    let manifest_path = package.manifest_path.clone().into_std_path_buf();
    let manifest_path = fs::canonicalize(&manifest_path).unwrap_or(manifest_path);
    let fuzz_dir = manifest_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let workspace_root = metadata.workspace_root.clone().into_std_path_buf();
    let mut targets = Vec::new();
    for target in package
        .targets
        .iter()
        .filter(|t| t.is_kind(TargetKind::Bin))
    {
        let artifacts_dir = fuzz_dir.join("artifacts").join(&target.name);
        targets.push(FuzzTarget {
            name: target.name.clone(),
            source: target.src_path.clone().into_std_path_buf(),
            artifacts: scan_artifacts(&artifacts_dir)?,
            artifacts_dir,
        });
    }
    targets.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(FuzzProject {
        package: package.name.to_string(),
        lock_file: workspace_root.join("Cargo.lock"),
        manifest_path,
        fuzz_dir,
        workspace_root,
        target_dir: metadata.target_directory.clone().into_std_path_buf(),
        targets,
    })
}

/// Keeps the projects named in `packages` (all when it is empty); every
/// name must be a fuzz crate's.
fn select_packages(
    projects: Vec<FuzzProject>,
    packages: &[String],
) -> Result<Vec<FuzzProject>, DiscoveryError> {
    if let Some(name) = packages
        .iter()
        .find(|name| !projects.iter().any(|p| &p.package == *name))
    {
        let mut available: Vec<String> = projects.iter().map(|p| p.package.clone()).collect();
        available.dedup();
        return Err(DiscoveryError::UnknownPackage {
            name: name.clone(),
            available,
        });
    }
    Ok(projects
        .into_iter()
        .filter(|p| packages.is_empty() || packages.contains(&p.package))
        .collect())
}
