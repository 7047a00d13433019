//! The first run on a fuzz crate, as a new user meets it
//! (`cargo-reduce/tests-fixtures/first-run`): a target that does not
//! compile (its error once, whole, before the table; its artifacts' rows
//! say why), an `assert_eq!` whose message spans lines (one line per row;
//! the JSON keeps it whole), and a stale artifact that no longer fails
//! (summed up in one line; exit 0 when the failures that do reproduce are
//! reduced, 5 when none does).

use std::fs;
use std::path::Path;

use crate::fuzz_fixture::{cargo_reduce, finished, fixture_copy, minimized_path};
use crate::util::{message, Run};

/// `cargo reduce --manifest-path CRATE --sanitizer none EXTRA…` (no
/// sanitizer: a stale artifact is not tried on a nightly ASan build).
fn reduce(crate_dir: &Path, extra: &[&str]) -> Run {
    let manifest = crate_dir.join("Cargo.toml");
    let mut args = vec![
        "reduce",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--sanitizer",
        "none",
    ];
    args.extend_from_slice(extra);
    cargo_reduce(&args)
}

/// Whether `stderr` holds rustc's diagnostic of the fixture's typo whole:
/// the error with its code and name, then a `help:` line, then the fix
/// (`parse_header(data)`), in that order. Not rustc's wording, which a
/// release may change.
fn has_whole_diagnostic(stderr: &str) -> bool {
    let error = stderr
        .find("error[E0425]")
        .filter(|&at| stderr[at..].contains("`parse_headers`"));
    let help = error.and_then(|at| Some(at + stderr[at..].find("help: ")?));
    help.is_some_and(|at| stderr[at..].contains("parse_header(data)"))
}

/// The table's rows (stdout) that begin with `prefix`.
fn rows<'r>(stdout: &'r str, prefix: &str) -> Vec<&'r str> {
    stdout.lines().filter(|l| l.starts_with(prefix)).collect()
}

#[test]
fn a_target_that_does_not_build_is_reported_once_whole_and_its_rows_say_why() {
    let (_dir, crate_dir) = fixture_copy("first-run");
    let run = reduce(&crate_dir, &[]);
    // A target with inputs did not build: the user has to act.
    run.expect_code(8);
    let stderr = run.stderr();
    assert_eq!(
        stderr
            .matches("cannot build fuzz target `parse` of `first-run`")
            .count(),
        1,
        "{stderr}"
    );
    // rustc's diagnostic whole: the error, the code and the help with its
    // fix (their wording is rustc's, which a release may change).
    assert!(has_whole_diagnostic(&stderr), "{stderr}");
    assert!(!stderr.contains("as above"), "{stderr}");
    let stdout = run.stdout();
    let parse = rows(&stdout, "parse/");
    assert_eq!(parse.len(), 3, "{stdout}");
    assert!(
        parse
            .iter()
            .all(|r| r.ends_with("not built (see the error above)")),
        "{stdout}"
    );
    // The target that builds is reduced.
    let equals = crate_dir.join("artifacts/compare/crash-equals");
    assert_eq!(fs::read(minimized_path(&equals)).unwrap(), b"=");
    assert!(
        stderr.contains("Finished 1 input(s) reduced, 1 no longer failing")
            && stderr.contains(", 3 not built"),
        "{stderr}"
    );
}

