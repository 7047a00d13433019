//! `cargo reduce ci` on copies of the bundled fuzz-targets crate: the
//! regression ledger, new / known / fixed failures, CI reports, shards.

use std::fs;
use std::path::{Path, PathBuf};

use crate::fuzz_fixture::{command, fresh_copy, snapshot, target_dir};
use crate::recycled::RecycledDir;
use crate::util::Run;

/// The bundled targets with an artifact, and their ledger inputs.
const LEDGER: &[(&str, Option<&[u8]>)] = &[
    ("abort", Some(b"ZAP")),
    ("byte_parser", Some(b"RX\x0100")),
    ("endless_loop", Some(b"LP\x00")),
    ("huge_alloc", None),
    ("stack_overflow", None),
    ("two_panics", Some(b"ABXYZ")),
    ("typed_arbitrary", Some(b"\0\0\x9a\x99\x99\x99\xc9")),
    ("typed_query", Some(b"*?\x01VUUU\x02")),
];

/// The other bug the minimizations run into (two_panics' bug B, found
/// reducing bug A's artifact), filed beside the others, and its input.
const ALSO_FOUND: (&str, &[u8]) = ("two_panics", b"XYZ");

/// The failures of the bundled artifacts and the one their minimizations
/// find.
const FAILURES: u64 = LEDGER.len() as u64 + 1;

/// A copy of the crate, and `cargo reduce ci` run in the copy's parent
/// (as CI runs it at the repository root) with its own cache.
struct Project {
    _dir: RecycledDir,
    root: PathBuf,
    fuzz: PathBuf,
}

impl Project {
    fn new() -> Project {
        let (dir, fuzz) = fresh_copy();
        Project {
            root: dir.path().to_path_buf(),
            _dir: dir,
            fuzz,
        }
    }

    fn ci(&self, args: &[&str]) -> Run {
        let manifest = self.fuzz.join("Cargo.toml");
        let cache = self.root.join("ci-cache");
        let mut all = vec![
            "--manifest-path",
            manifest.to_str().unwrap(),
            "--cache-dir",
            cache.to_str().unwrap(),
        ];
        all.extend(args);
        self.run(&all)
    }

    /// `cargo reduce ci ARGS…` in the copy's parent.
    fn run(&self, args: &[&str]) -> Run {
        let all = [&["reduce", "ci"][..], args].concat();
        let mut command = command(&all, &target_dir());
        command
            .current_dir(&self.root)
            .env_remove("GITHUB_STEP_SUMMARY");
        Run(command.output().expect("spawn cargo-reduce"))
    }

    fn ledger(&self, target: &str) -> Vec<PathBuf> {
        let dir = self.fuzz.join("regressions").join(target);
        let mut inputs: Vec<PathBuf> = fs::read_dir(&dir)
            .map(|l| l.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default();
        inputs.retain(|p| p.is_file() && p.extension().is_none_or(|e| e != "json"));
        inputs.sort();
        inputs
    }

    /// Files the bundled artifacts: the ledger every later step starts from.
    fn filed(self) -> Project {
        self.ci(&["--update", "--message-format", "json"])
            .expect_code(11);
        self
    }
}

/// The failure of a `ci` report with id `id`.
fn failure_of<'r>(report: &'r serde_json::Value, id: &serde_json::Value) -> &'r serde_json::Value {
    report["failures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == *id)
        .unwrap_or_else(|| panic!("no failure {id} in {report}"))
}

fn finished(run: &Run) -> serde_json::Value {
    let last = run.messages().pop().expect("messages");
    assert_eq!(last["reason"], "ci-finished", "{last}");
    last
}

