//! `--sanitizer` on `cargo-reduce/tests-fixtures/asan-demo`, whose
//! artifacts (written by a real `cargo fuzz run`, ASan) fail only under
//! AddressSanitizer: each reproduces on the ASan build of the stand-in and
//! keeps its bug type, access and line while it shrinks; without a
//! sanitizer the message says one may be needed.

use std::path::{Path, PathBuf};

use crate::fuzz_fixture::{
    cargo_reduce, corpus_inputs, finished, fixture_copy, is_written_by_us, minimized_path, nightly,
};
use crate::util::Run;

/// The artifacts of `target`.
fn artifacts(crate_dir: &Path, target: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(crate_dir.join("artifacts").join(target))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

/// The `reduction-finished` message of a run that reduced one input and
/// succeeded.
fn finished_one(run: &Run) -> serde_json::Value {
    run.expect_code(0);
    let mut finished = finished(run);
    assert_eq!(finished.len(), 1, "{}", run.stderr());
    finished.remove(0)
}

/// `cargo reduce ARTIFACT --sanitizer address` on the crate of `manifest`:
/// its one `reduction-finished` message.
fn reduced_on_asan(artifact: &Path, manifest: &Path) -> serde_json::Value {
    let run = cargo_reduce(&[
        "reduce",
        artifact.to_str().unwrap(),
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--sanitizer",
        "address",
        "--message-format",
        "json",
    ]);
    finished_one(&run)
}

/// What each target's planted bug reads as, and its severity class.
const BUGS: [(&str, &str, &str); 3] = [
    (
        "overflow",
        "heap-buffer-overflow READ 4 at fuzz_targets/overflow.rs:14:",
        "memory-read",
    ),
    (
        "dangling",
        "heap-use-after-free WRITE 1 at fuzz_targets/dangling.rs:41:",
        "memory-write",
    ),
    (
        "cycle",
        "memory-leak at fuzz_targets/cycle.rs:25:",
        "resource",
    ),
];

/// What `reserve`'s artifacts read as on `cargo fuzz`'s binary, by their
/// kind: one line, two bugs (severity `resource`).
const RESERVE: [(&str, &str); 2] = [
    (
        "crash",
        "allocation-size-too-big at fuzz_targets/reserve.rs:18:",
    ),
    ("oom", "out of memory at fuzz_targets/reserve.rs:18:"),
];

/// What the artifact of a `reduction-finished` message `m` reads as, and
/// its severity class.
fn expected_bug(m: &serde_json::Value) -> (&'static str, &'static str) {
    let target = m["target"].as_str().unwrap();
    if let Some((_, bug, severity)) = BUGS.iter().find(|(t, ..)| *t == target) {
        return (bug, severity);
    }
    let input = Path::new(m["input"].as_str().unwrap());
    let name = input.file_name().unwrap().to_str().unwrap();
    let (_, bug) = RESERVE
        .iter()
        .find(|(kind, _)| name.starts_with(kind))
        .unwrap();
    (bug, "resource")
}

#[test]
fn asan_artifacts_reproduce_and_keep_their_bug_with_sanitizer_address() {
    if !nightly("asan_artifacts_reproduce_and_keep_their_bug_with_sanitizer_address") {
        return;
    }
    let (_dir, crate_dir) = fixture_copy("asan-demo");
    let manifest = crate_dir.join("Cargo.toml");
    let run = cargo_reduce(&[
        "reduce",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--sanitizer",
        "address",
        "--all",
        "--message-format",
        "json",
    ]);
    run.expect_code(0);
    // The other failures the reductions filed are reduced in the run too.
    let (found, finished): (Vec<serde_json::Value>, Vec<serde_json::Value>) = finished(&run)
        .into_iter()
        .partition(|m| m["input"].as_str().unwrap().contains("-found-reducing-"));
    let filed = run
        .messages()
        .into_iter()
        .filter(|m| m["reason"] == "artifact-also-found")
        .count();
    assert_eq!(found.len(), filed, "{}", run.stderr());
    assert_eq!(finished.len(), 9, "{}", run.stderr());
    for m in &finished {
        let (bug, severity) = expected_bug(m);
        let failure = m["failure"].as_str().unwrap();
        assert!(failure.starts_with(bug), "{}: {failure}", m["input"]);
        assert_eq!(m["severity"], severity, "{}", m["input"]);
    }
    for (target, ..) in BUGS {
        for artifact in artifacts(&crate_dir, target) {
            let name = artifact.file_name().unwrap().to_string_lossy().into_owned();
            if !is_written_by_us(&name) {
                let reduced = std::fs::read(minimized_path(&artifact)).unwrap();
                assert!(reduced.len() <= 6, "{}: {reduced:?}", artifact.display());
            }
        }
    }
}

/// By default (`auto`), an artifact that does not fail uninstrumented is
/// tried on the ASan build, and reduced there.
#[test]
fn auto_moves_an_artifact_that_does_not_fail_to_the_asan_build() {
    if !nightly("auto_moves_an_artifact_that_does_not_fail_to_the_asan_build") {
        return;
    }
    let (_dir, crate_dir) = fixture_copy("asan-demo");
    let artifact = artifacts(&crate_dir, "dangling").remove(0);
    let run = cargo_reduce(&[
        "reduce",
        artifact.to_str().unwrap(),
        "--manifest-path",
        crate_dir.join("Cargo.toml").to_str().unwrap(),
        "--message-format",
        "json",
    ]);
    run.expect_code(0);
    let reproduced = run
        .messages()
        .into_iter()
        .find(|m| m["reason"] == "artifact-reproduced")
        .expect("artifact-reproduced");
    let failure = reproduced["failure"].as_str().unwrap();
    assert!(failure.starts_with(BUGS[1].1), "{failure}");
    assert!(
        failure.contains("(in dangling::Machine::store ← "),
        "{failure}"
    );
    assert!(minimized_path(&artifact).exists());
}

/// Under `auto`, a `crash-` that runs out of memory uninstrumented is
/// tried on the ASan build: libFuzzer writes its own limit's failures as
/// `oom-`, so that one was ASan's. `reserve`'s two artifacts, one line,
/// are two bugs there, as on `cargo fuzz`'s binary (the uninstrumented
/// build alone makes them one); `ci` moves the target to ASan for it.
#[test]
fn auto_tells_asan_s_allocation_failure_from_libfuzzer_s_oom() {
    if !nightly("auto_tells_asan_s_allocation_failure_from_libfuzzer_s_oom") {
        return;
    }
    let (dir, crate_dir) = fixture_copy("asan-demo");
    let manifest = crate_dir.join("Cargo.toml");
    let run = cargo_reduce(&[
        "reduce",
        "--fuzz-target",
        "reserve",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--message-format",
        "json",
    ]);
    run.expect_code(0);
    let finished = finished(&run);
    assert_eq!(finished.len(), 2, "{}", run.stderr());
    for m in &finished {
        let failure = m["failure"].as_str().unwrap();
        assert!(
            failure.starts_with(expected_bug(m).0),
            "{}: {failure}",
            m["input"]
        );
    }
    let (ci, report) = ci(dir.path(), &crate_dir, &["reserve"]);
    ci.expect_code(11);
    assert!(report.contains("allocation-size-too-big"), "{report}");
}

/// An allocation failure is reduced to one that asks for no more than its
/// original did: on `cargo fuzz`'s ASan build a larger request may be
/// another bug (ASan's out-of-memory, allocation-size-too-big), which the
/// uninstrumented build cannot tell. `reserve`'s header asks for 2 GiB;
/// its trailing bytes, canonicalized, would ask for terabytes.
#[test]
fn an_allocation_failure_keeps_its_request_no_larger() {
    let (dir, crate_dir) = fixture_copy("asan-demo");
    let input = dir.path().join("oom-header");
    std::fs::write(&input, b"T\0\0\x08\0AAAAAAAA").unwrap();
    let run = cargo_reduce(&[
        "reduce",
        input.to_str().unwrap(),
        "--fuzz-target",
        "reserve",
        "--sanitizer",
        "none",
        "--manifest-path",
        crate_dir.join("Cargo.toml").to_str().unwrap(),
        "--message-format",
        "json",
    ]);
    let finished = finished_one(&run);
    let failure = finished["failure"].as_str().unwrap();
    assert!(failure.starts_with(RESERVE[1].1), "{failure}");
    let reduced = std::fs::read(finished["output"].as_str().unwrap()).unwrap();
    let entries = u32::from_le_bytes(reduced[1..5].try_into().unwrap());
    assert!(entries <= 0x80000, "{reduced:?} asks for more than 2 GiB");
}

/// A failure reduced on the ASan build stays done: on the next run its
/// artifact (which has a minimized copy) is reproduced there again, so the
/// other artifacts of `dangling`'s use-after-free, which pass
/// uninstrumented, are its duplicates, not one more reduction a run; after
/// a change of the target too.
#[test]
fn a_failure_reduced_on_asan_is_done_on_the_next_run() {
    if !nightly("a_failure_reduced_on_asan_is_done_on_the_next_run") {
        return;
    }
    let (_dir, crate_dir) = fixture_copy("asan-demo");
    let manifest = crate_dir.join("Cargo.toml");
    let run = || {
        let run = cargo_reduce(&[
            "reduce",
            "--fuzz-target",
            "dangling",
            "--manifest-path",
            manifest.to_str().unwrap(),
            "--message-format",
            "json",
        ]);
        run.expect_code(0);
        let duplicates = run
            .messages()
            .iter()
            .filter(|m| m["reason"] == "artifact-duplicate")
            .count();
        (finished(&run).len(), duplicates)
    };
    assert_eq!(run(), (1, 2), "one failure, three artifacts");
    assert_eq!(run(), (0, 2), "nothing new");
    // A change of the target rebuilds it: the failure is still done there.
    let source = crate_dir.join("fuzz_targets/dangling.rs");
    let mut text = std::fs::read_to_string(&source).unwrap();
    text.push_str("// changed\n");
    std::fs::write(&source, text).unwrap();
    assert_eq!(run(), (0, 2), "nothing new after a rebuild");
}

/// A wild pointer is what ASan reports under `cargo fuzz`: `SEGV on
/// unknown address` with the access and the line (`overflow` on `S\x01`
/// reads through an empty vector's dangling pointer), not a bare signal;
/// it is reduced as that bug, never slipping to the heap-buffer-overflow.
#[test]
fn a_wild_pointer_is_asan_s_segv_with_its_access() {
    if !nightly("a_wild_pointer_is_asan_s_segv_with_its_access") {
        return;
    }
    let (_dir, crate_dir) = fixture_copy("asan-demo");
    let artifact = crate_dir.join("artifacts/overflow/crash-wild");
    std::fs::write(&artifact, b"S\x01\x01\x00\x00\x00\nS\x01\nS\x00").unwrap();
    let finished = reduced_on_asan(&artifact, &crate_dir.join("Cargo.toml"));
    let failure = finished["failure"].as_str().unwrap();
    assert!(
        failure.starts_with("SEGV READ at fuzz_targets/overflow.rs:14:"),
        "{failure}"
    );
    assert!(failure.contains("(in overflow::sum_words ← "), "{failure}");
    assert_eq!(std::fs::read(minimized_path(&artifact)).unwrap(), b"S\x01");
}

/// A target that reads one byte past its input (a C parser's missing
/// terminator), added to the copy: under libFuzzer the input lies in a
/// heap block of its own length, so ASan reports the read; the ASan build
/// of the stand-in gives each test's input such a block too, so the
/// artifact reproduces and keeps its bug while it shrinks.
#[test]
fn a_read_past_the_input_is_a_heap_buffer_overflow_as_under_libfuzzer() {
    if !nightly("a_read_past_the_input_is_a_heap_buffer_overflow_as_under_libfuzzer") {
        return;
    }
    let (_dir, crate_dir) = fixture_copy("asan-demo");
    let source = "#![no_main]\nuse libfuzzer_sys::fuzz_target;\n\n\
        fuzz_target!(|data: &[u8]| {\n    \
            if data.first() == Some(&b'P') {\n        \
                // SAFETY: none: the planted bug reads the byte after the input.\n        \
                let next = unsafe { data.as_ptr().add(data.len()).read_volatile() };\n        \
                std::hint::black_box(next);\n    \
            }\n\
        });\n";
    std::fs::write(crate_dir.join("fuzz_targets/past_input.rs"), source).unwrap();
    let manifest = crate_dir.join("Cargo.toml");
    let bin = "\n[[bin]]\nname = \"past_input\"\npath = \"fuzz_targets/past_input.rs\"\ntest = false\ndoc = false\n";
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, format!("{text}{bin}")).unwrap();
    let artifact = crate_dir.join("artifacts/past_input/crash-1");
    std::fs::create_dir_all(artifact.parent().unwrap()).unwrap();
    std::fs::write(&artifact, b"PQRSTUVW and more").unwrap();
    let finished = reduced_on_asan(&artifact, &manifest);
    let failure = finished["failure"].as_str().unwrap();
    assert!(
        failure.starts_with("heap-buffer-overflow READ 1 at fuzz_targets/past_input.rs:7:"),
        "{failure}"
    );
    assert_eq!(std::fs::read(minimized_path(&artifact)).unwrap(), b"P");
}

