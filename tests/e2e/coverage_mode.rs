//! `cargo reduce coverage` on `cargo-reduce/tests-fixtures/corpus-demo`
//! (the fixture of `corpus_mode`): a corpus that takes some of `records`'
//! branches and not others, and an input that crashes; the lines covered,
//! as lcov and JSON say them, checked against the fixture's source.

use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::path::Path;

use crate::fuzz_fixture::{cargo_reduce, copy_tree, fixture_copy, repo};
use crate::util::{message, Run};

/// Takes the `num`, `text` and `flag: on` branches; `boom:1` panics.
const CORPUS: &[(&str, &[u8])] = &[
    ("num", b"num:12"),
    ("text", b"text:ab"),
    ("flag", b"flag:on"),
    ("crash", b"boom:1"),
];

/// The records of kind `record` (`DA`, `FNDA`) of the section of `file`
/// in an lcov tracefile, as (first field, second field) pairs.
fn lcov_records<'a>(lcov: &'a str, file: &str, record: &str) -> Vec<(&'a str, &'a str)> {
    let section = lcov
        .split("end_of_record")
        .find(|s| s.lines().any(|l| l.starts_with("SF:") && l.ends_with(file)))
        .unwrap_or_else(|| panic!("no {file} in\n{lcov}"));
    section
        .lines()
        .filter_map(|l| l.strip_prefix(record)?.strip_prefix(':'))
        .map(|fields| fields.split_once(',').unwrap())
        .collect()
}

/// `DA:` lines of the section of `file` in an lcov tracefile.
fn lcov_lines(lcov: &str, file: &str) -> BTreeMap<u32, u64> {
    lcov_records(lcov, file, "DA")
        .into_iter()
        .map(|(line, count)| (line.parse().unwrap(), count.parse().unwrap()))
        .collect()
}

/// `cargo reduce coverage` of one target of the crate at `crate_dir`, its
/// report in `out`, with JSON messages.
fn coverage(crate_dir: &Path, target: &str, out: &Path) -> Run {
    coverage_with(crate_dir, target, out, &[])
}

/// [`coverage`] with `extra` arguments.
fn coverage_with(crate_dir: &Path, target: &str, out: &Path, extra: &[&str]) -> Run {
    let manifest = crate_dir.join("Cargo.toml");
    let args = [
        "reduce",
        "coverage",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--fuzz-target",
        target,
        "-o",
        out.to_str().unwrap(),
        "--message-format",
        "json",
    ];
    cargo_reduce(&[&args[..], extra].concat())
}

#[test]
fn a_corpus_lines_are_reported_as_lcov_html_and_json() {
    let (_dir, crate_dir) = fixture_copy("corpus-demo");
    let corpus = crate_dir.join("corpus/records");
    fs::create_dir_all(&corpus).unwrap();
    for (name, bytes) in CORPUS {
        fs::write(corpus.join(name), bytes).unwrap();
    }
    let out = crate_dir.join("cov");
    let run = coverage(&crate_dir, "records", &out);
    run.expect_code(0);
    crate::schema::check_messages(&run);
    let messages = run.messages();
    let report = message(&messages, "coverage-report");
    assert_eq!(report["target"], "records", "{report}");
    assert_eq!(
        (report["inputs"].as_u64(), report["failing"].as_u64()),
        (Some(4), Some(1))
    );
    let files: Vec<&str> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        ["fuzz_targets/records.rs"],
        "only the user's code: {report}"
    );
    let lcov = fs::read_to_string(out.join("records/lcov.info")).unwrap();
    let lines = lcov_lines(&lcov, "fuzz_targets/records.rs");
    // A function: called by every passing input (the crash's counts
    // nothing), at the first line of its code.
    let functions = lcov_records(&lcov, "fuzz_targets/records.rs", "FNDA");
    assert!(
        functions.contains(&("3", "records::record")),
        "{functions:?}"
    );
    // Its `fn` line or its body's first (as the compiler places the
    // prologue).
    let starts = lcov_records(&lcov, "fuzz_targets/records.rs", "FN");
    assert!(
        starts.contains(&("7", "records::record")) || starts.contains(&("8", "records::record")),
        "{starts:?}"
    );
    // A branch's body: reached by the one input that takes it; the crash's
    // by none (its input counts nothing); the loop by every passing input.
    let count = |line| lines.get(&line).copied();
    assert_eq!(count(12), Some(1), "num: {lines:?}");
    assert_eq!(count(16), Some(0), "the crash counts nothing: {lines:?}");
    assert_eq!(count(22), Some(3), "{lines:?}");
    assert!(!lines.contains_key(&2), "a comment has no code: {lines:?}");
    // The merged report, and the pages a person reads.
    assert!(fs::read_to_string(out.join("lcov.info"))
        .unwrap()
        .contains("records.rs"));
    let index = fs::read_to_string(out.join("records/html/index.html")).unwrap();
    assert!(index.contains("fuzz_targets/records.rs"), "{index}");
    let merged = messages
        .iter()
        .filter(|m| m["reason"] == "coverage-report")
        .find(|m| m["target"].is_null())
        .expect("a merged report");
    assert_eq!(merged["lines_covered"], report["lines_covered"]);
}

