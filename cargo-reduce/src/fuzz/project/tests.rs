//! Discovery on small projects written into a temporary directory (their
//! manifests have no dependencies, so `cargo metadata --no-deps` works
//! offline), and on the repository's own `fuzz-targets/` crate.

use std::fs;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use super::artifact::kind_from_file_name;
use super::*;

/// A project tree in a temporary directory.
struct Fixture {
    dir: TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    /// The canonical path of `rel` (tempdirs may sit behind a symlink).
    fn path(&self, rel: &str) -> PathBuf {
        let root = fs::canonicalize(self.dir.path()).expect("canonical tempdir");
        if rel.is_empty() {
            root
        } else {
            root.join(rel)
        }
    }

    fn write(&self, rel: &str, contents: &str) -> &Self {
        let path = self.path(rel);
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(path, contents).expect("write");
        self
    }

    /// A plain library crate `name` in `dir`.
    fn crate_(&self, dir: &str, name: &str, extra: &str) -> &Self {
        self.write(&join(dir, "src/lib.rs"), "")
            .write(&join(dir, "Cargo.toml"), &package_toml(name, extra))
    }

    /// A fuzz crate `name` in `dir` with one `[[bin]]` per target; its own
    /// workspace unless `member`.
    fn fuzz_crate(&self, dir: &str, name: &str, targets: &[&str], member: bool) -> &Self {
        let mut extra = String::from("[package.metadata]\ncargo-fuzz = true\n");
        if !member {
            extra.push_str("[workspace]\nmembers = [\".\"]\n");
        }
        for target in targets {
            let source = format!("fuzz_targets/{target}.rs");
            self.write(&join(dir, &source), "fn main() {}\n");
            extra.push_str(&format!(
                "[[bin]]\nname = \"{target}\"\npath = \"{source}\"\ntest = false\n"
            ));
        }
        self.write(&join(dir, "Cargo.toml"), &package_toml(name, &extra))
    }

    fn artifact(&self, fuzz_dir: &str, target: &str, name: &str, bytes: usize) -> &Self {
        let rel = join(fuzz_dir, &format!("artifacts/{target}/{name}"));
        self.write(&rel, &"x".repeat(bytes))
    }

    /// The usual layout: crate `app` with `fuzz/` (crate `app-fuzz`,
    /// targets `parse` and `decode`) beside it.
    fn app_with_fuzz() -> Fixture {
        let f = Fixture::new();
        f.crate_("", "app", "")
            .fuzz_crate("fuzz", "app-fuzz", &["parse", "decode"], false);
        f
    }

    fn discover(&self, cwd: &str, manifest: Option<&str>, packages: &[&str]) -> Vec<FuzzProject> {
        self.try_discover(cwd, manifest, packages)
            .expect("discovery succeeds")
    }

    fn try_discover(
        &self,
        cwd: &str,
        manifest: Option<&str>,
        packages: &[&str],
    ) -> Result<Vec<FuzzProject>, DiscoveryError> {
        let packages: Vec<String> = packages.iter().map(|p| p.to_string()).collect();
        let selection = Selection {
            manifest_path: manifest.map(PathBuf::from),
            packages,
            ..Selection::default()
        };
        discover_from(&self.path(cwd), &selection)
    }
}

fn join(dir: &str, rel: &str) -> String {
    if dir.is_empty() {
        rel.to_string()
    } else {
        format!("{dir}/{rel}")
    }
}

fn package_toml(name: &str, extra: &str) -> String {
    format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n{extra}")
}

fn names(projects: &[FuzzProject]) -> Vec<&str> {
    projects.iter().map(|p| p.package.as_str()).collect()
}

fn target_names(project: &FuzzProject) -> Vec<&str> {
    project.targets.iter().map(|t| t.name.as_str()).collect()
}