/// A `leak-*` artifact of `cargo fuzz run` (an `Rc` cycle) is reproduced
/// in-process by LeakSanitizer on the ASan build (`auto` builds only that
/// one when only leaks are to be reduced) and reduced while its leak is allocated where it was; `--sanitizer none`
/// skips it with the reason.
#[test]
fn a_leak_is_reduced_in_process_with_its_allocation_site() {
    if !nightly("a_leak_is_reduced_in_process_with_its_allocation_site") {
        return;
    }
    let (_dir, crate_dir) = fixture_copy("asan-demo");
    let artifact = artifacts(&crate_dir, "cycle").remove(0);
    let original = std::fs::read(&artifact).unwrap();
    let manifest = crate_dir.join("Cargo.toml");
    let reduce = |sanitizer: &str| {
        cargo_reduce(&[
            "reduce",
            artifact.to_str().unwrap(),
            "--manifest-path",
            manifest.to_str().unwrap(),
            "--sanitizer",
            sanitizer,
            "--message-format",
            "json",
        ])
    };
    let skipped = reduce("none");
    skipped.expect_code(0);
    let message = skipped
        .messages()
        .into_iter()
        .find(|m| m["reason"] == "artifact-skipped")
        .expect("artifact-skipped");
    assert_eq!(message["cause"], "leak");
    let auto = reduce("auto");
    // Only the ASan build is made: the leak is not looked for elsewhere.
    let builds = auto.messages();
    let builds: Vec<_> = builds
        .iter()
        .filter(|m| m["reason"] == "build-started")
        .collect();
    assert_eq!(builds.len(), 1, "{}", auto.stderr());
    assert_eq!(builds[0]["build"], "asan", "the message says which build");
    let finished = finished_one(&auto);
    let failure = finished["failure"].as_str().unwrap();
    assert!(failure.starts_with(BUGS[2].1), "{failure}");
    assert!(failure.contains("(in cycle::add_node"), "{failure}");
    assert_eq!(finished["severity"], "resource");
    let reduced = std::fs::read(minimized_path(&artifact)).unwrap();
    assert!(reduced.len() <= 6, "{reduced:?}");
    assert_eq!(std::fs::read(&artifact).unwrap(), original);
}

