//! `cargo reduce` on the bundled afl.rs crate (`fuzz-targets-afl/`) and the
//! real AFL++ output of its campaigns (`corpus/afl/out/`): every crash and
//! hang found by content, reproduced and reduced in-process through the
//! afl stand-in, the failure kept, the results written beside the crate,
//! AFL's files and the lock left as they were.

use std::collections::HashMap;
use std::fs;
use std::path::PathBuf;

use crate::fuzz_fixture::{
    cargo_reduce, copy_tree, reduces_nothing, repo, snapshot, written_files,
};
use crate::recycled::RecycledDir;

/// A copy of the crate with the AFL output inside it (`out/`), where
/// discovery finds it.
fn copy() -> (RecycledDir, PathBuf) {
    let dir = RecycledDir::new("afl-mode");
    let crate_dir = dir.path().join("fuzz-targets-afl");
    copy_tree(&repo().join("fuzz-targets-afl"), &crate_dir);
    // Results of earlier runs in the repository are not the test's.
    let _ = fs::remove_dir_all(crate_dir.join("artifacts"));
    copy_tree(&repo().join("corpus/afl/out"), &crate_dir.join("out"));
    (dir, crate_dir)
}

/// Per target: a piece of every result's failure, and the exact result
/// (None: only its failure is checked). AFL found both of two_panics' bugs
/// (each input keeps its own).
fn expected(target: &str, failure: &str) -> (&'static str, Option<&'static [u8]>) {
    match target {
        "abort" => ("signal SIGABRT", Some(b"ZAP")),
        "byte_parser" => (
            "panic at src/bin/byte_parser.rs:31:26: range end index _ out of range for slice of length _",
            Some(b"RX\x0100"),
        ),
        "endless_loop" => ("timeout", Some(b"LP\x00")),
        "huge_alloc" => ("out of memory", None),
        "nohook" => ("panic at src/bin/nohook.rs:22:13: escaped config line", Some(b"ESC")),
        "stack_overflow" => ("stack overflow", None),
        "two_panics" if failure.contains("bug A") => (
            "panic at src/bin/two_panics.rs:29:13: bug A: authenticated XYZ request",
            Some(b"ABXYZ"),
        ),
        "two_panics" => (
            "panic at src/bin/two_panics.rs:32:9: bug B: unauthenticated XYZ request",
            Some(b"XYZ"),
        ),
        "typed_arbitrary" => (
            "panic at src/bin/typed_arbitrary.rs:41:21: unsaturated scale by _ overflows the register",
            Some(b"\0\0\x9a\x99\x99\x99\xc9"),
        ),
        other => panic!("unexpected target {other}"),
    }
}

const TARGETS: [&str; 8] = [
    "abort",
    "byte_parser",
    "endless_loop",
    "huge_alloc",
    "nohook",
    "stack_overflow",
    "two_panics",
    "typed_arbitrary",
];

