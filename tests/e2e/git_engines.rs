//! A fuzz crate with no `Cargo.lock` whose engines come from git
//! repositories that cannot be reached
//! (`cargo-reduce/tests-fixtures/git-engines-no-lock`): the stand-ins
//! replace them, so the run resolves a lock and builds without ever
//! fetching them, and the user's folder is left as it was.

use std::fs;

use crate::fuzz_fixture::{cargo_reduce, fixture_copy, minimized_path};

#[test]
fn engines_from_unreachable_git_are_never_fetched() {
    let (_dir, fuzz) = fixture_copy("git-engines-no-lock");
    let manifest = fs::read(fuzz.join("Cargo.toml")).unwrap();
    let dir = fuzz.join("artifacts/bytes");
    fs::create_dir_all(&dir).unwrap();
    let crash = dir.join("crash-1");
    fs::write(&crash, b"xxBUGxxxx").unwrap();
    let run = cargo_reduce(&[
        "reduce",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        crash.to_str().unwrap(),
    ]);
    run.expect_code(0);
    assert_eq!(fs::read(minimized_path(&crash)).unwrap(), b"BUG");
    assert!(
        run.stderr().contains("no Cargo.lock in "),
        "{}",
        run.stderr()
    );
    assert_eq!(fs::read(fuzz.join("Cargo.toml")).unwrap(), manifest);
    assert!(!fuzz.join("Cargo.lock").exists());
}
