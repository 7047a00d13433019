//! Finds the fuzz crates of a project, their fuzz targets, and the failing
//! inputs the fuzzers left for each target: the artifacts libFuzzer wrote
//! the way `cargo fuzz` users expect, and the crashes and hangs of the
//! AFL++ instances that ran afl.rs targets ([`campaign`]).
//!
//! The start is the manifest given with `--manifest-path`, else the nearest
//! `Cargo.toml` upward from the current directory (like cargo). Fuzz crates
//! are packages with `cargo-fuzz = true` in `[package.metadata]` and
//! packages that depend on `afl` (a package may have targets of both
//! engines, each its own [`FuzzProject`]): those of
//! that manifest's workspace and, when the manifest is not itself a fuzz
//! crate, of `fuzz/Cargo.toml` beside the workspace root or the package,
//! which is normally a workspace of its own; when none of those holds one,
//! of the crates a few folders below the workspace root that name a fuzz
//! engine ([`nested`]). `cargo metadata --no-deps` reads
//! every manifest, so discovery needs no network and no dependency
//! resolution.

mod afl_crates;
mod artifact;
pub(crate) mod campaign;
mod cargo_fuzz_crates;
pub(crate) mod clusterfuzz;
mod error;
mod features;
pub(crate) mod input_type;
pub(crate) mod metadata;
mod nested;
mod settings;
#[cfg(test)]
mod tests;
mod tmin;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use cargo_metadata::{Metadata, Package};

use artifact::{scan_artifacts, Saved};

pub(crate) use afl_crates::target_of_afl_input;
#[cfg(test)]
pub(crate) use artifact::AflOrigin;
pub(crate) use artifact::{
    kind_from_file_name, locate_artifact, original_of_copy, results_of_absent_inputs, Artifact,
    ArtifactKind, Origin, ALSO_FOUND_INFIX, MINIMIZED_PREFIX,
};
pub(crate) use campaign::Instance;
pub(crate) use error::DiscoveryError;
pub(crate) use settings::TargetSettings;

/// The regression ledger's folder in a fuzz crate (`cargo reduce ci`'s).
pub(crate) const LEDGER_DIR: &str = "regressions";

/// Target `target`'s ledger folder: `<fuzz dir>/regressions/<target>/`.
pub(crate) fn ledger_dir(fuzz_dir: &Path, target: &str) -> PathBuf {
    fuzz_dir.join(LEDGER_DIR).join(target)
}

/// The name libFuzzer gives `bytes` (an artifact's after its kind's
/// prefix, a corpus file's, a tmin step's origin): their SHA-1 in
/// lowercase hex.
pub(crate) fn sha1_hex(bytes: &[u8]) -> String {
    sha1_smol::Sha1::from(bytes).digest().to_string()
}

/// The file name of `path`, lossily as text (empty if it has none).
pub(crate) fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The folders of `artifacts/` in the projects' fuzz crates that name no
/// fuzz target of any of them (a renamed or removed target's), with the
/// number of files each holds, where that is not zero: no run takes them
/// unless they are named with `--fuzz-target`. Sorted.
pub(crate) fn stray_artifact_dirs(projects: &[FuzzProject]) -> Vec<(PathBuf, usize)> {
    let mut named: BTreeMap<&Path, BTreeSet<&str>> = BTreeMap::new();
    for project in projects {
        let names = named.entry(&project.fuzz_dir).or_default();
        names.extend(project.targets.iter().map(|t| t.name.as_str()));
    }
    let mut stray = Vec::new();
    for (fuzz_dir, names) in named {
        let Ok(entries) = fs::read_dir(fuzz_dir.join("artifacts")) else {
            continue;
        };
        for dir in entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()) {
            let name = dir.file_name().unwrap_or_default().to_string_lossy();
            if names.contains(name.as_ref()) || name.starts_with('.') {
                continue;
            }
            let files = fs::read_dir(&dir).map_or(0, |entries| {
                entries.flatten().filter(|e| e.path().is_file()).count()
            });
            if files > 0 {
                stray.push((dir, files));
            }
        }
    }
    stray.sort();
    stray
}