#[test]
fn without_a_sanitizer_the_message_says_one_may_be_needed() {
    let (_dir, crate_dir) = fixture_copy("asan-demo");
    let artifact = artifacts(&crate_dir, "overflow").remove(0);
    let run = cargo_reduce(&[
        "reduce",
        artifact.to_str().unwrap(),
        "--manifest-path",
        crate_dir.join("Cargo.toml").to_str().unwrap(),
        "--sanitizer",
        "none",
    ]);
    run.expect_code(5);
    let line = run.error_line();
    assert!(line.contains("does not reproduce"), "{line}");
    assert!(line.contains("may need a sanitizer"), "{line}");
    assert!(!minimized_path(&artifact).exists());
}

/// `cargo reduce ci --fuzz-target TARGET_AND_ARGS…` on the fixture copy
/// `crate_dir` (cache and report in `dir`): the run, and its report.
fn ci(dir: &Path, crate_dir: &Path, target_and_args: &[&str]) -> (Run, String) {
    let report = dir.join(format!("report-{}.json", target_and_args.join("-")));
    let manifest = crate_dir.join("Cargo.toml");
    let cache = dir.join("ci-cache");
    let mut args = vec![
        "reduce",
        "ci",
        "--manifest-path",
        manifest.to_str().unwrap(),
    ];
    args.extend(["--cache-dir", cache.to_str().unwrap()]);
    args.extend(["--report", report.to_str().unwrap(), "--fuzz-target"]);
    args.extend(target_and_args);
    let run = cargo_reduce(&args);
    (run, std::fs::read_to_string(&report).unwrap_or_default())
}