#[test]
fn finds_fuzz_beside_a_normal_crate() {
    let f = Fixture::app_with_fuzz();
    for cwd in ["", "src"] {
        let projects = f.discover(cwd, None, &[]);
        assert_eq!(names(&projects), ["app-fuzz"]);
        let project = &projects[0];
        assert_eq!(project.manifest_path, f.path("fuzz/Cargo.toml"));
        assert_eq!(project.fuzz_dir, f.path("fuzz"));
        assert_eq!(project.workspace_root, f.path("fuzz"));
        assert_eq!(project.lock_file, f.path("fuzz/Cargo.lock"));
        assert!(project.target_dir.is_absolute());
        assert_eq!(target_names(project), ["decode", "parse"]);
        let decode = &project.targets[0];
        assert_eq!(decode.source, f.path("fuzz/fuzz_targets/decode.rs"));
        assert_eq!(decode.artifacts_dir, f.path("fuzz/artifacts/decode"));
        assert!(decode.artifacts.is_empty());
    }
}

#[test]
fn finds_a_workspace_member_fuzz_crate() {
    let f = Fixture::new();
    f.write("Cargo.toml", "[workspace]\nmembers = [\"app\", \"fuzz\"]\n")
        .crate_("app", "app", "")
        .fuzz_crate("fuzz", "app-fuzz", &["parse"], true);
    for cwd in ["", "app", "fuzz"] {
        let projects = f.discover(cwd, None, &[]);
        assert_eq!(names(&projects), ["app-fuzz"], "from {cwd:?}");
        assert_eq!(projects[0].workspace_root, f.path(""));
        assert_eq!(projects[0].lock_file, f.path("Cargo.lock"));
    }
}

/// roxmltree's layout: the afl.rs crate in `testing-tools/afl-fuzz/`,
/// excluded from the workspace; found from the root and from the library.
#[test]
fn finds_a_fuzz_crate_below_the_workspace_when_none_is_beside_it() {
    let f = Fixture::new();
    f.crate_(
        "",
        "app",
        "[workspace]\nmembers = [\"bench\"]\nexclude = [\"testing-tools\"]\n",
    )
    .crate_("bench", "bench", "")
    .write(
        "testing-tools/afl-fuzz/src/main.rs",
        "fn main() { afl::fuzz!(|d: &[u8]| {}); }\n",
    )
    .write(
        "testing-tools/afl-fuzz/Cargo.toml",
        &package_toml("afl-fuzz", "[workspace]\n[dependencies]\nafl = \"*\"\n"),
    );
    for cwd in ["", "src", "bench"] {
        let projects = f.discover(cwd, None, &[]);
        assert_eq!(names(&projects), ["afl-fuzz"], "from {cwd:?}");
        assert_eq!(projects[0].engine, Engine::Afl);
        assert_eq!(
            projects[0].manifest_path,
            f.path("testing-tools/afl-fuzz/Cargo.toml")
        );
    }
}

/// A crate below whose manifest cargo cannot read (a test fixture outside
/// the workspace, without its own `[workspace]`) does not hide the fuzz
/// crate beside it; alone, it is the error, with cargo's whole reason.
#[test]
fn a_broken_crate_below_does_not_hide_the_fuzz_crate_beside_it() {
    let f = Fixture::new();
    f.crate_("", "app", "[workspace]\n")
        .write(
            "tests/fixture/Cargo.toml",
            &package_toml("fixture", "[dependencies]\nlibfuzzer-sys = \"0.4\"\n"),
        )
        .write("tests/fixture/src/main.rs", "fn main() {}\n");
    let broken = f.try_discover("", None, &[]).unwrap_err();
    let message = broken.to_string();
    assert!(
        matches!(broken, DiscoveryError::Metadata { .. }),
        "{message}"
    );
    assert!(message.contains("tests/fixture/Cargo.toml"), "{message}");
    assert!(message.contains("workspace: "), "{message}");
    assert!(!message.contains('\n'), "{message}");
    f.write(
        "tools/afl-fuzz/src/main.rs",
        "fn main() { afl::fuzz!(|d: &[u8]| {}); }\n",
    )
    .write(
        "tools/afl-fuzz/Cargo.toml",
        &package_toml("afl-fuzz", "[workspace]\n[dependencies]\nafl = \"*\"\n"),
    );
    assert_eq!(names(&f.discover("", None, &[])), ["afl-fuzz"]);
}