/// The fuzz engine a crate's targets are written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Engine {
    /// cargo-fuzz and libfuzzer-sys.
    LibFuzzer,
    /// afl.rs (and AFL++).
    Afl,
}

impl Engine {
    /// Its name in reports: `libfuzzer`, `afl`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Engine::LibFuzzer => "libfuzzer",
            Engine::Afl => "afl",
        }
    }

    /// The crate its targets use: `libfuzzer-sys`, `afl`.
    pub(crate) fn crate_name(self) -> &'static str {
        match self {
            Engine::LibFuzzer => cargo_fuzz_crates::LIBFUZZER_CRATE,
            Engine::Afl => afl_crates::AFL_CRATE,
        }
    }
}

/// A crate of fuzz targets, as far as one engine's targets go: a package
/// with targets for libFuzzer and for AFL++ is two of these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FuzzProject {
    /// The engine its targets are written for.
    pub engine: Engine,
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
    /// Its workspace's `Cargo.lock`, which pins the `libfuzzer-sys` (or
    /// `afl`) its targets are built with (it may not exist yet).
    pub lock_file: PathBuf,
    /// Its fuzz targets, sorted by name.
    pub targets: Vec<FuzzTarget>,
    /// The AFL++ instances found for it, with the target each ran (`None`:
    /// a binary none of the targets builds).
    pub instances: Vec<(Instance, Option<String>)>,
    /// `--out-dir`'s folder for it (`<DIR>/<package>`), where its results
    /// go instead of its own folders; `None`: they go in the tree.
    pub results_root: Option<PathBuf>,
}

impl FuzzProject {
    /// Whether `target`'s source uses its engine's crate (`fuzz_target!`,
    /// `afl::fuzz!`): a cargo-fuzz crate's every `[[bin]]` is a target, as
    /// `cargo fuzz` has it, even another engine's (honggfuzz's) or a tool.
    pub(crate) fn source_uses_engine(&self, target: &FuzzTarget) -> bool {
        match self.engine {
            Engine::LibFuzzer => cargo_fuzz_crates::uses_libfuzzer(&target.source),
            Engine::Afl => afl_crates::calls_afl(&target.source),
        }
    }

    /// Where results that have a folder of their own in the fuzz crate
    /// go (`corpus-min/`, `coverage/`): the fuzz crate's folder, or
    /// `--out-dir`'s for it.
    pub(crate) fn output_root(&self) -> &Path {
        self.results_root.as_deref().unwrap_or(&self.fuzz_dir)
    }

    /// Target `name`'s own corpus, where `cargo fuzz` keeps it:
    /// `corpus/<name>/` of the fuzz crate (never moved by `--out-dir`: it
    /// is the user's).
    pub(crate) fn corpus_dir(&self, name: &str) -> PathBuf {
        self.fuzz_dir.join("corpus").join(name)
    }

    /// Where target `name`'s minimized corpus goes without `--output`
    /// (`corpus`'s): `corpus-min/<name>/` of [`Self::output_root`].
    pub(crate) fn corpus_min_dir(&self, name: &str) -> PathBuf {
        self.output_root().join("corpus-min").join(name)
    }

    /// Where target `name`'s results go (reductions, artifacts filed):
    /// its `artifacts/<name>/`, or `--out-dir`'s for it.
    pub(crate) fn results_dir(&self, name: &str) -> PathBuf {
        if let Some(root) = &self.results_root {
            return root.join("artifacts").join(name);
        }
        match self.targets.iter().find(|t| t.name == name) {
            Some(target) => target.artifacts_dir.clone(),
            None => self.fuzz_dir.join("artifacts").join(name),
        }
    }