/// `ci --sanitizer address` replays on the ASan build: the artifacts are
/// new failures there, with their bug type; so does `auto`, whose
/// artifacts pass uninstrumented; with `none` they pass.
#[test]
fn ci_replays_on_the_asan_build_with_sanitizer_address() {
    if !nightly("ci_replays_on_the_asan_build_with_sanitizer_address") {
        return;
    }
    let (dir, crate_dir) = fixture_copy("asan-demo");
    let ci = |sanitizer: &str| {
        ci(
            dir.path(),
            &crate_dir,
            &["overflow", "--sanitizer", sanitizer],
        )
    };
    // First uninstrumented: the ASan runs' minimizations file what else
    // they meet (a read past an empty vector is a SEGV without ASan too).
    let (run, report) = ci("none");
    run.expect_code(0);
    assert!(!report.contains("heap-buffer-overflow"), "{report}");
    for sanitizer in ["address", "auto"] {
        let (run, report) = ci(sanitizer);
        run.expect_code(11);
        assert!(report.contains("heap-buffer-overflow READ 4"), "{report}");
    }
}

/// `ci` under `auto` makes the ASan builds of every target whose crash
/// inputs pass uninstrumented (or, a `crash-`, run out of memory) in one
/// go, once all have replayed: one build of the four targets, not one per
/// target.
#[test]
fn ci_builds_the_targets_that_need_asan_at_once() {
    if !nightly("ci_builds_the_targets_that_need_asan_at_once") {
        return;
    }
    let (dir, crate_dir) = fixture_copy("asan-demo");
    let manifest = crate_dir.join("Cargo.toml");
    let cache = dir.path().join("ci-cache");
    let run = cargo_reduce(&[
        "reduce",
        "ci",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--cache-dir",
        cache.to_str().unwrap(),
        "--message-format",
        "json",
    ]);
    run.expect_code(11);
    let asan_builds: Vec<serde_json::Value> = run
        .messages()
        .into_iter()
        .filter(|m| m["reason"] == "build-finished" && m["build"] == "asan")
        .map(|m| m["targets"].clone())
        .collect();
    assert_eq!(
        asan_builds,
        [serde_json::json!([
            "cycle", "dangling", "overflow", "reserve"
        ])],
        "{}",
        run.stderr()
    );
}

