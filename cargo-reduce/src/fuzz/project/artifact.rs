//! Failing inputs and where their reductions go. libFuzzer's artifacts are
//! the files it writes into `<fuzz dir>/artifacts/<target>/` when a target
//! fails, named after the failure (`crash-<sha1>`, `oom-…`, `timeout-…`,
//! `leak-…`, `slow-unit-…`); minimizing one leaves `minimized-from-<name>`
//! beside it. AFL++'s crashes and hangs ([`super::campaign`]) are reduced
//! into the same `artifacts/<target>/`, never into AFL's output directory,
//! which afl-fuzz renames or deletes when it starts again.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::campaign::{AflInput, Instance};
use super::error::DiscoveryError;
use super::tmin::{tmin_origin, TminFiles};
use super::{file_name, FuzzProject};
use crate::output::same_file;

/// The prefix of a minimized copy's name: `cargo reduce` writes
/// `minimized-from-<name>` beside artifact `<name>`, after libFuzzer's
/// naming ([`super::tmin`]).
pub(crate) use super::tmin::MINIMIZED_PREFIX;

/// The prefix of a result that is not 1-minimal yet (a limit or Ctrl-C
/// stopped its reduction): `partial-from-<name>`.
pub(crate) const PARTIAL_PREFIX: &str = "partial-from-";

/// What names an artifact a reduction found (another failure it ran into):
/// `crash-<sha1>-found-reducing-<name>` beside artifact `<name>`. An
/// artifact like any other (its prefix is libFuzzer's), named apart so
/// that its origin shows.
pub(crate) const ALSO_FOUND_INFIX: &str = "-found-reducing-";

/// The failure an artifact records, from its file-name prefix: the type
/// the JSON messages carry (`crash`, `oom`, `timeout`, `leak`,
/// `slow-unit`, or `unknown`: a file named explicitly, whose failure is
/// learned by running it).
pub(crate) use cargo_reduce_messages::message::ArtifactKind;

/// libFuzzer's file-name prefixes (none is a prefix of another).
const PREFIXES: [(&str, ArtifactKind); 5] = [
    ("crash-", ArtifactKind::Crash),
    ("oom-", ArtifactKind::Oom),
    ("timeout-", ArtifactKind::Timeout),
    ("leak-", ArtifactKind::Leak),
    ("slow-unit-", ArtifactKind::SlowUnit),
];

/// The kind libFuzzer's prefix of `file_name` records, if it has one. A
/// `minimized-from-` or `partial-from-` copy has the kind of its original,
/// an AFL++ input's too ([`afl_stem`]: `-hang`, `-sig_NN`).
pub(crate) fn kind_from_file_name(file_name: &str) -> Option<ArtifactKind> {
    if let Some(original) = original_of_copy(file_name) {
        return kind_from_file_name(original).or_else(|| afl_stem_kind(original));
    }
    PREFIXES
        .iter()
        .find(|(prefix, _)| file_name.starts_with(prefix))
        .map(|&(_, kind)| kind)
}

/// The name of the input that a `minimized-from-` or `partial-from-` copy
/// named `file_name` was made from; `None` for any other name.
pub(crate) fn original_of_copy(file_name: &str) -> Option<&str> {
    [MINIMIZED_PREFIX, PARTIAL_PREFIX]
        .iter()
        .find_map(|prefix| file_name.strip_prefix(prefix))
}

/// The kind of the AFL++ input whose reduction [`afl_stem`] named `stem`:
/// a hang, or a crash by a signal.
fn afl_stem_kind(stem: &str) -> Option<ArtifactKind> {
    let rest = stem.strip_prefix("afl-")?;
    let signal = |rest: &str| {
        let (_, sig) = rest.rsplit_once("-sig_")?;
        (sig.len() == 2 && sig.bytes().all(|b| b.is_ascii_digit())).then_some(())
    };
    match rest.ends_with("-hang") {
        true => Some(ArtifactKind::Timeout),
        false => signal(rest).map(|()| ArtifactKind::Crash),
    }
}

/// One input that made a fuzz target fail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Artifact {
    /// The file.
    pub path: PathBuf,
    /// Its file name (libFuzzer's `<kind>-<sha1>`, AFL's `id:…`).
    pub name: String,
    /// The failure it records.
    pub kind: ArtifactKind,
    /// Its size in bytes.
    pub size: u64,
    /// Where its reduction goes.
    pub output: PathBuf,
    /// Where a reduction that a limit or Ctrl-C stopped goes.
    pub partial: PathBuf,
    /// `output`, if that exists: it was reduced before.
    pub minimized: Option<PathBuf>,
    /// `cargo fuzz tmin`'s result for it, if it left one ([`super::tmin`]).
    pub tmin: Option<PathBuf>,
    /// Which engine saved it.
    pub origin: Origin,
}