    /// Sends every result under `out_dir` (`--out-dir`), and the build too
    /// when its target directory is in the tree (one the user put
    /// elsewhere, `CARGO_TARGET_DIR`, stays), so that nothing is written in
    /// the tree. The artifacts earlier runs filed there (the other failures
    /// a reduction ran into, a corpus's failing inputs) are the target's
    /// too, as they are when filed in the tree.
    fn relocate(&mut self, out_dir: &Path) -> Result<(), DiscoveryError> {
        self.results_root = Some(out_dir.join(&self.package));
        let in_tree = [&self.workspace_root, &self.fuzz_dir];
        if in_tree.iter().any(|root| self.target_dir.starts_with(root)) {
            self.target_dir = out_dir.join("target");
        }
        for t in 0..self.targets.len() {
            let dir = self.results_dir(&self.targets[t].name);
            let target = &mut self.targets[t];
            for artifact in &mut target.artifacts {
                artifact.relocate(&dir);
            }
            // cargo-reduce files only libFuzzer's names, whatever the engine.
            let filed = scan_artifacts(&dir, Saved::LibFuzzer)?;
            let new: Vec<Artifact> = filed
                .into_iter()
                .filter(|f| target.artifacts.iter().all(|a| a.path != f.path))
                .collect();
            target.artifacts.extend(new);
        }
        Ok(())
    }

    /// The `Cargo.toml` settings of its target `name` (none for a target
    /// it does not have).
    pub(crate) fn settings_of(&self, name: &str) -> TargetSettings {
        self.targets
            .iter()
            .find(|t| t.name == name)
            .map(|t| t.settings)
            .unwrap_or_default()
    }
}

/// What cargo builds a fuzz target as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum BinKind {
    /// A `[[bin]]` (every cargo-fuzz target).
    Bin,
    /// An `[[example]]`.
    Example,
    /// A `[[test]]` (with `harness = false`).
    Test,
}

/// A fuzz target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FuzzTarget {
    /// Its name (what `cargo fuzz run NAME` takes).
    pub name: String,
    /// Its source file.
    pub source: PathBuf,
    /// What cargo builds it as.
    pub kind: BinKind,
    /// The cargo features it is built with (`required-features`, and the
    /// feature that turns an optional `afl` on).
    pub features: Vec<String>,
    /// `<fuzz dir>/artifacts/<name>`, where libFuzzer writes its artifacts
    /// and reductions of AFL inputs go.
    pub artifacts_dir: PathBuf,
    /// Its failing inputs: the artifacts in there, sorted by name, then
    /// the crashes and hangs of its AFL++ instances.
    pub artifacts: Vec<Artifact>,
    /// Its settings in the crate's `[package.metadata.cargo-reduce]`.
    pub settings: TargetSettings,
}

/// Which fuzz crates and targets a run is about: where discovery starts
/// and what it adds, and the target chosen. One for every mode.
#[derive(Debug, Clone, Default)]
pub(crate) struct Selection {
    /// `--manifest-path` (else the nearest `Cargo.toml`).
    pub manifest_path: Option<PathBuf>,
    /// `-p`: only these packages (all when empty).
    pub packages: Vec<String>,
    /// `--fuzz-target`: only this target (all when `None`).
    pub fuzz_target: Option<String>,
    /// `--engine`: only the targets of this engine (all when `None`): for
    /// a target that is both a libFuzzer and an afl.rs one.
    pub engine: Option<Engine>,
    /// `--afl-out`: AFL++ output directories outside the usual places.
    pub afl_out: Vec<PathBuf>,
    /// `--out-dir`: where every result and the build go, instead of the
    /// fuzz crates' folders.
    pub out_dir: Option<PathBuf>,
}

/// The fuzz crates of the project around the current directory, or of
/// `selection.manifest_path`; every target (`--fuzz-target` is applied by
/// [`select_target`]).
pub(crate) fn discover(selection: &Selection) -> Result<Vec<FuzzProject>, DiscoveryError> {
    let cwd = std::env::current_dir().map_err(|e| DiscoveryError::io(".", e))?;
    discover_from(&cwd, selection)
}