/// `ci` replays a `leak-*` artifact on the ASan build, whose pool looks for
/// leaks: a new failure, minimized and filed in the ledger; the next run
/// replays the ledger's entry there too and knows it.
#[test]
fn ci_files_a_leak_and_knows_it_from_the_ledger() {
    if !nightly("ci_files_a_leak_and_knows_it_from_the_ledger") {
        return;
    }
    let (dir, crate_dir) = fixture_copy("asan-demo");
    let ci = || ci(dir.path(), &crate_dir, &["cycle", "--update"]);
    let (first, filed) = ci();
    first.expect_code(11);
    assert!(
        filed.contains("memory-leak at fuzz_targets/cycle.rs:25:"),
        "{filed}"
    );
    let ledger = crate_dir.join("regressions").join("cycle");
    assert_eq!(
        std::fs::read_dir(&ledger).unwrap().count(),
        2,
        "input and sidecar"
    );
    std::fs::remove_dir_all(crate_dir.join("artifacts").join("cycle")).unwrap();
    let (second, known) = ci();
    second.expect_code(0);
    assert!(known.contains("\"known\""), "{known}");
    assert!(
        known.contains("memory-leak at fuzz_targets/cycle.rs:25:"),
        "{known}"
    );
}

/// An afl.rs target gets the same ASan build (as `AFL_USE_ASAN` makes
/// it): a planted use-after-free input reproduces and keeps its bug.
#[test]
fn an_afl_target_reproduces_on_the_asan_build() {
    if !nightly("an_afl_target_reproduces_on_the_asan_build") {
        return;
    }
    let (dir, crate_dir) = fixture_copy("afl-asan");
    let input = dir.path().join("crash-planted");
    let program = [&b"ab".repeat(40)[..], b"f0", &b"cd".repeat(40), b"w1"].concat();
    std::fs::write(&input, program).unwrap();
    let reduce = |sanitizer: &str| {
        cargo_reduce(&[
            "reduce",
            input.to_str().unwrap(),
            "--fuzz-target",
            "dangling",
            "--manifest-path",
            crate_dir.join("Cargo.toml").to_str().unwrap(),
            "--sanitizer",
            sanitizer,
            "--message-format",
            "json",
        ])
    };
    reduce("none").expect_code(5);
    let run = reduce("address");
    let finished = finished_one(&run);
    let failure = finished["failure"].as_str().unwrap();
    assert!(
        failure.starts_with("heap-use-after-free WRITE 1 at src/bin/dangling.rs:33:"),
        "{failure}"
    );
    assert_eq!(finished["reduced_bytes"], 4);
}