/// Which engine saved an input, and what it recorded about the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Origin {
    /// libFuzzer, a file the user saved in `artifacts/<target>/`, or one
    /// named on the command line.
    LibFuzzer,
    /// An AFL++ instance.
    Afl(AflOrigin),
}

/// What an AFL++ instance recorded about one of its inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AflOrigin {
    /// The instance's name (`default`, or its `-M`/`-S` name).
    pub instance: String,
    /// The instance directory.
    pub instance_dir: PathBuf,
    /// `crashes`, `hangs`, or a resumed run's `crashes.<date>`.
    pub folder: String,
    /// `sig:` of its name.
    pub sig: Option<u32>,
    /// The instance's hang timeout.
    pub exec_timeout: Option<Duration>,
    /// The instance's memory limit (afl-fuzz's `-m`), in MB.
    pub mem_limit_mb: Option<u64>,
    /// The hash of the binary the campaign ran, if afl-fuzz recorded one.
    pub target_hash: Option<String>,
}

impl Artifact {
    /// Whether it fails by taking too long (a timeout, a slow unit, an
    /// AFL++ hang), as its name says.
    pub(crate) fn fails_by_time(&self) -> bool {
        matches!(self.kind, ArtifactKind::Timeout | ArtifactKind::SlowUnit)
    }

    /// The artifact at `path`, whose metadata (symlinks followed) is
    /// `meta`; its kind is [`ArtifactKind::Unknown`] without a libFuzzer
    /// prefix.
    fn new(path: PathBuf, meta: &fs::Metadata) -> Artifact {
        let name = file_name(&path);
        let kind = kind_from_file_name(&name).unwrap_or(ArtifactKind::Unknown);
        let output = path.with_file_name(format!("{MINIMIZED_PREFIX}{name}"));
        let partial = path.with_file_name(format!("{PARTIAL_PREFIX}{name}"));
        Artifact {
            minimized: output.is_file().then(|| output.clone()),
            tmin: None,
            path,
            name,
            kind,
            size: meta.len(),
            output,
            partial,
            origin: Origin::LibFuzzer,
        }
    }

    /// A file known by its path and size alone (a corpus or ledger input
    /// that `ci` replays): kind [`ArtifactKind::Unknown`], no reduction of
    /// its own, and no file system access.
    pub(crate) fn plain(path: PathBuf, size: u64) -> Artifact {
        Artifact {
            name: file_name(&path),
            kind: ArtifactKind::Unknown,
            size,
            output: PathBuf::new(),
            partial: PathBuf::new(),
            minimized: None,
            tmin: None,
            path,
            origin: Origin::LibFuzzer,
        }
    }

    /// Sends its reduction (and partial result) to `dir`, under the same
    /// names; it was reduced before if one is there.
    pub(crate) fn relocate(&mut self, dir: &Path) {
        self.output = dir.join(file_name(&self.output));
        self.partial = dir.join(file_name(&self.partial));
        self.minimized = self.output.is_file().then(|| self.output.clone());
    }