/// [`discover`] as if run in `cwd` (a relative path is relative to it);
/// tests and callers that must not change the process's directory use
/// this.
pub(crate) fn discover_from(
    cwd: &Path,
    selection: &Selection,
) -> Result<Vec<FuzzProject>, DiscoveryError> {
    let manifest = match &selection.manifest_path {
        Some(path) => given_manifest(&cwd.join(path))?,
        None => nearest_manifest(cwd)?,
    };
    let mut projects = fuzz_projects(&manifest)?;
    let afl_out: Vec<PathBuf> = selection.afl_out.iter().map(|d| cwd.join(d)).collect();
    for dir in &afl_out {
        if !dir.is_dir() {
            return Err(DiscoveryError::AflOutMissing { path: dir.clone() });
        }
        if campaign::instances_in(dir).is_empty() {
            return Err(DiscoveryError::NotAflOutput { path: dir.clone() });
        }
    }
    let instances = afl_crates::find_all_instances(&projects, &afl_out);
    let unmatched = afl_crates::attach_instances(&mut projects, instances);
    if let Some(first) = projects.iter_mut().find(|p| p.engine == Engine::Afl) {
        first
            .instances
            .extend(unmatched.into_iter().map(|i| (i, None)));
    }
    // As cargo does, a manifest that names a fuzz crate selects that crate
    // (unless `-p` names others); a workspace root or a library selects
    // every fuzz crate found.
    if selection.packages.is_empty() && projects.iter().any(|p| p.manifest_path == manifest) {
        projects.retain(|p| p.manifest_path == manifest);
    }
    let mut projects = select_packages(projects, &selection.packages)?;
    if let Some(out_dir) = &selection.out_dir {
        let out_dir = cwd.join(out_dir);
        crate::output::check_folder(&out_dir).map_err(|source| DiscoveryError::OutDir {
            path: out_dir.clone(),
            source,
        })?;
        for project in &mut projects {
            project.relocate(&out_dir)?;
        }
    }
    Ok(projects)
}

/// Keeps only target `name` in each of `projects`, and only the projects
/// that have it (for `--fuzz-target`).
pub(crate) fn select_target(
    projects: &mut Vec<FuzzProject>,
    name: &str,
) -> Result<(), DiscoveryError> {
    if !projects
        .iter()
        .any(|p| p.targets.iter().any(|t| t.name == name))
    {
        return Err(artifact::unknown_target(projects, name, false));
    }
    for project in projects.iter_mut() {
        project.targets.retain(|t| t.name == name);
    }
    projects.retain(|p| !p.targets.is_empty());
    Ok(())
}

/// Keeps only the projects of `engine` (for `--engine`).
pub(crate) fn select_engine(
    projects: &mut Vec<FuzzProject>,
    engine: Engine,
) -> Result<(), DiscoveryError> {
    if !projects.iter().any(|p| p.engine == engine) {
        let known = projects
            .iter()
            .flat_map(|p| {
                p.targets
                    .iter()
                    .map(move |t| format!("{} ({})", t.name, p.engine.as_str()))
            })
            .collect();
        return Err(DiscoveryError::NoTargetOfEngine {
            engine: engine.as_str(),
            known,
        });
    }
    projects.retain(|p| p.engine == engine);
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
        // Cargo reads a manifest by that name only.
        Ok(_) if file.file_name() != Some("Cargo.toml".as_ref()) => {
            Err(DiscoveryError::NotAManifest {
                path: path.to_path_buf(),
            })
        }
        Ok(canonical) if canonical.is_file() => Ok(canonical),
        // A folder's: the `Cargo.toml` it lacks is what does not exist.
        _ => Err(DiscoveryError::ManifestMissing { path: file }),
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

/// The fuzz crates of `manifest`'s workspace and of the `fuzz/` (`fuzz-afl/`,
/// `afl/`) crates beside it, else of those below the workspace root;
/// sorted by package name.
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
    let root = metadata.workspace_root.as_std_path();
    if projects.is_empty() {
        projects = nested_projects(root, metadata.target_directory.as_std_path())?;
    }
    if projects.is_empty() {
        return Err(DiscoveryError::NoFuzzCrate {
            looked,
            below: root.to_path_buf(),
        });
    }
    let key = |p: &FuzzProject| (p.package.clone(), p.manifest_path.clone(), p.engine);
    projects.sort_by_key(key);
    // A member `fuzz/` crate is found twice: in its workspace and beside it.
    projects.dedup_by(|a, b| key(a) == key(b));
    Ok(projects)
}