#[test]
fn a_stale_artifact_is_one_summary_line_and_a_multi_line_panic_one_row() {
    let (_dir, crate_dir) = fixture_copy("first-run");
    let run = reduce(&crate_dir, &["--fuzz-target", "compare"]);
    run.expect_code(0);
    let stderr = run.stderr();
    assert!(!stderr.contains("error"), "{stderr}");
    let about_stale: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("crash-stale") || l.contains("no longer fail"))
        .collect();
    assert_eq!(about_stale.len(), 1, "{stderr}");
    assert!(about_stale[0].contains("`-v` lists them"), "{stderr}");
    let stdout = run.stdout();
    assert!(!stdout.contains("crash-stale"), "no row: {stdout}");
    // The table is the header and one row, the message's lines joined on
    // it (the sections after it, such as the run commands, are apart).
    let table = stdout.lines().take_while(|l| !l.is_empty()).count();
    assert_eq!(table, 2, "{stdout}");
    let row = rows(&stdout, "compare/crash-equals")[0];
    assert!(
        row.contains("the input holds `_` ⏎ where no field may ⏎ left: _ ⏎ right: _"),
        "{row}"
    );

    let json = reduce(
        &crate_dir,
        &[
            "--fuzz-target",
            "compare",
            "--force",
            "--message-format",
            "json",
        ],
    );
    json.expect_code(0);
    let messages = json.messages();
    assert!(
        !messages.iter().any(|m| m["reason"] == "error"),
        "{}",
        json.stdout()
    );
    let skipped = message(&messages, "artifact-skipped");
    assert_eq!(skipped["cause"], "does-not-reproduce");
    assert!(skipped["path"].as_str().unwrap().ends_with("crash-stale"));
    assert!(skipped["why"]
        .as_str()
        .unwrap()
        .contains("does not reproduce"));
    let failure = finished(&json)[0]["failure"].as_str().unwrap().to_string();
    assert!(
        failure.contains("the input holds `_`\nwhere no field may\n  left: _\n right: _"),
        "the message whole: {failure:?}"
    );

    let verbose = reduce(&crate_dir, &["--fuzz-target", "compare", "--force", "-v"]);
    verbose.expect_code(0);
    assert!(
        verbose
            .stderr()
            .lines()
            .any(|l| l.contains("Stale") && l.contains("crash-stale")),
        "-v lists it: {}",
        verbose.stderr()
    );
}

#[test]
fn when_no_artifact_reproduces_the_run_says_so_once_and_exits_5() {
    let (_dir, crate_dir) = fixture_copy("first-run");
    fs::remove_file(crate_dir.join("artifacts/compare/crash-equals")).unwrap();
    let run = reduce(&crate_dir, &["--fuzz-target", "compare"]);
    run.expect_code(5);
    let stderr = run.stderr();
    let line = run.error_line();
    assert!(
        line.contains("none of the 1 input(s) to reduce fails any more"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("error").count(), 1, "{stderr}");
    assert!(!stderr.contains("Grouped"), "{stderr}");
    assert!(run.stdout().is_empty(), "no table: {}", run.stdout());
}

/// The only target asked for does not build (cargo made no binary at
/// all): the error names it, holds rustc's help, and no empty grouping
/// precedes it.
#[test]
fn a_build_that_makes_no_binary_names_its_targets() {
    let (_dir, crate_dir) = fixture_copy("first-run");
    let run = reduce(&crate_dir, &["--fuzz-target", "parse"]);
    run.expect_code(8);
    let stderr = run.stderr();
    assert!(
        run.error_line()
            .starts_with("error: cannot build fuzz target(s) `parse` of `first-run`"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("error: cannot build").count(), 1, "{stderr}");
    // The shadow build's command line (kilobytes) comes after the
    // compiler's errors, not in the first line (helper-39).
    let first = stderr.lines().find(|l| l.starts_with("error:")).unwrap();
    assert!(
        first.ends_with("`cargo build` failed (exit status: 101):"),
        "{first}"
    );
    assert!(has_whole_diagnostic(&stderr), "{stderr}");
    assert!(!stderr.contains("Grouped"), "{stderr}");
    assert_eq!(rows(&run.stdout(), "parse/").len(), 3, "{}", run.stdout());
}

/// A fuzz crate that has not crashed yet: the run says where artifacts
/// are looked for, builds nothing and exits 0.
#[test]
fn a_crate_without_artifacts_is_told_where_they_are_looked_for() {
    let (_dir, crate_dir) = fixture_copy("first-run");
    fs::remove_dir_all(crate_dir.join("artifacts")).unwrap();
    let run = reduce(&crate_dir, &[]);
    run.expect_code(0);
    let stderr = run.stderr();
    assert!(stderr.contains("no artifact found"), "{stderr}");
    assert!(stderr.contains("artifacts/<target>/"), "{stderr}");
    assert!(!stderr.contains("Built"), "nothing built: {stderr}");
}
