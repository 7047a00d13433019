//! `cargo reduce ci` on bad input: one clear error line, a distinct exit
//! status, nothing built, nothing lost.

use std::fs;
use std::path::Path;

use cargo_reduce_messages::ci::REPORT_VERSION;

use crate::fuzz_fixture::{cargo_reduce, command, fresh_copy, snapshot, target_dir};
use crate::util::Run;

/// `cargo reduce ci --manifest-path <fuzz>/Cargo.toml ARGS…`, run in `fuzz`.
fn ci_command(fuzz: &Path, args: &[&str]) -> std::process::Command {
    let manifest = fuzz.join("Cargo.toml");
    let all = [
        &[
            "reduce",
            "ci",
            "--manifest-path",
            manifest.to_str().unwrap(),
        ][..],
        args,
    ]
    .concat();
    let mut command = command(&all, &target_dir());
    command.current_dir(fuzz);
    command
}

fn ci(fuzz: &Path, args: &[&str]) -> Run {
    Run(ci_command(fuzz, args).output().unwrap())
}

/// Runs `ci ARGS` on a copy set up by `plant`, and checks it fails with
/// `code` and an error line containing `says`, changing no file.
fn refused(plant: impl Fn(&Path), args: &[&str], code: i32, says: &str) {
    let (_dir, fuzz) = fresh_copy();
    plant(&fuzz);
    let before = snapshot(&fuzz);
    let run = ci(&fuzz, args);
    run.expect_code(code);
    let line = run.error_line();
    assert!(line.contains(says), "{line}");
    assert!(!run.stderr().contains("Built"), "refused before building");
    assert_eq!(snapshot(&fuzz), before, "nothing lost");
}

fn entry(fuzz: &Path, target: &str, sidecar: &str) {
    let dir = fuzz.join("regressions").join(target);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("0badcafe-0000000000000000"), "ZAP").unwrap();
    fs::write(dir.join("0badcafe-0000000000000000.json"), sidecar).unwrap();
}

#[test]
fn a_corrupt_sidecar_is_named() {
    refused(
        |fuzz| entry(fuzz, "abort", "{ \"id\": "),
        &[],
        3,
        "error: corrupt ledger sidecar `",
    );
}

#[test]
fn a_ledger_folder_of_no_target_is_named() {
    refused(
        |fuzz| entry(fuzz, "no_such_target", "{}"),
        &[],
        3,
        "names no fuzz target of `fuzz-targets`",
    );
}

#[test]
fn an_unwritable_ledger_is_found_before_anything_runs() {
    refused(
        |fuzz| {
            fs::create_dir_all(fuzz.join("regressions")).unwrap();
            fs::write(fuzz.join("regressions/abort"), "not a folder").unwrap();
        },
        &["--update"],
        2,
        "cannot write the regression ledger `",
    );
}

#[test]
fn a_budget_of_zero_and_a_shard_out_of_range_are_usage_errors() {
    refused(|_| {}, &["--budget", "0"], 2, "--budget 0 leaves no time");
    refused(|_| {}, &["--shard", "3/2"], 2, "K must be between 1 and N");
    refused(
        |_| {},
        &["--budget", "soon"],
        2,
        "give seconds, or a number",
    );
}

#[test]
fn merge_refuses_what_is_not_a_report() {
    let (dir, fuzz) = fresh_copy();
    let bogus = dir.path().join("report.json");
    fs::write(&bogus, "[]").unwrap();
    let run = cargo_reduce(&["reduce", "ci", "merge", bogus.to_str().unwrap()]);
    run.expect_code(3);
    assert!(run.error_line().contains("is not a cargo-reduce ci report"));
    assert!(fuzz.join("Cargo.toml").exists());
}

/// A report of another format version (a later cargo-reduce's, whose
/// other fields may have changed) is told apart from a broken file: its
/// own exit status and one line naming the file and both versions.
#[test]
fn merge_refuses_a_report_of_another_version() {
    let dir = tempfile::tempdir().unwrap();
    let report = |name: &str, version: u32| {
        let path = dir.path().join(name);
        // A later version may have changed any field but `version`.
        let inputs = if version == REPORT_VERSION {
            "[]"
        } else {
            r#""changed""#
        };
        let text = format!(
            r#"{{"version":{version},"tool":"cargo-reduce x","shard":null,"match":"stack","inputs":{inputs},"failures":[],"fixed":[],"elapsed_s":1.0}}"#
        );
        fs::write(&path, text).unwrap();
        path
    };
    let (current, later) = (
        report("one.json", REPORT_VERSION),
        report("two.json", REPORT_VERSION + 1),
    );
    let merged = dir.path().join("merged.json");
    let run = cargo_reduce(&[
        "reduce",
        "ci",
        "merge",
        current.to_str().unwrap(),
        later.to_str().unwrap(),
        "--report",
        merged.to_str().unwrap(),
    ]);
    run.expect_code(14);
    let line = run.error_line();
    assert!(
        line.contains("two.json")
            && line.contains(&format!("version {}", REPORT_VERSION + 1))
            && line.contains(&format!("version {REPORT_VERSION}")),
        "{line}"
    );
    assert_eq!(
        run.stderr()
            .lines()
            .filter(|l| l.starts_with("error"))
            .count(),
        1
    );
    assert!(!merged.exists(), "nothing written");
}

#[test]
fn a_report_path_that_is_a_folder_or_a_fifo_is_refused_before_anything_runs() {
    refused(
        |fuzz| fs::create_dir_all(fuzz.join("out.sarif")).unwrap(),
        &["--sarif", "out.sarif"],
        2,
        "is a directory",
    );
    let (dir, fuzz) = fresh_copy();
    let fifo = dir.path().join("tests.rs");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let run = ci(&fuzz, &["--emit-tests", fifo.to_str().unwrap()]);
    run.expect_code(2);
    assert!(
        run.error_line().contains("is a FIFO"),
        "{}",
        run.error_line()
    );
    assert!(!run.stderr().contains("Built"), "refused before building");
    // A file of no crate (no Cargo.toml above it): refused up front too,
    // not after the replay (helper-38).
    let outside = tempfile::tempdir().unwrap();
    let tests = outside.path().join("fuzz_regressions.rs");
    let run = ci(&fuzz, &["--emit-tests", tests.to_str().unwrap()]);
    run.expect_code(2);
    assert!(
        run.error_line().contains("no Cargo.toml above"),
        "{}",
        run.error_line()
    );
    assert!(!run.stderr().contains("Built"), "refused before building");
}

/// A job summary or an `--out-dir` that cannot be written is found before
/// anything is built, not after the run (where its error would replace
/// the run's exit status).
#[test]
fn an_unwritable_job_summary_or_out_dir_is_refused_before_anything_runs() {
    let (_dir, fuzz) = fresh_copy();
    let under_a_file = fuzz.join("Cargo.toml/summary.md");
    let run = |args: &[&str]| {
        let mut command = ci_command(&fuzz, args);
        command.env("GITHUB_STEP_SUMMARY", &under_a_file);
        Run(command.output().unwrap())
    };
    let before = snapshot(&fuzz);
    let summary = run(&["--format", "github"]);
    summary.expect_error(2, "cannot write the job summary `");
    assert!(
        !summary.stderr().contains("Built"),
        "refused before building"
    );
    let out_dir = run(&["--out-dir", under_a_file.to_str().unwrap()]);
    out_dir.expect_error(2, "cannot write under --out-dir `");
    assert!(
        !out_dir.stderr().contains("Built"),
        "refused before building"
    );
    assert_eq!(snapshot(&fuzz), before, "nothing lost");
}