#[test]
fn works_from_inside_the_fuzz_directory_and_with_manifest_path() {
    let f = Fixture::app_with_fuzz();
    f.fuzz_crate("fuzz-targets", "other-fuzz", &["t"], false);
    assert_eq!(names(&f.discover("fuzz", None, &[])), ["app-fuzz"]);
    assert_eq!(
        names(&f.discover("fuzz/fuzz_targets", None, &[])),
        ["app-fuzz"]
    );
    let given = |manifest| names(&f.discover("", Some(manifest), &[])).join(",");
    assert_eq!(given("fuzz/Cargo.toml"), "app-fuzz");
    assert_eq!(given("fuzz-targets/Cargo.toml"), "other-fuzz");
    assert_eq!(given("fuzz-targets"), "other-fuzz");
    assert_eq!(given("Cargo.toml"), "app-fuzz");
}

#[test]
fn package_option_selects_fuzz_crates() {
    let f = Fixture::new();
    f.write(
        "Cargo.toml",
        "[workspace]\nmembers = [\"a\", \"b\", \"lib\"]\n",
    )
    .fuzz_crate("a", "fuzz-a", &["x"], true)
    .fuzz_crate("b", "fuzz-b", &["y"], true)
    .crate_("lib", "lib", "");
    assert_eq!(names(&f.discover("", None, &[])), ["fuzz-a", "fuzz-b"]);
    assert_eq!(names(&f.discover("", None, &["fuzz-b"])), ["fuzz-b"]);
    let error = f.try_discover("", None, &["lib"]).unwrap_err();
    assert!(matches!(error, DiscoveryError::UnknownPackage { .. }));
    assert_eq!(
        error.to_string(),
        "no fuzz package named `lib` (fuzz packages: fuzz-a, fuzz-b); check -p/--package"
    );
}

#[test]
fn artifacts_have_kinds_and_minimized_copies() {
    let f = Fixture::app_with_fuzz();
    for (name, size) in [
        ("timeout-3", 3),
        ("crash-1", 1),
        ("slow-unit-5", 5),
        ("oom-2", 2),
        ("leak-4", 4),
        ("minimized-from-crash-1", 1),
        ("minimized-from-gone", 1),
        ("README", 9),
        (".gitignore", 1),
    ] {
        f.artifact("fuzz", "parse", name, size);
    }
    fs::create_dir(f.path("fuzz/artifacts/parse/crash-is-a-dir")).expect("mkdir");
    let projects = f.discover("", None, &[]);
    let parse = &projects[0].targets[1];
    let found: Vec<(&str, ArtifactKind, u64)> = parse
        .artifacts
        .iter()
        .map(|a| (a.name.as_str(), a.kind, a.size))
        .collect();
    assert_eq!(
        found,
        [
            ("crash-1", ArtifactKind::Crash, 1),
            ("leak-4", ArtifactKind::Leak, 4),
            ("oom-2", ArtifactKind::Oom, 2),
            ("slow-unit-5", ArtifactKind::SlowUnit, 5),
            ("timeout-3", ArtifactKind::Timeout, 3),
        ]
    );
    let crash = &parse.artifacts[0];
    assert_eq!(crash.path, f.path("fuzz/artifacts/parse/crash-1"));
    assert_eq!(
        crash.minimized,
        Some(f.path("fuzz/artifacts/parse/minimized-from-crash-1"))
    );
    assert!(parse.artifacts[1..].iter().all(|a| a.minimized.is_none()));
}

#[cfg(unix)]
#[test]
fn follows_a_symlinked_artifacts_directory() {
    let f = Fixture::app_with_fuzz();
    f.write("corpus/artifacts/parse/crash-abc", "boom");
    std::os::unix::fs::symlink("../corpus/artifacts", f.path("fuzz/artifacts")).expect("symlink");
    let projects = f.discover("", None, &[]);
    let parse = &projects[0].targets[1];
    assert_eq!(parse.artifacts.len(), 1);
    assert_eq!(parse.artifacts[0].size, 4);
    // Named by its real path, the artifact still belongs to `parse`.
    let real = f.path("corpus/artifacts/parse/crash-abc");
    let found = locate_artifact(&projects, &real, None).expect("located");
    assert_eq!((found.project, found.target), (0, 1));
    assert_eq!(found.artifact.path, real);
}