/// The fuzz crates in the folders below `root` (not in `target_dir`). One
/// whose manifest cargo cannot read (a test fixture broken on purpose,
/// one outside any workspace) is skipped, so that it does not hide the
/// others; when there are no others, its error is the answer.
fn nested_projects(root: &Path, target_dir: &Path) -> Result<Vec<FuzzProject>, DiscoveryError> {
    let mut projects = Vec::new();
    let mut unreadable = None;
    for candidate in nested::fuzz_manifests_below(root, target_dir) {
        match read_metadata(&candidate) {
            Ok(metadata) => projects.extend(fuzz_crates(&metadata)?),
            Err(e) => {
                unreadable.get_or_insert(e);
            }
        }
    }
    match unreadable {
        Some(e) if projects.is_empty() => Err(e),
        _ => Ok(projects),
    }
}

/// Directories beside a project where its fuzz crates live: `cargo fuzz
/// init`'s `fuzz/`, and the usual homes of an afl.rs crate.
const BESIDE: [&str; 3] = ["fuzz", "fuzz-afl", "afl"];

/// Where fuzz crates for this project live: [`BESIDE`] the workspace root,
/// and beside the package.
fn beside_candidates(manifest: &Path, metadata: &Metadata) -> Vec<PathBuf> {
    let root = metadata.workspace_root.as_std_path();
    let package_dir = manifest.parent().unwrap_or(root);
    let mut candidates: Vec<PathBuf> = [root, package_dir]
        .iter()
        .flat_map(|dir| {
            BESIDE
                .iter()
                .map(move |name| dir.join(name).join("Cargo.toml"))
        })
        .map(|path| fs::canonicalize(&path).unwrap_or(path))
        .filter(|path| path != manifest)
        .collect();
    // The package may be the workspace root: each candidate once.
    let mut seen = std::collections::HashSet::new();
    candidates.retain(|c| seen.insert(c.clone()));
    candidates
}

/// `cargo metadata --no-deps` on `manifest`.
fn read_metadata(manifest: &Path) -> Result<Metadata, DiscoveryError> {
    metadata::no_deps(manifest).map_err(|e| DiscoveryError::Metadata {
        manifest: manifest.to_path_buf(),
        reason: metadata_failure(&e),
    })
}

/// Cargo's first error line, without its `error: ` prefix (with the lines
/// it introduces, when it ends in `:`, joined to it); or the whole error
/// when cargo did not run.
fn metadata_failure(error: &cargo_metadata::Error) -> String {
    let cargo_metadata::Error::CargoMetadata { stderr } = error else {
        return error.to_string();
    };
    let lines: Vec<&str> = stderr.lines().map(str::trim).collect();
    let at = (lines.iter().position(|l| l.starts_with("error")))
        .or_else(|| lines.iter().position(|l| !l.is_empty()));
    let Some(at) = at else {
        return "cargo printed no error message".to_string();
    };
    let mut line = lines[at]
        .strip_prefix("error: ")
        .unwrap_or(lines[at])
        .to_string();
    if line.ends_with(':') {
        for more in lines[at + 1..].iter().take_while(|l| !l.is_empty()) {
            line.push(' ');
            line.push_str(&more.split_whitespace().collect::<Vec<_>>().join(" "));
        }
    }
    line
}

