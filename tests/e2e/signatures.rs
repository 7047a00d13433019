//! Failure signatures in fuzz mode: the default match compares the call
//! path, not the message, on the `two_callers` demo target (one helper,
//! reached from `timeout` and from `port`, panics quoting its input); and
//! signals, aborts and timeouts are told apart by where they happened
//! (`tests-fixtures/signatures`).

use std::fs;
use std::path::{Path, PathBuf};

use crate::fuzz_fixture::{cargo_reduce, command, copy_tree, fresh_copy, minimized_path, repo};
use crate::util::Run;

/// Writes the two inputs: bug A (through `timeout`) and bug B (through
/// `port`), each quoting letters the message would keep.
fn plant(fuzz: &Path) -> (PathBuf, PathBuf) {
    let dir = fuzz.join("artifacts/two_callers");
    fs::create_dir_all(&dir).unwrap();
    let (a, b) = (dir.join("crash-a"), dir.join("crash-b"));
    fs::write(&a, "!abc").unwrap();
    fs::write(&b, "xyz").unwrap();
    (a, b)
}

fn reduce(fuzz: &Path, extra: &[&str]) -> Vec<serde_json::Value> {
    let mut args = vec![
        "reduce",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        "--target",
        "two_callers",
        "--message-format",
        "json",
        "--force",
    ];
    args.extend(extra);
    let run = cargo_reduce(&args);
    run.expect_code(0);
    run.messages()
}

fn grouped(messages: &[serde_json::Value]) -> (u64, u64) {
    let m = messages
        .iter()
        .find(|m| m["reason"] == "failures-grouped")
        .expect("failures-grouped");
    (
        m["inputs"].as_u64().unwrap(),
        m["failures"].as_u64().unwrap(),
    )
}

#[test]
fn a_quoting_message_shrinks_fully_and_two_callers_stay_apart() {
    let (_dir, fuzz) = fresh_copy();
    let (a, b) = plant(&fuzz);

    let messages = reduce(&fuzz, &[]);
    assert_eq!(grouped(&messages), (2, 2), "two callers, two failures");
    assert_eq!(
        fs::read(minimized_path(&a)).unwrap(),
        b"!",
        "bug A, fully shrunk"
    );
    assert_eq!(
        fs::read(minimized_path(&b)).unwrap(),
        b"\0",
        "bug B, fully shrunk"
    );
    let finished: Vec<_> = messages
        .iter()
        .filter(|m| m["reason"] == "reduction-finished")
        .collect();
    let path_of = |name: &str| {
        let m = finished
            .iter()
            .find(|m| m["input"].as_str().unwrap().ends_with(name))
            .unwrap();
        (
            m["failure"].as_str().unwrap().to_string(),
            m["failure_id"].as_str().unwrap().to_string(),
        )
    };
    let (failure_a, id_a) = path_of("crash-a");
    let (failure_b, id_b) = path_of("crash-b");
    assert!(
        failure_a.ends_with(
            "(in two_callers::number ← two_callers::timeout ← two_callers::settings::{{closure}})"
        ),
        "{failure_a}"
    );
    assert!(
        failure_b.contains("two_callers::number ← two_callers::port"),
        "{failure_b}"
    );
    assert!(failure_a.contains("two_callers.rs:23:19: expected a number, found \"abc\""));
    assert_eq!(id_a.len(), 8);
    assert_ne!(id_a, id_b);
    let reproduced: Vec<_> = messages
        .iter()
        .filter(|m| m["reason"] == "artifact-reproduced")
        .map(|m| m["failure_id"].as_str().unwrap())
        .collect();
    assert!(reproduced.contains(&id_a.as_str()), "{reproduced:?}");

    // Comparing messages keeps the quoted letters: nothing shrinks.
    reduce(&fuzz, &["--match", "message"]);
    assert_eq!(fs::read(minimized_path(&a)).unwrap(), b"!abc");
    // Comparing locations alone merges the two bugs.
    let messages = reduce(&fuzz, &["--match", "location"]);
    assert_eq!(grouped(&messages), (2, 1));
    assert!(messages.iter().any(|m| m["reason"] == "artifact-duplicate"));
}