#[test]
fn locates_artifacts_by_directory_or_target() {
    let f = Fixture::app_with_fuzz();
    f.artifact("fuzz", "decode", "oom-1", 7)
        .write("elsewhere/input.bin", "abc");
    let projects = f.discover("", None, &[]);
    let inferred =
        locate_artifact(&projects, &f.path("fuzz/artifacts/decode/oom-1"), None).expect("inferred");
    assert_eq!((inferred.project, inferred.target), (0, 0));
    assert_eq!(inferred.artifact.kind, ArtifactKind::Oom);
    assert_eq!(inferred.artifact.size, 7);

    let outside = f.path("elsewhere/input.bin");
    let named = locate_artifact(&projects, &outside, Some("parse")).expect("named");
    assert_eq!((named.project, named.target), (0, 1));
    assert_eq!(named.artifact.kind, ArtifactKind::Unknown);
    assert_eq!(named.artifact.name, "input.bin");

    // An input of cargo-fuzz's corpus belongs to its target too.
    f.write("fuzz/corpus/parse/0a1b", "abc");
    let corpus = locate_artifact(&projects, &f.path("fuzz/corpus/parse/0a1b"), None);
    let corpus = corpus.expect("in the corpus of parse");
    assert_eq!((corpus.project, corpus.target), (0, 1));
    // And one of the set `corpus` minimized.
    f.write("fuzz/corpus-min/parse/0a1b", "abc");
    let set = locate_artifact(&projects, &f.path("fuzz/corpus-min/parse/0a1b"), None);
    let set = set.expect("in the minimized corpus of parse");
    assert_eq!((set.project, set.target), (0, 1));
    // And one in a subfolder of it (cargo-fuzz corpora keep `regressions/`).
    f.write("fuzz/corpus/parse/regressions/clusterfuzz-1", "abc");
    let nested = f.path("fuzz/corpus/parse/regressions/clusterfuzz-1");
    let nested = locate_artifact(&projects, &nested, None).expect("in a subfolder of the corpus");
    assert_eq!((nested.project, nested.target), (0, 1));
    // A ClusterFuzz testcase anywhere names its target.
    f.write(
        "fuzz/regressions/clusterfuzz-testcase-minimized-parse-57",
        "abc",
    );
    let testcase = f.path("fuzz/regressions/clusterfuzz-testcase-minimized-parse-57");
    let testcase = locate_artifact(&projects, &testcase, None).expect("named by its file");
    assert_eq!((testcase.project, testcase.target), (0, 1));
    assert!(locate_artifact(&projects, &outside, None).is_err());
}

#[test]
fn select_target_keeps_one_target() {
    let f = Fixture::app_with_fuzz();
    let mut projects = f.discover("", None, &[]);
    select_target(&mut projects, "parse").expect("selected");
    assert_eq!(target_names(&projects[0]), ["parse"]);
    let error = select_target(&mut projects, "nope").unwrap_err();
    assert!(matches!(error, DiscoveryError::UnknownTarget { .. }));
}

#[test]
fn kinds_come_from_libfuzzer_prefixes() {
    let kind = kind_from_file_name;
    assert_eq!(kind("crash-0a"), Some(ArtifactKind::Crash));
    assert_eq!(kind("slow-unit-0a"), Some(ArtifactKind::SlowUnit));
    assert_eq!(kind("minimized-from-oom-0a"), Some(ArtifactKind::Oom));
    assert_eq!(kind("partial-from-timeout-0a"), Some(ArtifactKind::Timeout));
    // The reductions of AFL++ inputs (artifact::afl_stem's names).
    let hang = "minimized-from-afl-main-id_000004-hang";
    assert_eq!(kind(hang), Some(ArtifactKind::Timeout));
    let crash = "minimized-from-afl-default-id_000017-sig_06";
    assert_eq!(kind(crash), Some(ArtifactKind::Crash));
    assert_eq!(kind("minimized-from-afl-default-id_000017"), None);
    assert_eq!(kind("afl-main-id_000004-hang"), None);
    assert_eq!(kind("crash"), None);
    assert_eq!(kind("input.bin"), None);
    assert_eq!(ArtifactKind::SlowUnit.to_string(), "slow-unit");
}