#[test]
fn every_afl_crash_and_hang_is_reduced_in_process_and_keeps_its_failure() {
    let (_dir, crate_dir) = copy();
    let out = crate_dir.join("out");
    let afl_before = snapshot(&out);
    let lock = fs::read(crate_dir.join("Cargo.lock")).unwrap();
    let args = [
        "reduce",
        "--manifest-path",
        crate_dir.to_str().unwrap(),
        "--all",
        "--message-format",
        "json",
    ];
    let run = cargo_reduce(&args);
    run.expect_code(0);
    crate::schema::check_messages(&run);
    let messages = run.messages();
    let reproduced: HashMap<&str, &str> = messages
        .iter()
        .filter(|m| m["reason"] == "artifact-reproduced")
        .map(|m| (m["path"].as_str().unwrap(), m["failure"].as_str().unwrap()))
        .collect();
    let finished: Vec<&serde_json::Value> = messages
        .iter()
        .filter(|m| m["reason"] == "reduction-finished")
        .collect();
    assert_eq!(crate::util::check_progress(&messages), finished.len());
    let mut seen: Vec<&str> = Vec::new();
    for m in &finished {
        let target = m["target"].as_str().unwrap();
        // No slip: the result fails as its input did.
        assert_eq!(
            m["failure"].as_str().unwrap(),
            reproduced[m["input"].as_str().unwrap()],
            "{m}"
        );
        let (failure, bytes) = expected(target, m["failure"].as_str().unwrap());
        let output = PathBuf::from(m["output"].as_str().unwrap());
        let name = output.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            output.starts_with(crate_dir.join("artifacts").join(target))
                && name.starts_with("minimized-from-afl-")
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c)),
            "{name}"
        );
        assert!(m["input"].as_str().unwrap().contains("/out/"), "{m}");
        assert!(
            m["failure"].as_str().unwrap().contains(failure),
            "{target}: {m}"
        );
        assert_eq!(m["minimal"], true, "{target}");
        if let Some(bytes) = bytes {
            let reduced = fs::read(&output).unwrap();
            assert_eq!(
                reduced,
                bytes,
                "{target}: {:?}",
                String::from_utf8_lossy(&reduced)
            );
        }
        seen.push(target);
    }
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen, TARGETS, "a result for every target: {}", run.stdout());
    assert!(
        finished
            .iter()
            .any(|m| m["output"].as_str().unwrap().contains("afl-second-id_")),
        "the -S instance's crashes too"
    );
    assert!(
        finished
            .iter()
            .any(|m| m["input"].as_str().unwrap().contains("/crashes.20")),
        "the resumed run's crashes too"
    );
    let typed = finished
        .iter()
        .find(|m| m["target"] == "typed_arbitrary")
        .unwrap();
    assert!(
        typed["debug"].as_str().unwrap().contains("factor: 201"),
        "{}",
        typed["debug"]
    );
    // Reduced under the campaign's `-m 512`: under the default 2 GB a size
    // of 2048 MiB or less would not fail, so some result would be larger.
    let sizes: Vec<u16> = finished
        .iter()
        .filter(|m| m["target"] == "huge_alloc")
        .map(|m| fs::read(m["output"].as_str().unwrap()).unwrap())
        .map(|r| {
            assert!(r.len() == 4 && r.starts_with(b"HA"), "{r:?}");
            u16::from_le_bytes([r[2], r[3]])
        })
        .collect();
    assert!(sizes.iter().all(|&s| s > 512), "{sizes:?}");
    assert!(sizes.iter().any(|&s| s <= 2048), "{sizes:?}");
    let list = cargo_reduce(&[
        "list",
        "--manifest-path",
        crate_dir.to_str().unwrap(),
        "--message-format",
        "json",
    ]);
    list.expect_code(0);
    crate::schema::check_messages(&list);
    let instance = list
        .messages()
        .into_iter()
        .find(|m| m["reason"] == "afl-instance" && m["target"] == "huge_alloc")
        .unwrap();
    assert_eq!(instance["mem_limit_mb"], 512, "{instance}");
    assert_eq!(snapshot(&out), afl_before, "AFL's output is untouched");
    assert_eq!(fs::read(crate_dir.join("Cargo.lock")).unwrap(), lock);

    // Idempotent: a second run finds every result and reduces nothing.
    reduces_nothing(&args);
}

/// Without `--all`, the 25 inputs group into the 9 bugs they hit (two
/// for two_panics, whose two instances found both): each is reduced once,
/// from its smallest input, and the others are reported as its
/// duplicates; a second run reduces nothing.
#[test]
fn afl_inputs_are_grouped_by_failure_and_each_failure_reduced_once() {
    let (_dir, crate_dir) = copy();
    let args = [
        "reduce",
        "--manifest-path",
        crate_dir.to_str().unwrap(),
        "--message-format",
        "json",
    ];
    let run = cargo_reduce(&args);
    run.expect_code(0);
    let messages = run.messages();
    let grouped: Vec<_> = messages
        .iter()
        .filter(|m| m["reason"] == "failures-grouped")
        .collect();
    assert_eq!(grouped.len(), 1, "{}", run.stdout());
    assert_eq!(
        (
            grouped[0]["inputs"].as_u64(),
            grouped[0]["failures"].as_u64()
        ),
        (Some(25), Some(9))
    );
    let finished: Vec<&serde_json::Value> = messages
        .iter()
        .filter(|m| m["reason"] == "reduction-finished")
        .collect();
    let mut failures: Vec<(&str, &str)> = finished
        .iter()
        .map(|m| {
            (
                m["target"].as_str().unwrap(),
                m["failure"].as_str().unwrap(),
            )
        })
        .collect();
    failures.sort_unstable();
    failures.dedup();
    assert_eq!(failures.len(), 9, "one reduction per failure: {failures:?}");
    assert_eq!(finished.len(), 9);
    let two_panics: Vec<_> = failures
        .iter()
        .filter(|(t, _)| *t == "two_panics")
        .collect();
    assert_eq!(two_panics.len(), 2, "bug A and bug B stay apart");
    let duplicates: Vec<_> = messages
        .iter()
        .filter(|m| m["reason"] == "artifact-duplicate")
        .collect();
    assert_eq!(duplicates.len(), 16);
    for d in &duplicates {
        // Each names a reduced input of its target that fails alike and
        // is no larger (a stack overflow's may be: the smallest input well
        // past the stack limit is its group's).
        let rep = finished
            .iter()
            .find(|m| m["input"] == d["same_as"])
            .unwrap_or_else(|| panic!("{d}"));
        assert_eq!(
            (rep["target"].clone(), rep["failure"].clone()),
            (d["target"].clone(), d["failure"].clone())
        );
        let size = |p: &serde_json::Value| fs::metadata(p.as_str().unwrap()).unwrap().len();
        let overflow = rep["severity"] == "stack-overflow";
        assert!(overflow || size(&rep["input"]) <= size(&d["path"]), "{d}");
    }
    reduces_nothing(&args);
}

