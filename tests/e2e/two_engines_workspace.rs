//! `cargo reduce` on a workspace with a cargo-fuzz crate and an afl.rs
//! crate side by side (`cargo-reduce/tests-fixtures/two-engines-workspace`):
//! the lock holds both engines, so each build patches in the other
//! engine's stand-in too, as a companion, which cargo reports as unused
//! (neither package depends on the other's engine). That warning is no
//! reason to stop: both targets are built and their inputs reduced.

use std::fs;
use std::path::PathBuf;

use crate::fuzz_fixture::{afl_instance, cargo_reduce, fixture_copy, AFL_CRASH};
use crate::recycled::RecycledDir;

/// A copy of the workspace with an AFL++ instance (`out/default`) holding
/// a crash of the afl.rs target; the cargo-fuzz crate has its artifact.
fn workspace() -> (RecycledDir, PathBuf) {
    let (dir, root) = fixture_copy("two-engines-workspace");
    let binary = "target/debug/afl_parse";
    afl_instance(
        &root.join("out"),
        "default",
        binary,
        &[(AFL_CRASH, b"junk bang junk")],
    );
    (dir, root)
}

#[test]
fn each_engine_s_targets_build_beside_the_other_engine_s() {
    let (_dir, root) = workspace();
    let lock = fs::read(root.join("Cargo.lock")).unwrap();
    let run = cargo_reduce(&[
        "reduce",
        "--manifest-path",
        root.to_str().unwrap(),
        "--message-format",
        "json",
    ]);
    run.expect_code(0);
    let mut reduced: Vec<(String, u64)> = run
        .messages()
        .iter()
        .filter(|m| m["reason"] == "reduction-finished")
        .map(|m| {
            let target = m["target"].as_str().unwrap().to_string();
            (target, m["reduced_bytes"].as_u64().unwrap())
        })
        .collect();
    reduced.sort();
    assert_eq!(
        reduced,
        [("afl_parse".to_string(), 4), ("lf_parse".to_string(), 4)],
        "{}",
        run.stdout()
    );
    assert_eq!(fs::read(root.join("Cargo.lock")).unwrap(), lock);
}