#[test]
fn errors_say_what_where_and_what_to_do() {
    let f = Fixture::app_with_fuzz();
    f.crate_("plain", "plain", "")
        .write("broken/Cargo.toml", "[package\n")
        .write("outside/crash-1", "x")
        .artifact("fuzz", "gone", "crash-2", 1);
    let error = |cwd, manifest| f.try_discover(cwd, manifest, &[]).unwrap_err();

    let missing = error("", Some("nowhere/Cargo.toml"));
    assert!(matches!(missing, DiscoveryError::ManifestMissing { .. }));
    assert!(missing.to_string().contains("nowhere/Cargo.toml"));
    // A folder without one: its `Cargo.toml` is what is missing.
    let folder = error("", Some("outside"));
    assert!(matches!(folder, DiscoveryError::ManifestMissing { .. }));
    assert!(
        folder.to_string().contains("outside/Cargo.toml"),
        "{folder}"
    );

    let readme = error("", Some("outside/crash-1"));
    assert!(matches!(readme, DiscoveryError::NotAManifest { .. }));
    assert!(readme.to_string().contains("outside/crash-1"));

    let broken = error("", Some("broken/Cargo.toml"));
    assert!(matches!(broken, DiscoveryError::Metadata { .. }));
    let message = broken.to_string();
    assert!(message.contains("broken/Cargo.toml"), "{message}");
    assert!(!message.contains('\n'), "{message}");

    let none = error("plain", None);
    assert!(matches!(none, DiscoveryError::NoFuzzCrate { .. }));
    let message = none.to_string();
    assert!(message.contains("plain/fuzz/Cargo.toml"), "{message}");
    assert!(message.contains("cargo fuzz init"), "{message}");

    let projects = f.discover("", None, &[]);
    let locate = |path: &str, target| locate_artifact(&projects, &f.path(path), target);
    assert!(matches!(
        locate("fuzz/artifacts/parse/crash-9", None),
        Err(DiscoveryError::ArtifactMissing { .. })
    ));
    // A folder in an input's place is named a folder.
    assert!(matches!(
        locate("fuzz/artifacts/gone", None),
        Err(DiscoveryError::InputIsAFolder { .. })
    ));
    // A target's name in the input's place (tmin's order) is named so.
    assert!(matches!(
        locate_artifact(&projects, Path::new("parse"), None),
        Err(DiscoveryError::TargetForInput { .. })
    ));
    let outside = locate("outside/crash-1", None).unwrap_err();
    assert!(matches!(outside, DiscoveryError::NoTarget { .. }));
    // In another project's fuzz crate, which this run does not search.
    f.write("other/fuzz/Cargo.toml", "")
        .write("other/fuzz/artifacts/t/crash-1", "x");
    let other = locate("other/fuzz/artifacts/t/crash-1", None).unwrap_err();
    assert!(
        other.to_string().contains("pass --manifest-path"),
        "{other}"
    );
    assert!(outside.to_string().contains("--fuzz-target"));
    let unknown = locate("outside/crash-1", Some("nope")).unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "no fuzz target named `nope` (targets: decode, parse); check --fuzz-target"
    );
    let stale = locate("fuzz/artifacts/gone/crash-2", None).unwrap_err();
    assert!(matches!(stale, DiscoveryError::UnknownTarget { ref name, .. } if name == "gone"));
    assert!(stale.to_string().ends_with(
        "check the artifact's `artifacts/<target>/` folder, or name its target with --fuzz-target"
    ));
}