/// The fuzz crates among the workspace members in `metadata`: one project
/// per package and engine. In a package that fuzzes with both engines
/// (it depends on `afl`, and on `libfuzzer-sys` or is a cargo-fuzz crate),
/// each target belongs to the engine its source calls, and a target that
/// calls neither (a program reading stdin, say) is no fuzz target.
fn fuzz_crates(metadata: &Metadata) -> Result<Vec<FuzzProject>, DiscoveryError> {
    let mut projects = Vec::new();
    for package in &metadata.packages {
        let first = projects.len();
        let afl = afl_crates::is_afl_crate(package);
        let cargo_fuzz = cargo_fuzz_crates::is_fuzz_crate(package);
        let mut libfuzzer_names = Vec::new();
        if cargo_fuzz || (afl && cargo_fuzz_crates::depends_on_libfuzzer(package)) {
            let dir = package_dir(package);
            let targets = cargo_fuzz_crates::libfuzzer_targets(package, &dir, afl)?;
            libfuzzer_names = targets.iter().map(|t| t.name.clone()).collect();
            if cargo_fuzz || !targets.is_empty() {
                projects.push(project_of(package, metadata, Engine::LibFuzzer, targets));
            }
        }
        if afl {
            let mut project = afl_project(package, metadata)?;
            // A target of both engines: its `artifacts/<name>/` is
            // libFuzzer's (`cargo fuzz run` writes there), not saved inputs.
            for target in &mut project.targets {
                if libfuzzer_names.contains(&target.name) {
                    target.artifacts.clear();
                }
            }
            if !project.targets.is_empty() {
                projects.push(project);
            }
        }
        give_settings(package, &mut projects[first..])?;
    }
    Ok(projects)
}

/// Gives the targets of `package` (its `projects`, one per engine) their
/// settings from its `[package.metadata.cargo-reduce]`.
fn give_settings(package: &Package, projects: &mut [FuzzProject]) -> Result<(), DiscoveryError> {
    let names: Vec<&str> = projects
        .iter()
        .flat_map(|p| p.targets.iter().map(|t| t.name.as_str()))
        .collect();
    let read = settings::read(package, &names)?;
    for project in projects {
        settings::apply(&mut project.targets, &read);
    }
    Ok(())
}

/// An afl.rs crate with the inputs saved in its `artifacts/`; those of
/// the AFL++ instances are added later.
fn afl_project(package: &Package, metadata: &Metadata) -> Result<FuzzProject, DiscoveryError> {
    let dir = package_dir(package);
    let targets = afl_crates::afl_targets(package, &dir)?;
    Ok(project_of(package, metadata, Engine::Afl, targets))
}

/// The directory of `package`'s manifest (canonical).
fn package_dir(package: &Package) -> PathBuf {
    let manifest = package.manifest_path.clone().into_std_path_buf();
    let manifest = fs::canonicalize(&manifest).unwrap_or(manifest);
    manifest.parent().map(Path::to_path_buf).unwrap_or_default()
}

fn project_of(
    package: &Package,
    metadata: &Metadata,
    engine: Engine,
    targets: Vec<FuzzTarget>,
) -> FuzzProject {
    let fuzz_dir = package_dir(package);
    let workspace_root = metadata.workspace_root.clone().into_std_path_buf();
    FuzzProject {
        engine,
        package: package.name.to_string(),
        lock_file: workspace_root.join("Cargo.lock"),
        manifest_path: fuzz_dir.join("Cargo.toml"),
        fuzz_dir,
        workspace_root,
        target_dir: metadata.target_directory.clone().into_std_path_buf(),
        targets,
        instances: Vec::new(),
        results_root: None,
    }
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
