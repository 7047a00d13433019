//! The stand-in is compiled against the versions the user's lock pins: it
//! must build with any of them. `tests-fixtures/old-libc` pins libc
//! 0.2.152, which lacks items the stand-in once took from libc.

use std::fs;
use std::path::Path;

use crate::fuzz_fixture::{cargo_reduce_in, copy_tree, minimized_path, repo};

#[test]
fn an_old_libc_in_the_lock_builds_and_the_crash_is_reduced() {
    let dir = tempfile::tempdir().unwrap();
    let fuzz = dir.path().join("fuzz");
    copy_tree(&repo().join("cargo-reduce/tests-fixtures/old-libc"), &fuzz);
    let lock = fs::read(fuzz.join("Cargo.lock")).unwrap();
    assert!(String::from_utf8_lossy(&lock).contains("name = \"libc\"\nversion = \"0.2.152\""));
    let artifacts = fuzz.join("artifacts/pid");
    fs::create_dir_all(&artifacts).unwrap();
    let crash = artifacts.join("crash-1");
    fs::write(&crash, b"some BUG here").unwrap();

    let target_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("old-libc-build");
    let args = ["reduce", "--manifest-path", fuzz.to_str().unwrap()];
    let run = cargo_reduce_in(&args, &target_dir);
    run.expect_code(0);
    assert_eq!(fs::read(minimized_path(&crash)).unwrap(), b"BUG");
    assert_eq!(
        fs::read(fuzz.join("Cargo.lock")).unwrap(),
        lock,
        "lock unchanged"
    );
}