/// `cargo reduce corpus` of asan-demo's `overflow` target (`manifest`) on
/// `corpus`, the set written to `out`, with `extra` flags; it must exit 0.
fn overflow_corpus_set(manifest: &Path, corpus: &Path, out: &Path, extra: &[&str]) -> Run {
    let mut args = vec![
        "reduce",
        "corpus",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--fuzz-target",
        "overflow",
        "--corpus",
        corpus.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let run = cargo_reduce(&args);
    run.expect_code(0);
    run
}

/// `cargo reduce corpus --sanitizer address` counts the features of the
/// ASan coverage build: an input whose read past a buffer passes
/// uninstrumented is, on that build, a failure, reported and kept as an
/// artifact, and out of the set; the other inputs' set is written. A
/// target's `sanitizer = "address"` in its Cargo.toml does the same. The
/// crate's release profile asks for LTO, which the ASan coverage build
/// failed to link under (pulldown-cmark's workspace sets it).
#[test]
fn corpus_with_sanitizer_address_replays_on_the_asan_coverage_build() {
    if !nightly("corpus_with_sanitizer_address_replays_on_the_asan_coverage_build") {
        return;
    }
    let (dir, crate_dir) = fixture_copy("asan-demo");
    let corpus = dir.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    let overflow = artifacts(&crate_dir, "overflow").remove(0);
    std::fs::copy(&overflow, corpus.join("reads-past")).unwrap();
    std::fs::write(corpus.join("one-word"), b"S\x01abcd").unwrap();
    std::fs::write(corpus.join("no-record"), b"x").unwrap();
    let manifest = crate_dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        format!("{text}\n[profile.release]\nlto = true\n"),
    )
    .unwrap();
    let minimize_with = |label: &str, extra: &[&str]| {
        let out = dir.path().join(format!("min-{label}"));
        let json = [&["--message-format", "json"][..], extra].concat();
        overflow_corpus_set(&manifest, &corpus, &out, &json)
    };
    let minimize = |sanitizer: &str| minimize_with(sanitizer, &["--sanitizer", sanitizer]);
    let plain = minimize("none");
    assert!(
        plain
            .messages()
            .iter()
            .all(|m| m["reason"] != "corpus-failure"),
        "uninstrumented, nothing fails: {}",
        plain.stdout()
    );
    let run = minimize("address");
    let messages = run.messages();
    let failure = crate::util::message(&messages, "corpus-failure");
    assert!(
        failure["failure"]
            .as_str()
            .unwrap()
            .starts_with("heap-buffer-overflow READ 4 at fuzz_targets/overflow.rs:14:"),
        "{failure}"
    );
    assert_eq!(
        failure["inputs"][0],
        corpus.join("reads-past").to_str().unwrap()
    );
    let mut kept: Vec<Vec<u8>> = corpus_inputs(&dir.path().join("min-address"))
        .into_iter()
        .map(|(_, bytes)| bytes)
        .collect();
    kept.sort();
    assert_eq!(kept, [&b"S\x01abcd"[..], b"x"], "the passing inputs");

    // The target's sanitizer in its Cargo.toml table, without the flag.
    let text = std::fs::read_to_string(&manifest).unwrap();
    let table = "[package.metadata.cargo-reduce.targets.overflow]\nsanitizer = \"address\"\n";
    std::fs::write(&manifest, format!("{text}\n{table}")).unwrap();
    let run = minimize_with("table", &[]);
    crate::util::message(&run.messages(), "corpus-failure");
}