#[test]
fn a_clean_run_files_every_failure_then_finds_nothing_new_and_changes_no_byte() {
    let project = Project::new();
    let first = project.ci(&["--update", "--message-format", "json"]);
    first.expect_code(11);
    crate::schema::check_messages(&first);
    // Its minimizations report their progress as fuzz mode's do.
    assert!(crate::util::check_progress(&first.messages()) > 0);
    let summary = finished(&first);
    assert_eq!(
        (summary["new"].as_u64(), summary["known"].as_u64()),
        (Some(FAILURES), Some(0))
    );
    for (target, bytes) in LEDGER {
        let inputs = project.ledger(target);
        let also = usize::from(*target == ALSO_FOUND.0);
        assert_eq!(inputs.len(), 1 + also, "{target}: one entry per failure");
        let contents: Vec<Vec<u8>> = inputs.iter().map(|i| fs::read(i).unwrap()).collect();
        if let Some(bytes) = bytes {
            assert!(contents.iter().any(|c| c == bytes), "{target}: minimized");
        }
        if also == 1 {
            assert!(contents.iter().any(|c| c == ALSO_FOUND.1), "{target}");
        }
        for input in inputs {
            let sidecar = fs::read(format!("{}.json", input.display())).unwrap();
            let sidecar: serde_json::Value = serde_json::from_slice(&sidecar).unwrap();
            assert_eq!(sidecar["minimal"], true, "{target}");
            let name = input.file_name().unwrap().to_string_lossy().into_owned();
            assert!(name.starts_with(sidecar["id"].as_str().unwrap()), "{name}");
        }
    }
    let typed = project.ledger("typed_query");
    let sidecar = fs::read_to_string(format!("{}.json", typed[0].display())).unwrap();
    assert!(sidecar.contains("\"debug\": \"Query {"), "{sidecar}");

    let before = snapshot(&project.fuzz);
    let again = project.ci(&["--update", "--message-format", "json"]);
    again.expect_code(0);
    let summary = finished(&again);
    assert_eq!(
        (summary["new"].as_u64(), summary["known"].as_u64()),
        (Some(0), Some(FAILURES))
    );
    assert_eq!(
        snapshot(&project.fuzz),
        before,
        "a second run changes no byte"
    );
    let human = project.ci(&[]);
    human.expect_code(0);
    assert!(
        human
            .stdout()
            .contains("(18 from the cache): 0 new, 9 known, 0 fixed"),
        "{}",
        human.stdout()
    );
    // Exit 12: known failures only, with --fail-on known.
    let strict = project.ci(&["--fail-on", "known", "--message-format", "json"]);
    strict.expect_code(12);
    crate::schema::check_messages(&strict);
    assert_eq!(finished(&strict)["exit"], 12);

    // The other bug was filed as an artifact of its target; a checkout
    // without it and without two_panics' ledger, with the cache of the
    // runs before, gets it again from the cached minimization of bug A.
    let messages = first.messages();
    let also = crate::util::message(&messages, "artifact-also-found");
    assert_eq!(also["target"], ALSO_FOUND.0, "{also}");
    let artifact = PathBuf::from(also["path"].as_str().unwrap());
    assert!(fs::read(&artifact).unwrap().starts_with(ALSO_FOUND.1));
    fs::remove_file(&artifact).unwrap();
    fs::remove_dir_all(project.fuzz.join("regressions").join(ALSO_FOUND.0)).unwrap();
    let fresh = project.ci(&["--message-format", "json"]);
    fresh.expect_code(11);
    assert_eq!(finished(&fresh)["new"], 2, "bug A and bug B");
    assert!(fs::read(&artifact).unwrap().starts_with(ALSO_FOUND.1));
}

/// A cached minimization is kept by the failure's id, which names its
/// place; after an edit another bug can take that place. A cached input
/// that no longer fails as its group does is not filed: the group is
/// minimized again. (Here the cached bytes are replaced by an input that
/// passes; an edit that moved another panic to the same line filed an
/// input of one bug under the other's id.)
#[test]
fn a_cached_minimization_that_no_longer_fails_alike_is_not_filed() {
    let project = Project::new().filed();
    let target = "byte_parser";
    let cached: Vec<PathBuf> = fs::read_dir(project.root.join("ci-cache/minimized").join(target))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_none())
        .collect();
    assert_eq!(cached.len(), 1, "{cached:?}");
    fs::write(&cached[0], b"passes").unwrap();
    fs::remove_dir_all(project.fuzz.join("regressions").join(target)).unwrap();
    project
        .ci(&[
            "--update",
            "--fuzz-target",
            target,
            "--message-format",
            "json",
        ])
        .expect_code(11);
    let filed = project.ledger(target);
    assert_eq!(filed.len(), 1, "{filed:?}");
    assert_eq!(fs::read(&filed[0]).unwrap(), b"RX\x0100", "minimized again");
}