/// A project with a cargo-fuzz crate (`fuzz/`) and an afl.rs crate
/// (`fuzz-afl/`) beside it: one `cargo reduce` finds and reduces both.
#[test]
fn a_project_with_both_engines_is_reduced_in_one_run() {
    let dir = RecycledDir::new("both-engines");
    let root = dir.path().join("app");
    fs::create_dir_all(root.join("src")).unwrap();
    fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .unwrap();
    fs::write(root.join("src/lib.rs"), "").unwrap();
    copy_tree(&repo().join("fuzz-targets"), &root.join("fuzz"));
    for leftover in written_files(&root.join("fuzz/artifacts")) {
        fs::remove_file(leftover).unwrap();
    }
    copy_tree(&repo().join("fuzz-targets-afl"), &root.join("fuzz-afl"));
    let _ = fs::remove_dir_all(root.join("fuzz-afl/artifacts"));
    copy_tree(
        &repo().join("corpus/afl/out/abort"),
        &root.join("fuzz-afl/out/abort"),
    );
    let abort = fs::read_dir(root.join("fuzz/artifacts/abort"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("crash-")
        })
        .unwrap();
    let run = cargo_reduce(&[
        "reduce",
        "--manifest-path",
        root.to_str().unwrap(),
        "--fuzz-target",
        "abort",
        "--message-format",
        "json",
    ]);
    run.expect_code(0);
    let outputs: Vec<String> = run
        .messages()
        .into_iter()
        .filter(|m| m["reason"] == "reduction-finished")
        .map(|m| m["output"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(outputs.len(), 2, "{}", run.stdout());
    let libfuzzer = abort.with_file_name(format!(
        "minimized-from-{}",
        abort.file_name().unwrap().to_string_lossy()
    ));
    assert_eq!(fs::read(libfuzzer).unwrap(), b"ZAP");
    let afl = root.join("fuzz-afl/artifacts/abort/minimized-from-afl-default-id_000000-sig_06");
    assert_eq!(fs::read(afl).unwrap(), b"ZAP");
}

/// `cargo reduce ci` takes AFL++'s crashes and hangs in: 25 inputs of 9
/// failures, each filed once in the ledger, AFL's files untouched.
#[test]
fn ci_groups_afl_crashes_into_their_failures_and_files_each_once() {
    let (dir, crate_dir) = copy();
    let out = snapshot(&crate_dir.join("out"));
    let cache = dir.path().join("ci-cache");
    let run = cargo_reduce(&[
        "reduce",
        "ci",
        "--manifest-path",
        crate_dir.to_str().unwrap(),
        "--cache-dir",
        cache.to_str().unwrap(),
        "--update",
        "--message-format",
        "json",
    ]);
    run.expect_code(11);
    let last = run.messages().pop().unwrap();
    assert_eq!(last["reason"], "ci-finished");
    assert_eq!(
        (last["inputs"].as_u64(), last["new"].as_u64()),
        (Some(25), Some(9)),
        "{last}"
    );
    let mut filed = 0;
    for target in fs::read_dir(crate_dir.join("regressions")).unwrap() {
        for entry in fs::read_dir(target.unwrap().path()).unwrap() {
            let path = entry.unwrap().path();
            filed += usize::from(path.extension().is_none_or(|e| e != "json"));
        }
    }
    assert_eq!(filed, 9, "one ledger entry per failure");
    assert_eq!(
        snapshot(&crate_dir.join("out")),
        out,
        "AFL's files untouched"
    );
}
