//! An afl.rs target that calls `process::exit` during a test
//! (`cargo-reduce/tests-fixtures/afl-exit`): AFL++ counts the exit as a
//! crash only when `AFL_CRASH_EXITCODE` is set to its status, and so does
//! cargo-reduce, so that `ci` on AFL++ corpora finds no failure AFL++
//! would not have.

use std::fs;
use std::path::PathBuf;

use crate::fuzz_fixture::{command, fixture_copy, target_dir};
use crate::recycled::RecycledDir;
use crate::util::Run;

const CRASH: &str = "id:000000,sig:06,src:000000,time:1,execs:1,op:havoc,rep:1";

/// A copy of the fixture with an AFL++ instance whose crash exits.
fn with_inputs() -> (RecycledDir, PathBuf) {
    let (dir, root) = fixture_copy("afl-exit");
    let instance = root.join("out/default");
    fs::create_dir_all(instance.join("queue")).unwrap();
    fs::create_dir_all(instance.join("crashes")).unwrap();
    fs::write(instance.join("cmdline"), "target/debug/exits\n").unwrap();
    fs::write(instance.join("crashes").join(CRASH), "xxEXITyy").unwrap();
    (dir, root)
}

/// `cargo reduce` on the copy at `root`, with `AFL_CRASH_EXITCODE` set to
/// `code` (or unset).
fn reduce(root: &std::path::Path, code: Option<&str>) -> Run {
    let args = [
        "reduce",
        "--manifest-path",
        root.to_str().unwrap(),
        "--message-format",
        "json",
    ];
    let mut command = command(&args, &target_dir());
    match code {
        Some(code) => command.env("AFL_CRASH_EXITCODE", code),
        None => command.env_remove("AFL_CRASH_EXITCODE"),
    };
    Run(command.output().expect("spawn cargo-reduce"))
}

#[test]
fn an_exit_fails_only_with_afl_crash_exitcode_set_to_its_status() {
    let (_dir, root) = with_inputs();
    // As afl-fuzz without AFL_CRASH_EXITCODE: no crash, so nothing to reduce.
    let run = reduce(&root, None);
    run.expect_code(5);
    assert!(
        run.stdout().contains("does not reproduce"),
        "{}",
        run.stdout()
    );
    // Another status is no crash either.
    reduce(&root, Some("4")).expect_code(5);
    let run = reduce(&root, Some("3"));
    run.expect_code(0);
    let finished: Vec<_> = run
        .messages()
        .into_iter()
        .filter(|m| m["reason"] == "reduction-finished")
        .collect();
    assert_eq!(finished.len(), 1, "{}", run.stdout());
    let output = fs::read(finished[0]["output"].as_str().unwrap()).unwrap();
    assert_eq!(output, b"EXIT");
}

#[test]
fn a_status_afl_fuzz_would_refuse_is_a_clear_error() {
    let (_dir, root) = with_inputs();
    let run = reduce(&root, Some("200"));
    run.expect_code(2);
    assert!(
        run.error_line().contains("AFL_CRASH_EXITCODE"),
        "{}",
        run.stderr()
    );
}