/// A typed target (fuzz-targets' `typed_query`): the `fuzz_target!` line,
/// whose code is `LLVMFuzzerInitialize`'s and runs as a worker starts,
/// counts as reached by every passing input (as llvm-cov counts it run);
/// the derived impls of `Flag` and `Query` are left out, as llvm-cov
/// leaves them out (`Query`'s `Debug`, never called, named its fields).
#[test]
fn a_typed_targets_start_counts_and_its_derived_impls_are_left_out() {
    let (_dir, crate_dir) = crate::fuzz_fixture::fresh_copy();
    let corpus = crate_dir.join("inputs");
    fs::create_dir_all(&corpus).unwrap();
    for (name, bytes) in [("a", &b"ab\x00\x01c\x03"[..]), ("b", b"*?xyz\x01VUUU\x02q")] {
        fs::write(corpus.join(name), bytes).unwrap();
    }
    let out = crate_dir.join("cov");
    let run = coverage_with(
        &crate_dir,
        "typed_query",
        &out,
        &["--corpus", corpus.to_str().unwrap()],
    );
    run.expect_code(0);
    let source = fs::read_to_string(crate_dir.join("fuzz_targets/typed_query.rs")).unwrap();
    let line_of = |text: &str| 1 + source.lines().position(|l| l.starts_with(text)).unwrap() as u32;
    let lcov = fs::read_to_string(out.join("typed_query/lcov.info")).unwrap();
    let lines = lcov_lines(&lcov, "fuzz_targets/typed_query.rs");
    let start = line_of("fuzz_target!");
    assert_eq!(lines.get(&(start + 1)), Some(&2), "the body: {lines:?}");
    assert_eq!(lines.get(&start), Some(&2), "the start: {lines:?}");
    let (query, flag) = (line_of("struct Query"), line_of("enum Flag"));
    let derived =
        |line: &u32| (flag - 1..flag + 5).contains(line) || (query - 1..query + 6).contains(line);
    assert!(!lines.keys().any(derived), "derived code: {lines:?}");
}

/// An afl.rs target's corpus is the `queue/` of each AFL++ instance that
/// ran it (the bundled crate's real campaign output): every input reaches
/// the header check, fewer the record loop.
#[test]
fn an_afl_targets_queues_are_its_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let crate_dir = dir.path().join("fuzz-targets-afl");
    copy_tree(&repo().join("fuzz-targets-afl"), &crate_dir);
    copy_tree(&repo().join("corpus/afl/out"), &crate_dir.join("out"));
    let queue = crate_dir.join("out/byte_parser/default/queue");
    let distinct: HashSet<Vec<u8>> = fs::read_dir(&queue)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| fs::read(p).unwrap())
        .collect();
    let out = dir.path().join("cov");
    let run = coverage(&crate_dir, "byte_parser", &out);
    run.expect_code(0);
    let report = message(&run.messages(), "coverage-report").clone();
    assert_eq!(report["inputs"].as_u64(), Some(distinct.len() as u64));
    let lines = lcov_lines(
        &fs::read_to_string(out.join("byte_parser/lcov.info")).unwrap(),
        "src/bin/byte_parser.rs",
    );
    let count = |line| lines.get(&line).copied().unwrap_or(0);
    assert_eq!(count(22), distinct.len() as u64, "the header: {lines:?}");
    assert!((1..count(22)).contains(&count(31)), "a record: {lines:?}");
}

/// Of every target, those without a corpus are skipped with a warning
/// that names them (as `corpus` says it), not silently.
#[test]
fn targets_without_a_corpus_are_named() {
    let (_dir, crate_dir) = fixture_copy("corpus-demo");
    let corpus = crate_dir.join("corpus/records");
    fs::create_dir_all(&corpus).unwrap();
    fs::write(corpus.join("one"), CORPUS[0].1).unwrap();
    let manifest = crate_dir.join("Cargo.toml");
    let out = crate_dir.join("cov");
    let run = cargo_reduce(&[
        "reduce",
        "coverage",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--message-format",
        "json",
    ]);
    run.expect_code(0);
    let warnings = run.warnings();
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with("no corpus for 2 target(s), skipped: ")
                && w.contains("lazy")
                && w.contains("typed")),
        "{warnings:?}"
    );
}