/// The six bugs of `tests-fixtures/signatures`: per artifact, its 1-minimal
/// input and the start of its failure. Each first one's input holds its
/// twin's, so matching kinds alone slips from one to the other.
const SIX_BUGS: [(&str, &[u8], &str); 6] = [
    (
        "crash-segv-store",
        b"SEGV",
        "signal SIGSEGV at fuzz_targets/six_bugs.rs:14:",
    ),
    (
        "crash-segv-load",
        b"SV",
        "signal SIGSEGV at fuzz_targets/six_bugs.rs:20:",
    ),
    (
        "crash-abort-header",
        b"ABORT",
        "signal SIGABRT at fuzz_targets/six_bugs.rs:27:",
    ),
    (
        "crash-abort-reserve",
        b"AT",
        "signal SIGABRT at fuzz_targets/six_bugs.rs:36:",
    ),
    (
        "timeout-loop-padding",
        b"LOOP",
        "timeout at six_bugs::skip_padding (in six_bugs::skip_padding ← ",
    ),
    (
        "timeout-loop-ready",
        b"LP",
        "timeout at six_bugs::wait_ready (in six_bugs::wait_ready ← ",
    ),
];

/// A fresh copy of `tests-fixtures/signatures` and its build directory.
fn six_bugs() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let fuzz = dir.path().join("signatures");
    copy_tree(
        &repo().join("cargo-reduce/tests-fixtures/signatures"),
        &fuzz,
    );
    let build = Path::new(env!("CARGO_TARGET_TMPDIR")).join("signatures-build");
    (dir, fuzz, build)
}

fn run_six(fuzz: &Path, build: &Path, args: &[&str]) -> Vec<serde_json::Value> {
    let manifest = fuzz.join("Cargo.toml");
    let common = [
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--message-format",
        "json",
    ];
    let run = Run(command(&[args, &common].concat(), build).output().unwrap());
    run.expect_code(if args.contains(&"ci") { 11 } else { 0 });
    run.messages()
}

/// Two segfaults, two aborts and two endless loops in one target: each
/// reduces to its own 1-minimal input, never to its twin's, and each is a
/// failure of its own (by kind alone they were three).
#[test]
fn two_segfaults_aborts_and_loops_in_one_target_stay_six_failures() {
    let (_dir, fuzz, build) = six_bugs();
    let artifacts = fuzz.join("artifacts/six_bugs");
    let messages = run_six(&fuzz, &build, &["reduce", "-j2"]);
    assert_eq!(grouped(&messages), (6, 6));
    let mut ids = Vec::new();
    for (name, minimal, failure) in SIX_BUGS {
        let m = messages
            .iter()
            .find(|m| {
                m["reason"] == "reduction-finished" && m["input"].as_str().unwrap().ends_with(name)
            })
            .unwrap_or_else(|| panic!("{name}: {messages:?}"));
        let shown = m["failure"].as_str().unwrap();
        assert!(shown.starts_with(failure), "{name}: {shown}");
        assert_eq!(m["minimal"], true, "{name}");
        let output = fs::read(minimized_path(&artifacts.join(name))).unwrap();
        assert_eq!(
            output,
            minimal,
            "{name}: {}",
            String::from_utf8_lossy(&output)
        );
        ids.push(m["failure_id"].as_str().unwrap().to_string());
    }
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 6, "{ids:?}");

    // By kind alone, the twins are one failure each.
    let by_kind = run_six(&fuzz, &build, &["reduce", "--force", "--match", "kind"]);
    assert_eq!(grouped(&by_kind), (6, 3));

    // `ci` files six failures, one ledger entry each.
    let cache = fuzz.join("ci-cache");
    let ci = run_six(
        &fuzz,
        &build,
        &[
            "reduce",
            "ci",
            "--update",
            "--cache-dir",
            cache.to_str().unwrap(),
        ],
    );
    let last = ci.last().unwrap();
    assert_eq!(
        (last["new"].as_u64(), last["known"].as_u64()),
        (Some(6), Some(0)),
        "{last}"
    );
    let ledger = fs::read_dir(fuzz.join("regressions/six_bugs")).unwrap();
    let inputs = ledger
        .filter(|e| e.as_ref().unwrap().path().extension().is_none())
        .count();
    assert_eq!(inputs, 6);
}