    /// The artifact file at `path`, whatever its name.
    pub(crate) fn read(path: &Path) -> Result<Artifact, DiscoveryError> {
        match fs::metadata(path) {
            Ok(meta) if meta.is_file() => Ok(Artifact::new(path.to_path_buf(), &meta)),
            Ok(meta) if meta.is_dir() => Err(DiscoveryError::InputIsAFolder {
                path: path.to_path_buf(),
            }),
            Ok(_) => Err(missing(path)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Err(missing(path)),
            Err(e) => Err(DiscoveryError::io(path, e)),
        }
    }

    /// A crash or hang of AFL++ `instance`, reduced into `artifacts_dir`
    /// (its target's `artifacts/<target>/`) under [`afl_stem`]'s name.
    pub(crate) fn from_afl(
        instance: &Instance,
        input: &AflInput,
        artifacts_dir: &Path,
    ) -> Artifact {
        let stem = afl_stem(&instance.name, input);
        let output = artifacts_dir.join(format!("{MINIMIZED_PREFIX}{stem}"));
        let partial = artifacts_dir.join(format!("{PARTIAL_PREFIX}{stem}"));
        Artifact {
            minimized: output.is_file().then(|| output.clone()),
            tmin: None,
            size: fs::metadata(&input.path).map_or(0, |m| m.len()),
            path: input.path.clone(),
            name: input.name(),
            kind: if input.hang {
                ArtifactKind::Timeout
            } else {
                ArtifactKind::Crash
            },
            output,
            partial,
            origin: Origin::Afl(AflOrigin {
                instance: instance.name.clone(),
                instance_dir: instance.dir.clone(),
                folder: input.folder.clone(),
                sig: input.sig,
                exec_timeout: instance.exec_timeout,
                mem_limit_mb: instance.mem_limit_mb,
                target_hash: instance.target_hash.clone(),
            }),
        }
    }
}

/// The name an AFL input's reduction goes by, after `minimized-from-`: one
/// conventional name of `[A-Za-z0-9_.-]` that keeps the instance, the
/// resumed run's date, the id and the signal, so that inputs of different
/// instances and runs never share one (`afl-main-id_000017-sig_06`,
/// `afl-default-2026-11-23-10_00_00-id_000003-hang`). Inputs without an
/// id (`AFL_SHA1_FILENAMES`) keep their name.
pub(crate) fn afl_stem(instance: &str, input: &AflInput) -> String {
    let mut stem = format!("afl-{}", portable(instance));
    if let Some(date) = super::campaign::resumed_date(&input.folder) {
        stem.push('-');
        stem.push_str(&portable(date));
    }
    match input.id {
        Some(id) => stem.push_str(&format!("-id_{id:06}")),
        None => {
            stem.push('-');
            stem.push_str(&portable(&input.name()));
        }
    }
    match (input.hang, input.sig) {
        (true, _) => stem.push_str("-hang"),
        (false, Some(sig)) => stem.push_str(&format!("-sig_{sig:02}")),
        (false, None) => {}
    }
    stem
}

/// `text` with every character outside `[A-Za-z0-9_.-]` replaced by `_`.
fn portable(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The error for a missing input whose path is a target's bare name.
fn target_for_input(projects: &[FuzzProject], path: &Path) -> Option<DiscoveryError> {
    let name = path
        .to_str()
        .filter(|name| !path.exists() && !name.contains('/'))?;
    let known = projects
        .iter()
        .flat_map(|p| &p.targets)
        .any(|t| t.name == name);
    known.then(|| DiscoveryError::TargetForInput {
        name: name.to_string(),
    })
}

fn missing(path: &Path) -> DiscoveryError {
    DiscoveryError::ArtifactMissing {
        path: path.to_path_buf(),
    }
}

/// Which files of an `artifacts/<target>/` directory are inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Saved {
    /// Those with a libFuzzer prefix: libFuzzer wrote them.
    LibFuzzer,
    /// Every file but cargo-reduce's own (`minimized-from-`,
    /// `partial-from-`) and hidden ones: in an afl.rs crate, where AFL++
    /// writes nothing, the user saved each of them there as a crash (an
    /// `id:…` file copied out of `crashes/`, a `crash-…` from a report).
    Any,
}

impl Saved {
    /// Whether the file `name` is an input under this rule.
    fn is_input(self, name: &str) -> bool {
        let ours = [MINIMIZED_PREFIX, PARTIAL_PREFIX, "."];
        if ours.iter().any(|prefix| name.starts_with(prefix)) {
            return false;
        }
        match self {
            Saved::LibFuzzer => kind_from_file_name(name).is_some(),
            Saved::Any => true,
        }
    }
}

/// The inputs in `dir` that `saved` takes, sorted by name: files
/// (symlinks followed); `minimized-from-` copies are outputs, not
/// artifacts, but where libFuzzer saves them `cargo fuzz tmin`'s result is
/// its artifact's `tmin`, or an input of its own when its original is
/// gone ([`super::tmin`]). A missing `dir` has none.
pub(crate) fn scan_artifacts(dir: &Path, saved: Saved) -> Result<Vec<Artifact>, DiscoveryError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(DiscoveryError::io(dir, e)),
    };
    let mut artifacts = Vec::new();
    let mut tmin = TminFiles::default();
    for entry in entries {
        let path = entry.map_err(|e| DiscoveryError::io(dir, e))?.path();
        let name = file_name(&path);
        if !saved.is_input(&name) {
            if saved == Saved::LibFuzzer {
                tmin.add(&path);
            }
            continue;
        }
        artifacts.extend(read_file(path));
    }
    if !tmin.is_empty() {
        let paths: Vec<&Path> = artifacts
            .iter()
            .map(|a: &Artifact| a.path.as_path())
            .collect();
        let (results, orphans) = tmin.results(&paths);
        for (artifact, result) in artifacts.iter_mut().zip(results) {
            artifact.tmin = result;
        }
        artifacts.extend(orphans.into_iter().filter_map(read_file));
    }
    artifacts.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(artifacts)
}