/// With `--sanitizer address` each input lies in a heap block of exactly
/// its length, as libFuzzer copies it: `overflow` reads every byte of
/// its input, and 28 bytes end in a partial granule, whose reads take
/// ASan's slow path, an edge 24 bytes do not have. So the 28-byte input
/// holds every feature of the 24-byte one and one more, and is the set;
/// uninstrumented both have the same features, and the smaller is kept.
#[test]
fn corpus_with_sanitizer_address_counts_the_checks_on_the_inputs_last_granule() {
    if !nightly("corpus_with_sanitizer_address_counts_the_checks_on_the_inputs_last_granule") {
        return;
    }
    let (dir, crate_dir) = fixture_copy("asan-demo");
    let corpus = dir.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    std::fs::write(corpus.join("whole-granules"), [b'x'; 24]).unwrap();
    std::fs::write(corpus.join("partial-granule"), [b'x'; 28]).unwrap();
    let manifest = crate_dir.join("Cargo.toml");
    let set = |sanitizer: &str| {
        let out = dir.path().join(format!("min-{sanitizer}"));
        overflow_corpus_set(&manifest, &corpus, &out, &["--sanitizer", sanitizer]);
        let mut sizes: Vec<usize> = corpus_inputs(&out)
            .into_iter()
            .map(|(_, bytes)| bytes.len())
            .collect();
        sizes.sort();
        sizes
    };
    assert_eq!(set("address"), [28]);
    assert_eq!(set("none"), [24]);
}