#[test]
fn a_planted_bug_is_new_in_every_report_and_a_fixed_one_is_fixed() {
    let project = Project::new().filed();
    // A new bug: an input the ledger does not have.
    let planted = project.fuzz.join("artifacts/two_callers");
    fs::create_dir_all(&planted).unwrap();
    fs::write(planted.join("crash-quoted"), "!abc").unwrap();
    // A fixed one: bug A of two_panics no longer panics.
    let source = project.fuzz.join("fuzz_targets/two_panics.rs");
    let text = fs::read_to_string(&source).unwrap();
    let fixed = text.replace("panic!(\"bug A: authenticated XYZ request\");", "return 0;");
    assert_ne!(text, fixed);
    fs::write(&source, fixed).unwrap();

    let (sarif, junit) = (project.root.join("ci.sarif"), project.root.join("ci.xml"));
    let summary_file = project.root.join("summary.md");
    let manifest = project.fuzz.join("Cargo.toml");
    let mut command = command(
        &[
            "reduce",
            "ci",
            "--manifest-path",
            manifest.to_str().unwrap(),
            "--update",
            "--prune-fixed",
            "--format",
            "github",
            "--sarif",
            sarif.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
        ],
        &target_dir(),
    );
    command
        .current_dir(&project.root)
        .env("GITHUB_STEP_SUMMARY", &summary_file);
    let run = Run(command.output().unwrap());
    run.expect_code(11);

    // The planted bug, and maybe the other caller's, which its
    // minimization can meet (a candidate without the `!`) and files.
    let stdout = run.stdout();
    let annotations: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("::error"))
        .collect();
    let panic_line = fs::read_to_string(project.fuzz.join("fuzz_targets/two_callers.rs")).unwrap();
    let column = panic_line.lines().nth(22).unwrap().find("panic!").unwrap() + 1;
    let title = format!(
        "::error file=fuzz-targets/fuzz_targets/two_callers.rs,line=23,col={column},title=New fuzz failure "
    );
    assert!(
        annotations.iter().all(|a| a.starts_with(&title)),
        "{annotations:?}"
    );
    let planted = annotations
        .iter()
        .find(|a| a.contains("smallest: fuzz-targets/artifacts/two_callers/crash-quoted,"))
        .unwrap_or_else(|| panic!("{annotations:?}"));
    let id = planted[title.len()..]
        .split(' ')
        .next()
        .unwrap()
        .to_string();
    let others = annotations.len() - 1;
    assert!(
        others <= 1
            && annotations
                .iter()
                .filter(|a| *a != planted)
                .all(|a| a.contains("found-reducing-crash-quoted") && a.contains("port")),
        "{annotations:?}"
    );
    let summary = fs::read_to_string(&summary_file).unwrap();
    let counts = format!("**{} new**, 8 known, 1 fixed", 1 + others);
    assert!(summary.contains(&counts), "{summary}");
    assert!(summary.contains("| new | two_callers |"), "{summary}");
    assert!(summary.contains("| fixed | two_panics |"), "{summary}");

    let sarif_log: serde_json::Value = serde_json::from_slice(&fs::read(&sarif).unwrap()).unwrap();
    let results = sarif_log["runs"][0]["results"].as_array().unwrap();
    let new: Vec<_> = results.iter().filter(|r| r["level"] == "error").collect();
    assert_eq!(new.len(), 1 + others);
    let result = new
        .iter()
        .find(|r| r["partialFingerprints"]["cargoReduceSignature/v1"] == id.as_str())
        .unwrap_or_else(|| panic!("{id} in {new:?}"));
    assert_eq!(result["ruleId"], "fuzz/panic");
    let location = &result["locations"][0]["physicalLocation"];
    assert_eq!(
        location["artifactLocation"]["uri"],
        "fuzz-targets/fuzz_targets/two_callers.rs"
    );
    assert_eq!(location["region"]["startLine"], 23);
    assert_eq!(location["region"]["startColumn"], column);
    let function = &result["locations"][0]["logicalLocations"][0];
    assert_eq!(function["fullyQualifiedName"], "two_callers::number");
    assert_eq!(function["kind"], "function");
    validate_sarif(&sarif);

    let junit_xml = fs::read_to_string(&junit).unwrap();
    assert!(
        junit_xml.contains(&format!("new failure {id}")),
        "{junit_xml}"
    );
    assert!(junit_xml.contains("name=\"fuzz-targets/artifacts/two_callers/crash-quoted\""));
    assert!(
        junit_xml.contains("cargo reduce ci replay --fuzz-target two_callers fuzz-targets/artifacts/two_callers/crash-quoted"),
        "{junit_xml}"
    );

    // Filed minimized, and the fixed entry moved aside.
    let filed = project.ledger("two_callers");
    assert_eq!(filed.len(), 1 + others);
    let entry = filed
        .iter()
        .find(|f| f.file_name().unwrap().to_string_lossy().starts_with(&id))
        .unwrap_or_else(|| panic!("{id} in {filed:?}"));
    assert_eq!(fs::read(entry).unwrap(), b"!");
    let left: Vec<Vec<u8>> = project
        .ledger("two_panics")
        .iter()
        .map(|entry| fs::read(entry).unwrap())
        .collect();
    assert_eq!(left, [ALSO_FOUND.1], "bug B's entry stays");
    assert_eq!(
        fs::read_dir(project.fuzz.join("regressions/two_panics/fixed"))
            .unwrap()
            .count(),
        2,
        "input and sidecar"
    );
}

