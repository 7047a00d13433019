//! afl.rs crates: packages that depend on `afl`, whose bin, example or test
//! targets call its `fuzz!` (or `fuzz_nohook!`, or `afl::fuzz` directly),
//! and the AFL++ instances that fuzzed them.

use std::fs;
use std::path::{Path, PathBuf};

use cargo_metadata::{Package, Target, TargetKind};

use super::artifact::{scan_artifacts, Artifact, Saved};
use super::campaign::{self, Instance};
use super::error::DiscoveryError;
use super::features::{enabling_feature, target_features};
use super::{BinKind, Engine, FuzzProject, FuzzTarget};

/// The crate afl.rs users depend on.
pub(super) const AFL_CRATE: &str = "afl";

/// True for a package that depends on `afl` (as a normal, dev or optional
/// dependency).
pub(super) fn is_afl_crate(package: &Package) -> bool {
    package
        .dependencies
        .iter()
        .any(|d| d.name == AFL_CRATE && d.kind != cargo_metadata::DependencyKind::Build)
}

/// The kind of a target that can be an afl.rs fuzz target.
fn bin_kind(target: &Target) -> Option<BinKind> {
    if target.is_kind(TargetKind::Bin) {
        Some(BinKind::Bin)
    } else if target.is_kind(TargetKind::Example) {
        Some(BinKind::Example)
    } else if target.is_kind(TargetKind::Test) {
        Some(BinKind::Test)
    } else {
        None
    }
}

/// True when the source of a target calls afl.rs: a package may also have
/// binaries that are not fuzz targets.
pub(super) fn calls_afl(source: &Path) -> bool {
    let Ok(text) = fs::read_to_string(source) else {
        return false;
    };
    [
        "fuzz!",
        "fuzz_nohook!",
        "fuzz_with_reset!",
        "afl::",
        "extern crate afl",
    ]
    .iter()
    .any(|form| mentions(&text, form))
}