#[test]
fn no_manifest_anywhere_upward() {
    let f = Fixture::new();
    f.write("empty/.keep", "");
    let start = f.path("empty");
    let above = start.ancestors().find(|d| d.join("Cargo.toml").is_file());
    assert!(
        above.is_none(),
        "this test needs a temporary directory with no Cargo.toml above it, but {} has one: set TMPDIR elsewhere",
        above.unwrap_or(&start).display()
    );
    let error = f.try_discover("empty", None, &[]).unwrap_err();
    assert!(matches!(error, DiscoveryError::NoManifest { start: ref s } if *s == start));
    assert!(error.to_string().contains("--manifest-path"));
}

#[test]
fn discovers_the_repository_s_fuzz_targets() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz-targets");
    let projects = discover_from(&dir, &Selection::default()).expect("fuzz-targets found");
    assert_eq!(names(&projects), ["fuzz-targets"]);
    let project = &projects[0];
    assert_eq!(
        target_names(project),
        [
            "abort",
            "byte_parser",
            "endless_loop",
            "huge_alloc",
            "stack_overflow",
            "two_callers",
            "two_panics",
            "typed_arbitrary",
            "typed_query"
        ]
    );
    // The ones the repository ships: the README's demo files the other
    // bugs its reductions run into beside them.
    let artifacts: Vec<&Artifact> = project
        .targets
        .iter()
        .flat_map(|t| &t.artifacts)
        .filter(|a| !a.name.contains(super::artifact::ALSO_FOUND_INFIX))
        .collect();
    assert_eq!(artifacts.len(), 8);
    let kinds = |k| artifacts.iter().filter(|a| a.kind == k).count();
    assert_eq!(kinds(ArtifactKind::Crash), 6);
    assert_eq!(kinds(ArtifactKind::Oom), 1);
    assert_eq!(kinds(ArtifactKind::Timeout), 1);
    // The artifacts directory is a symlink into corpus/; both paths locate.
    let abort = &project.targets[0].artifacts[0];
    let real = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/artifacts/abort")
        .join(&abort.name);
    for path in [&abort.path, &real] {
        let found = locate_artifact(&projects, path, None).expect("located");
        assert_eq!((found.project, found.target), (0, 0));
    }
}

/// A package with both engines: each target by the source it has, with
/// its features; the plain program and the engine-less bin are neither.
#[test]
fn a_package_with_both_engines_splits_its_targets_by_source() {
    let f = Fixture::new();
    f.write(
        "Cargo.toml",
        &package_toml(
            "both",
            "[workspace]\n[dependencies]\nlibfuzzer-sys = { version = \"0.4\", optional = true }\nafl = { version = \"0.18\", optional = true }\n[features]\nlibfuzzer = [\"dep:libfuzzer-sys\"]\nafl = [\"dep:afl\"]\nextra = []\n[[bin]]\nname = \"lf\"\npath = \"lf.rs\"\nrequired-features = [\"extra\"]\n[[bin]]\nname = \"aflt\"\npath = \"aflt.rs\"\n[[bin]]\nname = \"dual\"\npath = \"dual.rs\"\n[[bin]]\nname = \"tool\"\npath = \"tool.rs\"\n",
        ),
    )
    .write("lf.rs", "#![no_main]\nlibfuzzer_sys::fuzz_target!(|d: &[u8]| {});\n")
    .write("aflt.rs", "fn main() { afl::fuzz!(|d: &[u8]| {}); }\n")
    .write(
        "dual.rs",
        "#[cfg(feature = \"afl\")]\nfn main() { afl::fuzz!(|d: &[u8]| {}); }\n#[cfg(feature = \"libfuzzer\")]\nlibfuzzer_sys::fuzz_target!(|d: &[u8]| {});\n",
    )
    .write("tool.rs", "fn main() { std::io::stdin(); }\n")
    .write("artifacts/dual/crash-1", "x")
    .write("artifacts/aflt/crash-2", "y");
    let projects = f.discover("", None, &[]);
    let engines: Vec<Engine> = projects.iter().map(|p| p.engine).collect();
    assert_eq!(engines, [Engine::LibFuzzer, Engine::Afl]);
    // `artifacts/dual/` is libFuzzer's; `artifacts/aflt/` holds saved AFL inputs.
    let artifacts = |p: &FuzzProject, t: &str| -> Vec<String> {
        let target = p.targets.iter().find(|x| x.name == t).unwrap();
        target.artifacts.iter().map(|a| a.name.clone()).collect()
    };
    assert_eq!(artifacts(&projects[0], "dual"), ["crash-1"]);
    assert_eq!(artifacts(&projects[1], "dual"), Vec::<String>::new());
    assert_eq!(artifacts(&projects[1], "aflt"), ["crash-2"]);
    let features = |p: &FuzzProject| -> Vec<(String, Vec<String>)> {
        p.targets
            .iter()
            .map(|t| (t.name.clone(), t.features.clone()))
            .collect()
    };
    let owned = |list: &[(&str, &[&str])]| -> Vec<(String, Vec<String>)> {
        list.iter()
            .map(|(n, fs)| (n.to_string(), fs.iter().map(|f| f.to_string()).collect()))
            .collect()
    };
    assert_eq!(
        features(&projects[0]),
        owned(&[("dual", &["libfuzzer"]), ("lf", &["extra", "libfuzzer"])])
    );
    assert_eq!(
        features(&projects[1]),
        owned(&[("aflt", &["afl"]), ("dual", &["afl"])])
    );
}