/// Validates `sarif` with the SARIF 2.1.0 schema (OASIS, kept in
/// cargo-reduce/tests-fixtures/schemas/).
fn validate_sarif(sarif: &Path) {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests-fixtures/schemas/sarif-schema-2.1.0.json");
    crate::schema::validate(&schema, sarif, false);
}

/// The parts of a report that do not depend on how the work was split.
fn comparable(report: &Path) -> serde_json::Value {
    let mut report: serde_json::Value = serde_json::from_slice(&fs::read(report).unwrap()).unwrap();
    let object = report.as_object_mut().unwrap();
    object.remove("elapsed_s");
    object.remove("shard");
    for input in object["inputs"].as_array_mut().unwrap() {
        input.as_object_mut().unwrap().remove("cached");
    }
    report
}

#[test]
fn shards_merged_equal_one_unsharded_run() {
    let project = Project::new();
    let path = |name: &str| project.root.join(name).to_str().unwrap().to_string();
    let manifest = path("fuzz-targets/Cargo.toml");
    let uncached = |args: &[&str]| {
        project.run(
            &[
                &["--manifest-path", manifest.as_str(), "--no-cache"][..],
                args,
            ]
            .concat(),
        )
    };
    uncached(&["--report", &path("all.json")]).expect_code(11);
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let report = path(&format!("shard{k}.json"));
        let run = uncached(&["--shard", &shard, "--report", &report]);
        assert!([0, 11].contains(&run.code()), "{}", run.stderr());
    }
    let merged = path("merged.json");
    let mut args = vec!["merge".to_string()];
    args.extend((1..=3).map(|k| path(&format!("shard{k}.json"))));
    args.extend(["--report".to_string(), merged.clone()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = project.run(&args);
    run.expect_code(11);
    for report in [
        "all.json",
        "shard1.json",
        "shard2.json",
        "shard3.json",
        "merged.json",
    ] {
        crate::schema::check_report(Path::new(&path(report)));
    }
    let all = comparable(Path::new(&path("all.json")));
    assert_eq!(comparable(Path::new(&merged)), all);
    assert_eq!(all["failures"].as_array().unwrap().len() as u64, FAILURES);
    let shard_inputs: usize = (1..=3)
        .map(|k| {
            comparable(Path::new(&path(&format!("shard{k}.json"))))["inputs"]
                .as_array()
                .unwrap()
                .len()
        })
        .sum();
    assert_eq!(
        shard_inputs,
        all["inputs"].as_array().unwrap().len(),
        "each input in one shard"
    );
}

#[test]
fn emitted_tests_replay_each_ledger_input_under_cargo_test() {
    let project = Project::new().filed();
    let app = project.root.join("app");
    fs::create_dir_all(app.join("src")).unwrap();
    fs::write(
        app.join("Cargo.toml"),
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .unwrap();
    fs::write(app.join("src/lib.rs"), "").unwrap();
    let tests = app.join("tests/fuzz_regressions.rs");
    project
        .ci(&["--emit-tests", "app/tests/fuzz_regressions.rs"])
        .expect_code(0);
    let emitted = fs::read(&tests).unwrap();
    project
        .ci(&["--emit-tests", "app/tests/fuzz_regressions.rs"])
        .expect_code(0);
    assert_eq!(
        fs::read(&tests).unwrap(),
        emitted,
        "rewritten only on change"
    );

    let cargo_test = || {
        let bin_dir = Path::new(env!("CARGO_BIN_EXE_cargo-reduce"))
            .parent()
            .unwrap();
        let path = std::env::join_paths(
            std::iter::once(bin_dir.to_path_buf())
                .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
        )
        .unwrap();
        let out = std::process::Command::new(env!("CARGO"))
            .args(["test", "--manifest-path"])
            .arg(app.join("Cargo.toml"))
            .env("PATH", path)
            .env("CARGO_TARGET_DIR", target_dir())
            .output()
            .unwrap();
        Run(out)
    };
    let run = cargo_test();
    run.expect_code(0);
    for (target, _) in LEDGER {
        assert!(
            run.stdout().contains(&format!("test {target}_")),
            "{target}: {}",
            run.stdout()
        );
    }
    assert!(
        run.stdout().contains("test result: ok. 9 passed"),
        "{}",
        run.stdout()
    );

    // A fixed bug fails its test, by name, and says what to do.
    let source = project.fuzz.join("fuzz_targets/two_panics.rs");
    let text = fs::read_to_string(&source).unwrap();
    fs::write(
        &source,
        text.replace("panic!(\"bug A: authenticated XYZ request\");", "return 0;"),
    )
    .unwrap();
    let run = cargo_test();
    run.expect_code(101);
    assert!(
        run.stdout().contains("8 passed; 1 failed"),
        "{}",
        run.stdout()
    );
    assert!(run.stdout().contains("no longer fails"), "{}", run.stdout());
}

#[test]
fn what_the_budget_cuts_short_is_filed_not_minimal_and_finished_later() {
    let project = Project::new();
    let target = ["--fuzz-target", "stack_overflow", "--update"];
    let cut = project.ci(&[&target[..], &["--budget", "0.05s"]].concat());
    cut.expect_code(11);
    assert!(
        cut.stdout()
            .contains("1 minimization(s) not finished (--budget"),
        "{}",
        cut.stdout()
    );
    let sidecar = |input: &Path| -> serde_json::Value {
        serde_json::from_slice(&fs::read(format!("{}.json", input.display())).unwrap()).unwrap()
    };
    let partial = project.ledger("stack_overflow");
    assert_eq!(partial.len(), 1);
    assert_eq!(
        sidecar(&partial[0])["minimal"],
        false,
        "cut short by the budget"
    );

    let finished = project.ci(&[&target[..], &["--message-format", "json"]].concat());
    finished.expect_code(0);
    let messages = finished.messages();
    let last = messages.last().unwrap();
    assert_eq!(last["known"], 1, "{last}");
    let failure = messages
        .iter()
        .find(|m| m["reason"] == "ci-failure")
        .unwrap();
    let entries = project.ledger("stack_overflow");
    assert_eq!(entries.len(), 1, "the entry is replaced, not doubled");
    assert_eq!(sidecar(&entries[0])["minimal"], true);
    match failure["replaced"].as_str() {
        Some(replaced) => assert!(partial[0].ends_with(replaced), "{replaced}"),
        // The budget ran out after the last shrink (in the final check): the
        // same input, now filed minimal in its place.
        None => assert_eq!(entries[0], partial[0], "{failure}"),
    }
    assert!(
        fs::metadata(&entries[0]).unwrap().len()
            <= fs::metadata(&partial[0]).map_or(u64::MAX, |m| m.len())
    );
    assert!(!partial[0].exists() || partial[0] == entries[0]);
}

#[test]
fn clusterfuzz_testcases_and_the_corpus_are_replayed_too() {
    let project = Project::new();
    fs::create_dir_all(project.fuzz.join("oss-fuzz")).unwrap();
    fs::write(
        project
            .fuzz
            .join("oss-fuzz/clusterfuzz-testcase-minimized-two_panics-5712345"),
        "ABXYZ",
    )
    .unwrap();
    let corpus = project.fuzz.join("corpus/two_panics");
    fs::create_dir_all(&corpus).unwrap();
    fs::write(corpus.join("passing"), "hello").unwrap();
    let report = project.root.join("report.json");
    let args = [
        "--fuzz-target",
        "two_panics",
        "--corpus",
        "--report",
        report.to_str().unwrap(),
    ];
    project.ci(&args).expect_code(11);
    let report: serde_json::Value = serde_json::from_slice(&fs::read(&report).unwrap()).unwrap();
    let inputs = report["inputs"].as_array().unwrap();
    let by_source = |source: &str| inputs.iter().find(|i| i["source"] == source).unwrap();
    let (artifact, testcase) = (by_source("artifact"), by_source("clusterfuzz"));
    assert_eq!(
        testcase["failure_id"], artifact["failure_id"],
        "one failure, two inputs"
    );
    assert!(by_source("corpus")["failure_id"].is_null());
    assert_eq!(failure_of(&report, &artifact["failure_id"])["inputs"], 2);
}

/// `--coverage` after the run: the lines of the corpus and of the ledger
/// the run just filed, the ledger's crash counting none of them.
#[test]
fn coverage_reports_the_corpus_and_the_ledger_it_filed() {
    let project = Project::new();
    let corpus = project.fuzz.join("corpus/two_panics");
    fs::create_dir_all(&corpus).unwrap();
    fs::write(corpus.join("passing"), "hello").unwrap();
    let out = project.root.join("cov");
    let args = [
        "--fuzz-target",
        "two_panics",
        "--corpus",
        "--update",
        "--coverage",
        out.to_str().unwrap(),
        "--message-format",
        "json",
    ];
    let run = project.ci(&args);
    run.expect_code(11);
    crate::schema::check_messages(&run);
    assert_eq!(
        project.ledger("two_panics").len(),
        2,
        "filed before (bug A and the bug B its minimization ran into)"
    );
    let messages = run.messages();
    let report = messages
        .iter()
        .find(|m| m["reason"] == "coverage-report" && m["target"] == "two_panics")
        .expect("a report of two_panics");
    assert_eq!(
        (report["inputs"].as_u64(), report["failing"].as_u64()),
        (Some(3), Some(2)),
        "the corpus input and the ledger's two: {report}"
    );
    assert!(report["lines_covered"].as_u64() > Some(0), "{report}");
    let lcov = fs::read_to_string(out.join("two_panics/lcov.info")).unwrap();
    assert!(lcov.contains("fuzz_targets/two_panics.rs"), "{lcov}");
}

/// `--corpus ROOT` takes the corpora from `ROOT/<target>/`, as `cargo fuzz`
/// lays them out; a target's own folder given as the root is refused,
/// rather than replaying nothing.
#[test]
fn a_corpus_root_elsewhere_is_replayed_and_a_targets_own_folder_refused() {
    let project = Project::new();
    let root = project.root.join("saved-corpus");
    fs::create_dir_all(root.join("two_panics")).unwrap();
    fs::write(root.join("two_panics/passing"), "hello").unwrap();
    let report = project.root.join("report.json");
    let root_arg = root.to_str().unwrap();
    let args = ["--fuzz-target", "two_panics", "--corpus", root_arg];
    let with_report = [&args[..], &["--report", report.to_str().unwrap()]].concat();
    project.ci(&with_report).expect_code(11);
    let report: serde_json::Value = serde_json::from_slice(&fs::read(&report).unwrap()).unwrap();
    let corpus: Vec<&serde_json::Value> = report["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["source"] == "corpus")
        .collect();
    assert_eq!(corpus.len(), 1, "{report}");
    let own = root.join("two_panics");
    let refused = project.ci(&["--corpus", own.to_str().unwrap()]);
    refused.expect_code(3);
    assert!(
        refused
            .stderr()
            .contains("has no folder named after a fuzz target"),
        "{}",
        refused.stderr()
    );
}

/// OSS-Fuzz testcases kept in a folder of the corpus are replayed and
/// named by their nested path; hidden files, a symlink loop and a dangling
/// symlink are no inputs.
#[test]
fn nested_corpus_folders_are_replayed_and_named_by_their_path() {
    use std::os::unix::fs::symlink;
    let project = Project::new();
    let corpus = project.fuzz.join("corpus/two_panics");
    let nested = corpus.join("regressions");
    fs::create_dir_all(&nested).unwrap();
    fs::create_dir_all(corpus.join(".hidden")).unwrap();
    fs::write(corpus.join("passing"), "hello").unwrap();
    fs::write(nested.join("crash-nested"), "ABXYZ").unwrap();
    fs::write(corpus.join(".hidden/crash-hidden"), "XYZ").unwrap();
    fs::write(corpus.join(".crash-hidden"), "XYZ").unwrap();
    symlink("..", nested.join("loop")).unwrap();
    symlink("gone", nested.join("dangling")).unwrap();
    let report = project.root.join("report.json");
    let args = [
        "--fuzz-target",
        "two_panics",
        "--corpus",
        "--report",
        report.to_str().unwrap(),
    ];
    project.ci(&args).expect_code(11);
    let report: serde_json::Value = serde_json::from_slice(&fs::read(&report).unwrap()).unwrap();
    let inputs = report["inputs"].as_array().unwrap();
    let corpus_paths: Vec<&str> = inputs
        .iter()
        .filter(|i| i["source"] == "corpus")
        .map(|i| i["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        corpus_paths,
        [
            "fuzz-targets/corpus/two_panics/passing",
            "fuzz-targets/corpus/two_panics/regressions/crash-nested"
        ],
        "{inputs:?}"
    );
    let id = |path: &str| {
        inputs
            .iter()
            .find(|i| i["path"].as_str().unwrap().ends_with(path))
            .map(|i| i["failure_id"].clone())
            .unwrap()
    };
    let artifact = inputs.iter().find(|i| i["source"] == "artifact").unwrap();
    assert_eq!(id("regressions/crash-nested"), artifact["failure_id"]);
    assert_eq!(
        failure_of(&report, &artifact["failure_id"])["inputs"],
        2,
        "the artifact and the nested testcase"
    );
}

/// Fixing the first of two panics of one function moves the second up:
/// the moved one is still its own entry's failure (its entry's input fails
/// so), and the fixed entry is the first's, whichever entry the ledger
/// lists first (the two differ only by line and message). Helper-38 on
/// gimli: the moved panic took the fixed bug's entry, the still failing
/// one was reported FIXED and --prune-fixed put it aside.
#[test]
fn fixing_one_of_two_panics_of_a_function_fixes_its_own_entry() {
    let project = Project::new().filed();
    // Bug A's entry listed first, as it may be by its id: a name of the
    // user's choosing (entries are read by their sidecars).
    let entries = project.ledger("two_panics");
    let entry_a = entries
        .iter()
        .find(|entry| fs::read(entry).unwrap() == b"ABXYZ")
        .unwrap();
    let first = entry_a.with_file_name("0-bug-a");
    fs::rename(entry_a, &first).unwrap();
    fs::rename(
        format!("{}.json", entry_a.display()),
        format!("{}.json", first.display()),
    )
    .unwrap();
    let source = project.fuzz.join("fuzz_targets/two_panics.rs");
    let text = fs::read_to_string(&source).unwrap();
    let bug_a = "        if body.first() == Some(&b'X') && body.get(1) == Some(&b'Y') && body.get(2) == Some(&b'Z') {
            panic!(\"bug A: authenticated XYZ request\");
        }
";
    assert!(text.contains(bug_a));
    fs::write(&source, text.replace(bug_a, "")).unwrap();
    let messages = project.ci(&["--message-format", "json"]).messages();
    let fixed: Vec<&serde_json::Value> = messages
        .iter()
        .filter(|m| m["reason"] == "ci-fixed")
        .collect();
    assert_eq!(fixed.len(), 1, "{messages:?}");
    let entry = fixed[0]["ledger"].as_str().unwrap();
    let entry = project.root.join(entry);
    assert_eq!(
        fs::read(&entry).unwrap(),
        b"ABXYZ",
        "bug A's entry is fixed"
    );
    let bug_b = messages
        .iter()
        .find(|m| m["reason"] == "ci-failure" && m["target"] == "two_panics")
        .expect("bug B still fails");
    assert_eq!(bug_b["status"], "known", "{bug_b}");
    let ledger = project.root.join(bug_b["ledger"].as_str().unwrap());
    assert_eq!(fs::read(ledger).unwrap(), b"XYZ", "bug B's own entry");
    // --prune-fixed says what it moved.
    let pruned = project.ci(&["--prune-fixed"]);
    let id = fixed[0]["id"].as_str().unwrap();
    assert!(
        pruned.stdout().contains(&format!("moved fixed {id} from ")),
        "{}",
        pruned.stdout()
    );
    assert!(!first.exists(), "moved to fixed/");
    assert_eq!(project.ledger("two_panics").len(), 1);
}

#[test]
fn a_known_failure_whose_panic_moved_stays_known() {
    let project = Project::new().filed();
    let before = project.ledger("two_panics");
    let source = project.fuzz.join("fuzz_targets/two_panics.rs");
    let text = fs::read_to_string(&source).unwrap();
    fs::write(
        &source,
        format!("// A line that moves every panic down.\n{text}"),
    )
    .unwrap();
    let run = project.ci(&["--message-format", "json"]);
    run.expect_code(0);
    let last = finished(&run);
    assert_eq!(
        (
            last["new"].as_u64(),
            last["known"].as_u64(),
            last["fixed"].as_u64()
        ),
        (Some(0), Some(FAILURES), Some(0)),
        "{last}"
    );
    // The table's ids are the failures' now; a line names each one's entry
    // (helper-49: KNOWN rows under ids the ledger has no file of).
    let human = project.ci(&[]);
    let moved = human
        .stdout()
        .lines()
        .filter(|l| l.contains(", filed under its id before the failure moved"))
        .count();
    assert_eq!(moved, before.len(), "two_panics' two: {}", human.stdout());
    // A known failure's minimized input is its entry's.
    for failure in run
        .messages()
        .iter()
        .filter(|m| m["reason"] == "ci-failure")
    {
        assert_eq!(failure["reduced"]["minimal"], true, "{failure}");
    }
    let sidecar_of = |entry: &PathBuf| -> serde_json::Value {
        serde_json::from_slice(&fs::read(format!("{}.json", entry.display())).unwrap()).unwrap()
    };
    let bug_a_of = |entries: &[PathBuf]| {
        entries
            .iter()
            .find(|entry| fs::read(entry).unwrap() == b"ABXYZ")
            .expect("bug A's entry")
            .clone()
    };
    let original = sidecar_of(&bug_a_of(&before))["original"].clone();
    // With --update the entries are filed again under their new ids, and
    // each line says which entry it replaced.
    let update = project.ci(&["--update"]);
    update.expect_code(0);
    let after = project.ledger("two_panics");
    assert_eq!(after.len(), 2);
    assert!(
        after.iter().all(|entry| !before.contains(entry)),
        "new ids, new names"
    );
    for old in &before {
        let name = old.file_name().unwrap().to_str().unwrap();
        assert!(
            update
                .stdout()
                .lines()
                .any(|l| l.contains(" again as ") && l.ends_with(name)),
            "{}",
            update.stdout()
        );
    }
    let sidecar = sidecar_of(&bug_a_of(&after));
    assert!(
        sidecar["location"]
            .as_str()
            .unwrap()
            .ends_with("two_panics.rs:35:13"),
        "{sidecar}"
    );
    assert_eq!(sidecar["original"], original, "it came from the same input");
    project.ci(&["--update"]).expect_code(0);
    assert!(!project.ci(&[]).stdout().contains(" again as "));

    // `ci replay` of ledger entries: their folder names their target.
    let manifest = project.fuzz.join("Cargo.toml");
    let manifest = manifest.to_str().unwrap();
    let entry = after[0].to_str().unwrap();
    let replay = project.run(&["replay", "--manifest-path", manifest, entry]);
    replay.expect_code(11);
    assert!(replay.stdout().starts_with("FAILED"), "{}", replay.stdout());
    let other = project.ledger("abort");
    let other = other[0].to_str().unwrap();
    project
        .run(&["replay", "--manifest-path", manifest, entry, other])
        .expect_error(
            2,
            "are inputs of different fuzz targets (`two_panics` and `abort`)",
        );
}

/// Ctrl-C during the minimizations: the run ends with 130, and what they
/// reached is filed as not minimal, to be finished by the next run.
#[test]
fn ctrl_c_files_what_the_minimization_reached() {
    use crate::faults::{Sig, To, Watched};
    use std::time::Duration;
    let project = Project::new();
    let manifest = project.fuzz.join("Cargo.toml");
    let args = [
        "reduce",
        "ci",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--fuzz-target",
        "stack_overflow",
        "--update",
        "--no-cache",
        "--message-format",
        "json",
    ];
    let mut command = command(&args, &target_dir());
    command.current_dir(&project.root);
    let watched = Watched::spawn(command);
    let started = watched
        .wait_line(
            |l| l.contains("\"reason\":\"reduction-started\""),
            Duration::from_secs(300),
        )
        .expect("the minimization starts");
    // At once: a fast machine may finish the minimization within any delay.
    watched.signal(Sig::Int, To::Process);
    let ended = watched.finish(started, Duration::from_secs(120), &"ci ctrl-c");
    assert_eq!(ended.code(), Some(130), "{}", ended.show());
    let filed = project.ledger("stack_overflow");
    assert_eq!(filed.len(), 1, "{}", ended.show());
    let sidecar: serde_json::Value =
        serde_json::from_slice(&fs::read(format!("{}.json", filed[0].display())).unwrap()).unwrap();
    // The signal stopped the search (not minimal), or came after its last
    // shrink, in the final check: the entry says which.
    let stopped = ended
        .messages()
        .iter()
        .any(|m| m["reason"] == "reduction-stopped");
    assert_eq!(sidecar["minimal"], !stopped, "{sidecar}{}", ended.show());
    let last = ended.messages().pop().unwrap();
    assert_eq!(last["reason"], "ci-finished");
    assert_eq!(
        last["exit"], 130,
        "the message says the exit status: {last}"
    );
}

/// A minimization that cannot run (here the replay cache says an input
/// fails that no longer does) says why, and the failure is filed
/// unreduced rather than silently.
#[test]
fn a_minimization_that_cannot_run_says_why() {
    let project = Project::new();
    let artifacts = project.fuzz.join("artifacts/two_panics");
    fs::write(artifacts.join("crash-stale"), b"passes").unwrap();
    let target = ["--fuzz-target", "two_panics", "--message-format", "json"];
    let first = project.ci(&target);
    first.expect_code(11);
    // The cache says the passing input fails.
    let hash = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(b"passes"));
    let replay = project.root.join("ci-cache/replay");
    for entry in fs::read_dir(&replay).unwrap() {
        let path = entry.unwrap().path();
        let mut outcomes: serde_json::Value =
            serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
        if outcomes.get(&hash).is_some() {
            outcomes[&hash] = serde_json::json!({
                "kind": "panic",
                "message": "stale",
                "location": "fuzz_targets/two_panics.rs:1:1",
                "call_path": []
            });
            fs::write(&path, serde_json::to_vec(&outcomes).unwrap()).unwrap();
        }
    }
    let second = project.ci(&target);
    second.expect_code(11);
    let warning = second
        .messages()
        .into_iter()
        .find(|m| m["reason"] == "warning")
        .unwrap_or_else(|| panic!("{}", second.stdout()));
    let text = warning["message"].as_str().unwrap();
    assert!(
        text.contains("was not minimized") && text.contains("crash-stale"),
        "{text}"
    );
}