/// Whether `text` has `form` where it starts a name (`afl::`, not
/// `jotdown_afl::`, a crate of the fuzz targets' own).
fn mentions(text: &str, form: &str) -> bool {
    text.match_indices(form).any(|(at, _)| {
        !text[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// The afl.rs fuzz targets of `package`, sorted by name, with the inputs
/// the user saved in their `artifacts/<target>/` (every file there but
/// cargo-reduce's results); the AFL++ instances' crashes and hangs are
/// added by [`attach_instances`].
pub(super) fn afl_targets(
    package: &Package,
    package_dir: &Path,
) -> Result<Vec<FuzzTarget>, DiscoveryError> {
    let enabling = enabling_feature(package, AFL_CRATE);
    let mut targets = Vec::new();
    let afl_targets = package
        .targets
        .iter()
        .filter_map(|t| Some((t, bin_kind(t)?)))
        .filter(|(t, _)| calls_afl(t.src_path.as_std_path()));
    for (t, kind) in afl_targets {
        let artifacts_dir = package_dir.join("artifacts").join(&t.name);
        targets.push(FuzzTarget {
            name: t.name.clone(),
            source: t.src_path.clone().into_std_path_buf(),
            kind,
            features: target_features(t, enabling.as_deref()),
            artifacts: scan_artifacts(&artifacts_dir, Saved::Any)?,
            artifacts_dir,
            settings: Default::default(),
        });
    }
    targets.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(targets)
}

/// Where AFL output of `project` is looked for: its package directory (with
/// its `fuzz*` and `afl*` folders) and its workspace root.
pub(super) fn search_roots(project: &FuzzProject) -> Vec<PathBuf> {
    let mut roots = vec![project.fuzz_dir.clone(), project.workspace_root.clone()];
    roots.dedup();
    roots
}

/// The target that the AFL++ instance which saved `input` (in its
/// `crashes/` or `hangs/`) ran, by its `cmdline`.
pub(crate) fn target_of_afl_input(input: &Path) -> Option<String> {
    let folder = input.parent()?;
    campaign::failing_folder(&folder.file_name()?.to_string_lossy())?;
    let instance = campaign::read_instance(folder.parent()?);
    instance.binary.as_deref().map(target_name_of)
}

/// The target name a campaign's binary stands for: its file name, without
/// the `-<hash>` cargo gives test binaries.
fn target_name_of(binary: &Path) -> String {
    let name = binary
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match name.rsplit_once('-') {
        Some((stem, hash)) if hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()) => {
            stem.to_string()
        }
        _ => name,
    }
}

/// Gives each AFL instance to the target whose binary it ran (the target of
/// that name, in the project whose target directory holds the binary if
/// several have one), adding its crashes and hangs to the target's
/// artifacts. Returns the instances no target ran.
pub(super) fn attach_instances(
    projects: &mut [FuzzProject],
    instances: Vec<Instance>,
) -> Vec<Instance> {
    let mut unmatched = Vec::new();
    for mut instance in instances {
        let Some(binary) = instance.binary.clone() else {
            unmatched.push(instance);
            continue;
        };
        let name = target_name_of(&binary);
        let candidates: Vec<(usize, usize)> = projects
            .iter()
            .enumerate()
            .filter(|(_, p)| p.engine == Engine::Afl)
            .flat_map(|(p, project)| {
                project
                    .targets
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| t.name == name)
                    .map(move |(t, _)| (p, t))
            })
            .collect();
        let chosen = candidates
            .iter()
            .find(|&&(p, _)| binary.starts_with(&projects[p].target_dir))
            .or(candidates.first());
        let Some(&(p, t)) = chosen else {
            unmatched.push(instance);
            continue;
        };
        if let (Some(hash), false) = (&instance.target_hash, binary.is_absolute()) {
            // afl-fuzz was started in the crate's directory, as `cargo afl
            // fuzz … target/debug/NAME` is.
            instance.rebuilt = campaign::rebuilt_since(hash, &projects[p].fuzz_dir.join(&binary));
        }
        let target = &mut projects[p].targets[t];
        for input in &instance.inputs {
            let artifact = Artifact::from_afl(&instance, input, &target.artifacts_dir);
            if !target.artifacts.iter().any(|a| a.path == artifact.path) {
                target.artifacts.push(artifact);
            }
        }
        projects[p].instances.push((instance, Some(name)));
    }
    unmatched
}

/// The instances below every AFL project's [`search_roots`] and in each of
/// `afl_out` (`--afl-out`).
pub(super) fn find_all_instances(projects: &[FuzzProject], afl_out: &[PathBuf]) -> Vec<Instance> {
    let mut roots: Vec<PathBuf> = projects
        .iter()
        .filter(|p| p.engine == Engine::Afl)
        .flat_map(search_roots)
        .collect();
    roots.sort();
    roots.dedup();
    let mut instances = campaign::find_instances(&roots);
    for out in afl_out {
        instances.extend(campaign::instances_in(out));
    }
    instances.sort_by(|a, b| a.dir.cmp(&b.dir));
    instances.dedup_by(|a, b| a.dir == b.dir);
    qualify_shared_names(&mut instances);
    instances
}

/// Names each instance whose name another instance of the same target
/// shares (two campaigns' `default`) by its output directory too
/// (`out-b.default`), and by a hash of its path where that is shared as
/// well: its results' names come from it, and would overwrite each other.
fn qualify_shared_names(instances: &mut [Instance]) {
    let target = |i: &Instance| i.binary.as_deref().map(target_name_of);
    let shared = |instances: &[Instance], i: usize| {
        let key = (&instances[i].name, target(&instances[i]));
        instances
            .iter()
            .filter(|other| (&other.name, target(other)) == key)
            .count()
            > 1
    };
    let qualifiers: [&dyn Fn(&Instance) -> String; 2] = [
        &|i| {
            let campaign = i.dir.parent().and_then(Path::file_name);
            campaign.map_or_else(String::new, |c| c.to_string_lossy().into_owned())
        },
        &|i| {
            let hash = xxhash_rust::xxh3::xxh3_64(i.dir.as_os_str().as_encoded_bytes());
            format!("{:08x}", hash >> 32)
        },
    ];
    for qualifier in qualifiers {
        let names: Vec<Option<String>> = (0..instances.len())
            .map(|i| shared(instances, i).then(|| qualifier(&instances[i])))
            .collect();
        for (instance, qualified) in instances.iter_mut().zip(names) {
            if let Some(q) = qualified {
                instance.name = format!("{q}.{}", instance.name);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instance(dir: &str, binary: &str) -> Instance {
        Instance {
            dir: PathBuf::from(dir),
            name: "default".into(),
            binary: Some(PathBuf::from(binary)),
            exec_timeout: None,
            mem_limit_mb: None,
            target_hash: None,
            rebuilt: None,
            inputs: Vec::new(),
        }
    }

    /// Two campaigns' `default` instances of one target would give their
    /// results the same names.
    #[test]
    fn shared_instance_names_are_qualified_by_their_campaign() {
        let mut instances = [
            instance("/c/out/default", "target/debug/parse"),
            instance("/c/out-b/default", "target/debug/parse"),
            instance("/c/other/default", "target/debug/render"),
        ];
        qualify_shared_names(&mut instances);
        let names: Vec<&str> = instances.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["out.default", "out-b.default", "default"]);
        let mut twins = [
            instance("/a/out/default", "target/debug/parse"),
            instance("/b/out/default", "target/debug/parse"),
        ];
        qualify_shared_names(&mut twins);
        assert_ne!(twins[0].name, twins[1].name);
        assert!(twins[0].name.ends_with(".out.default"), "{}", twins[0].name);
    }

    /// A crash names the target its instance ran (a wrong --fuzz-target
    /// is told so).
    #[test]
    fn an_afl_input_names_the_target_its_instance_ran() {
        let dir = tempfile::tempdir().unwrap();
        let instance = dir.path().join("out/default");
        std::fs::create_dir_all(instance.join("crashes")).unwrap();
        std::fs::write(instance.join("cmdline"), "target/debug/parse\n").unwrap();
        let crash = instance.join("crashes/id:000000,sig:06");
        std::fs::write(&crash, "x").unwrap();
        assert_eq!(target_of_afl_input(&crash).as_deref(), Some("parse"));
        let elsewhere = dir.path().join("input");
        std::fs::write(&elsewhere, "x").unwrap();
        assert_eq!(target_of_afl_input(&elsewhere), None);
    }

    /// jotdown's `main` bin calls its crate `jotdown_afl`, not afl.rs.
    #[test]
    fn a_crate_named_like_afl_is_not_afl() {
        assert!(mentions("fn main() { afl::fuzz!(|d| {}); }", "afl::"));
        assert!(mentions("afl::fuzz!", "afl::"));
        assert!(!mentions("let f = jotdown_afl::parse;", "afl::"));
        assert!(!mentions("my_fuzz!(x)", "fuzz!"));
    }

    #[test]
    fn test_binaries_lose_their_hash() {
        assert_eq!(
            target_name_of(Path::new("/t/debug/deps/parse-0123456789abcdef")),
            "parse"
        );
        assert_eq!(
            target_name_of(Path::new("/t/debug/parse-json")),
            "parse-json"
        );
        assert_eq!(target_name_of(Path::new("target/release/examples/x")), "x");
    }
}