/// The results in `dir` of inputs that are not there (named on the command
/// line from another folder): its `minimized-from-` and `partial-from-`
/// files that are none of `artifacts`' outputs, nor `cargo fuzz tmin`'s.
/// Sorted; a missing or unreadable `dir` has none.
pub(crate) fn results_of_absent_inputs(dir: &Path, artifacts: &[Artifact]) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    // By name: `--out-dir` moves the artifacts' own results to `dir`.
    let ours: HashSet<String> = artifacts
        .iter()
        .flat_map(|a| [file_name(&a.output), file_name(&a.partial)])
        .collect();
    let mut results: Vec<PathBuf> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            let name = file_name(path);
            original_of_copy(&name).is_some()
                && tmin_origin(&name).is_none()
                && !ours.contains(&name)
                && path.is_file()
        })
        .collect();
    results.sort();
    results
}

/// The artifact at `path`, unless it is a dangling symlink or a directory.
fn read_file(path: PathBuf) -> Option<Artifact> {
    let meta = fs::metadata(&path).ok()?;
    meta.is_file().then(|| Artifact::new(path, &meta))
}

/// Where an artifact named on the command line belongs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ArtifactLocation {
    /// Index of its fuzz crate in the projects searched.
    pub project: usize,
    /// Index of its target in that project's `targets`.
    pub target: usize,
    /// The artifact itself.
    pub artifact: Artifact,
}

/// Finds the fuzz target the artifact at `path` belongs to: the one named
/// by `target` (`--fuzz-target`), else the one whose `artifacts/<target>/`
/// directory holds it (the directory's symlinks resolved, not the
/// artifact's), as `cargo fuzz` lays them out.
/// An artifact anywhere else needs `--fuzz-target`, unless there is only
/// one target.
pub(crate) fn locate_artifact(
    projects: &[FuzzProject],
    path: &Path,
    target: Option<&str>,
) -> Result<ArtifactLocation, DiscoveryError> {
    if let Some(found) = find_listed(projects, path, target) {
        return Ok(found);
    }
    let artifact =
        Artifact::read(path).map_err(|e| target_for_input(projects, path).unwrap_or(e))?;
    let (project, target) = match target {
        Some(name) => find_named(projects, name, path)?,
        None => find_by_directory(projects, path)?,
    };
    Ok(ArtifactLocation {
        project,
        target,
        artifact,
    })
}

/// The AFL crash or hang at `path` if discovery listed it, under the
/// target `target` names, if it names one.
fn find_listed(
    projects: &[FuzzProject],
    path: &Path,
    target: Option<&str>,
) -> Option<ArtifactLocation> {
    let wanted = fs::canonicalize(path).ok()?;
    target_indices(projects)
        .filter(|&(p, t)| target.is_none_or(|name| projects[p].targets[t].name == name))
        .find_map(|(p, t)| {
            let artifact = projects[p].targets[t]
                .artifacts
                .iter()
                .filter(|a| matches!(a.origin, Origin::Afl(_)))
                .find(|a| fs::canonicalize(&a.path).is_ok_and(|c| c == wanted))?;
            Some(ArtifactLocation {
                project: p,
                target: t,
                artifact: artifact.clone(),
            })
        })
}

/// The target called `name`; if several crates have one, the one whose
/// artifacts directory holds `path`, else the first.
fn find_named(
    projects: &[FuzzProject],
    name: &str,
    path: &Path,
) -> Result<(usize, usize), DiscoveryError> {
    let matches: Vec<(usize, usize)> = target_indices(projects)
        .filter(|&(p, t)| projects[p].targets[t].name == name)
        .collect();
    let holding = find_by_directory(projects, path).ok();
    match matches.first() {
        None => Err(unknown_target(projects, name, false)),
        Some(&first) => Ok(holding.filter(|h| matches.contains(h)).unwrap_or(first)),
    }
}