/// A cargo-fuzz crate without afl: every bin is a target (as `cargo fuzz
/// list` has it), with its required features.
#[test]
fn a_cargo_fuzz_crate_keeps_every_bin_with_its_required_features() {
    let f = Fixture::new();
    f.write(
        "Cargo.toml",
        &package_toml(
            "only-lf",
            "[package.metadata]\ncargo-fuzz = true\n[workspace]\n[features]\nslow = []\n[[bin]]\nname = \"gated\"\npath = \"gated.rs\"\nrequired-features = [\"slow\"]\n[[bin]]\nname = \"wrapped\"\npath = \"wrapped.rs\"\n",
        ),
    )
    .write("gated.rs", "fn main() {}\n")
    .write("wrapped.rs", "fn main() {}\n");
    let projects = f.discover("", None, &[]);
    assert_eq!(projects.len(), 1);
    assert_eq!(target_names(&projects[0]), ["gated", "wrapped"]);
    assert_eq!(projects[0].targets[0].features, ["slow"]);
}

/// An afl.rs target's `artifacts/<target>/`: every file the user saved
/// there is an input (AFL++ names or libFuzzer's), cargo-reduce's own
/// results and temporary files are not.
#[test]
fn an_afl_target_takes_the_inputs_saved_in_its_artifacts_directory() {
    let f = Fixture::new();
    f.write(
        "Cargo.toml",
        &package_toml(
            "aflsaved",
            "[workspace]\n[dependencies]\nafl = \"0.18\"\n[[bin]]\nname = \"parse\"\npath = \"parse.rs\"\n",
        ),
    )
    .write("parse.rs", "fn main() { afl::fuzz!(|d: &[u8]| {}); }\n")
    .write("artifacts/parse/id:000000,sig:06,src:000000", "AB")
    .write("artifacts/parse/crash-1", "C")
    .write("artifacts/parse/minimized-from-crash-1", "c")
    .write("artifacts/parse/minimized-from-afl-main-id_000003-sig_06", "d")
    .write("artifacts/parse/partial-from-crash-2", "e")
    .write("artifacts/parse/.cargo-reduce-tmp", "f");
    let projects = f.discover("", None, &[]);
    assert_eq!(projects.len(), 1);
    let artifacts = &projects[0].targets[0].artifacts;
    let names: Vec<&str> = artifacts.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["crash-1", "id:000000,sig:06,src:000000"]);
    assert_eq!(
        artifacts[0].minimized,
        Some(f.path("artifacts/parse/minimized-from-crash-1"))
    );
    assert_eq!(artifacts[1].kind, ArtifactKind::Unknown);
    assert_eq!(artifacts[1].minimized, None);
}

