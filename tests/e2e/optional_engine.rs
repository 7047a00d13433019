//! `cargo reduce` on a cargo-fuzz crate whose libfuzzer-sys is optional
//! (`cargo-reduce/tests-fixtures/optional-libfuzzer`, as in
//! taiki-e/parse-changelog): the feature that turns it on is built, so the
//! target's code behind it runs; a bin that runs no fuzz target is named
//! as such in one line.

use std::fs;
use std::path::PathBuf;

use crate::fuzz_fixture::{cargo_reduce, copy_tree, minimized_path, repo};
use crate::recycled::RecycledDir;

/// A copy of the crate with one artifact for `target`; its path.
fn optional(target: &str) -> (RecycledDir, PathBuf, PathBuf) {
    let dir = RecycledDir::new("optional-engine");
    let crate_dir = dir.path().join("optional-libfuzzer");
    copy_tree(
        &repo().join("cargo-reduce/tests-fixtures/optional-libfuzzer"),
        &crate_dir,
    );
    let artifacts = crate_dir.join("artifacts").join(target);
    fs::create_dir_all(&artifacts).unwrap();
    let artifact = artifacts.join("crash-1");
    fs::write(&artifact, b"xxxxBUGyyyy").unwrap();
    (dir, crate_dir, artifact)
}

#[test]
fn the_feature_that_enables_an_optional_libfuzzer_sys_is_built() {
    let (_dir, crate_dir, artifact) = optional("parse");
    let run = cargo_reduce(&[
        "reduce",
        "--manifest-path",
        crate_dir.to_str().unwrap(),
        "--fuzz-target",
        "parse",
    ]);
    run.expect_code(0);
    assert_eq!(fs::read(minimized_path(&artifact)).unwrap(), b"BUG");
}

#[test]
fn a_target_that_exits_without_running_a_test_is_named_in_one_line() {
    let (_dir, crate_dir, parse) = optional("parse");
    let artifacts = crate_dir.join("artifacts/no_target");
    fs::create_dir_all(&artifacts).unwrap();
    fs::write(artifacts.join("crash-1"), b"x").unwrap();
    let run = cargo_reduce(&["reduce", "--manifest-path", crate_dir.to_str().unwrap()]);
    // It fails its own artifact; the other target is still reduced.
    run.expect_code(1);
    assert_eq!(fs::read(minimized_path(&parse)).unwrap(), b"BUG");
    let line = run.error_line();
    assert!(
        line.contains("no_target")
            && line.contains("without running a test")
            && line.contains("`fuzz_target!` is not compiled in"),
        "{}",
        run.stderr()
    );
    // The whole message is that one line.
    assert!(
        line.ends_with("or it is no fuzz target"),
        "{}",
        run.stderr()
    );
}