/// The target whose `artifacts/<target>/` directory holds `path`.
fn find_by_directory(
    projects: &[FuzzProject],
    path: &Path,
) -> Result<(usize, usize), DiscoveryError> {
    let no_target = || DiscoveryError::NoTarget {
        path: path.to_path_buf(),
    };
    // The directory the path names, not its symlink's: an artifact linked
    // into `artifacts/<target>/` belongs to that target, as `list` shows.
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let dir = fs::canonicalize(parent).map_err(|_| no_target())?;
    // A target's artifacts, what `--out-dir` filed for it, its corpus as
    // cargo-fuzz keeps it or as `corpus` minimized it (an input to run,
    // or to try to reduce), its regression ledger (`ci replay`'s inputs),
    // the nearest that holds the path, in a subfolder too (a corpus's
    // `regressions/`, the ledger's `fixed/`).
    let places: Vec<((usize, usize), PathBuf)> = target_indices(projects)
        .flat_map(|(p, t)| {
            let target = &projects[p].targets[t];
            let corpus = projects[p].corpus_dir(&target.name);
            let filed = projects[p].results_dir(&target.name);
            let minimized = projects[p].corpus_min_dir(&target.name);
            let ledger = super::ledger_dir(&projects[p].fuzz_dir, &target.name);
            [
                target.artifacts_dir.clone(),
                filed,
                corpus,
                minimized,
                ledger,
            ]
            .into_iter()
            .filter_map(move |d| Some(((p, t), fs::canonicalize(d).ok()?)))
        })
        .collect();
    let holding = dir
        .ancestors()
        .find_map(|a| places.iter().find(|(_, place)| place == a));
    if let Some(&(found, _)) = holding {
        return Ok(found);
    }
    if let Some(found) = find_by_testcase_name(projects, &dir, path) {
        return Ok(found);
    }
    // In some crate's `artifacts/NAME/` but NAME is no target: say which are.
    let in_artifacts_of_a_crate = projects.iter().any(|project| {
        fs::canonicalize(project.fuzz_dir.join("artifacts"))
            .is_ok_and(|a| dir.parent() == Some(a.as_path()))
    });
    match dir.file_name() {
        Some(name) if in_artifacts_of_a_crate => {
            Err(unknown_target(projects, &name.to_string_lossy(), true))
        }
        _ => match (other_crate(projects, &dir), only_target(projects)) {
            (Some(other), _) => Err(other),
            // A crate of one target: a file from anywhere is its input.
            (None, Some(only)) => Ok(only),
            (None, None) => Err(no_target()),
        },
    }
}

/// The one target of `projects`, if they have exactly one.
fn only_target(projects: &[FuzzProject]) -> Option<(usize, usize)> {
    let mut targets = target_indices(projects);
    let only = targets.next()?;
    targets.next().is_none().then_some(only)
}

/// The error for a file in the `artifacts/` of a crate this run did not
/// search (run from another project): its manifest, to pass with
/// --manifest-path.
fn other_crate(projects: &[FuzzProject], dir: &Path) -> Option<DiscoveryError> {
    let artifacts = dir
        .ancestors()
        .find(|a| a.file_name() == Some("artifacts".as_ref()))?;
    let crate_dir = artifacts.parent()?;
    let manifest = crate_dir.join("Cargo.toml");
    let searched = projects.iter().any(|p| same_file(&p.fuzz_dir, crate_dir));
    (manifest.is_file() && !searched).then_some(DiscoveryError::OtherCrate { manifest })
}

/// The target a ClusterFuzz testcase's file name gives
/// (`clusterfuzz-testcase-minimized-<target>-<id>`, as `ci` reads it),
/// of the crate whose fuzz directory holds `dir` first.
fn find_by_testcase_name(
    projects: &[FuzzProject],
    dir: &Path,
    path: &Path,
) -> Option<(usize, usize)> {
    let name = path.file_name()?.to_str()?;
    let holds =
        |p: usize| fs::canonicalize(&projects[p].fuzz_dir).is_ok_and(|f| dir.starts_with(f));
    let mut candidates: Vec<(usize, usize)> = target_indices(projects).collect();
    candidates.sort_by_cached_key(|&(p, _)| !holds(p));
    let names: Vec<&str> = candidates
        .iter()
        .map(|&(p, t)| projects[p].targets[t].name.as_str())
        .collect();
    let target = super::clusterfuzz::target_of(name, &names)?;
    candidates
        .into_iter()
        .find(|&(p, t)| projects[p].targets[t].name == target)
}

/// Every (project, target) index pair, in order.
fn target_indices(projects: &[FuzzProject]) -> impl Iterator<Item = (usize, usize)> + '_ {
    projects
        .iter()
        .enumerate()
        .flat_map(|(p, project)| (0..project.targets.len()).map(move |t| (p, t)))
}

/// The error for a target `name` that none of `projects` has, named by
/// --fuzz-target or (`from_folder`) by an artifact's folder.
pub(crate) fn unknown_target(
    projects: &[FuzzProject],
    name: &str,
    from_folder: bool,
) -> DiscoveryError {
    let mut known: Vec<String> = projects
        .iter()
        .flat_map(|p| p.targets.iter().map(|t| t.name.clone()))
        .collect();
    known.sort();
    known.dedup();
    DiscoveryError::UnknownTarget {
        name: name.to_string(),
        known,
        from_folder,
    }
}