#[test]
fn out_dir_takes_the_results_and_an_in_tree_build() {
    let f = Fixture::app_with_fuzz();
    f.artifact("fuzz", "parse", "crash-1", 3)
        .write("out/app-fuzz/artifacts/parse/minimized-from-crash-1", "x");
    let selection = Selection {
        out_dir: Some("out".into()),
        ..Selection::default()
    };
    let projects = discover_from(&f.path(""), &selection).expect("discovered");
    let project = &projects[0];
    let results = f.path("out/app-fuzz");
    assert_eq!(project.output_root(), results);
    let parse = project.targets.iter().find(|t| t.name == "parse").unwrap();
    assert_eq!(
        parse.artifacts_dir,
        f.path("fuzz/artifacts/parse"),
        "read there"
    );
    assert_eq!(
        project.results_dir("parse"),
        results.join("artifacts/parse")
    );
    let artifact = &parse.artifacts[0];
    assert_eq!(artifact.path, f.path("fuzz/artifacts/parse/crash-1"));
    assert_eq!(
        artifact.output,
        results.join("artifacts/parse/minimized-from-crash-1")
    );
    assert_eq!(artifact.minimized.as_ref(), Some(&artifact.output));
    let in_tree = project.target_dir.starts_with(f.path("fuzz"));
    let elsewhere = std::env::var_os("CARGO_TARGET_DIR").is_some();
    assert!(
        !in_tree && (elsewhere || project.target_dir == f.path("out/target")),
        "{}",
        project.target_dir.display()
    );
}

/// What an earlier `--out-dir` run filed under DIR (another failure its
/// reduction ran into) is an artifact of the target on the next run, as it
/// is when filed in the tree; its own reduction goes beside it.
#[test]
fn out_dir_artifacts_filed_there_are_the_targets() {
    let f = Fixture::app_with_fuzz();
    let filed = "out/app-fuzz/artifacts/parse/crash-2-found-reducing-crash-1";
    f.artifact("fuzz", "parse", "crash-1", 3)
        .write("out/app-fuzz/artifacts/parse/minimized-from-crash-1", "x")
        .write(filed, "yy");
    let selection = Selection {
        out_dir: Some("out".into()),
        ..Selection::default()
    };
    let projects = discover_from(&f.path(""), &selection).expect("discovered");
    let parse = projects[0]
        .targets
        .iter()
        .find(|t| t.name == "parse")
        .unwrap();
    let paths: Vec<&Path> = parse.artifacts.iter().map(|a| a.path.as_path()).collect();
    assert_eq!(
        paths,
        [f.path("fuzz/artifacts/parse/crash-1"), f.path(filed)],
        "the tree's, then what was filed under DIR (not its minimized copy)"
    );
    assert_eq!(
        parse.artifacts[1].output,
        f.path("out/app-fuzz/artifacts/parse/minimized-from-crash-2-found-reducing-crash-1")
    );
    let located = locate_artifact(&projects, &f.path(filed), None).expect("its target");
    assert_eq!(projects[0].targets[located.target].name, "parse");
}

/// A file from anywhere is the input of a crate's only target; with two
/// targets it needs --fuzz-target.
#[test]
fn a_file_elsewhere_belongs_to_the_only_target() {
    let f = Fixture::new();
    f.fuzz_crate("fuzz", "one-fuzz", &["only"], false)
        .write("saved/crash-1", "x");
    let projects = f.discover("fuzz", None, &[]);
    let found = locate_artifact(&projects, &f.path("saved/crash-1"), None).unwrap();
    assert_eq!(projects[found.project].targets[found.target].name, "only");
    let f = Fixture::new();
    f.fuzz_crate("fuzz", "two-fuzz", &["a", "b"], false)
        .write("saved/crash-1", "x");
    let projects = f.discover("fuzz", None, &[]);
    let outside = locate_artifact(&projects, &f.path("saved/crash-1"), None).unwrap_err();
    assert!(matches!(outside, DiscoveryError::NoTarget { .. }));
}
