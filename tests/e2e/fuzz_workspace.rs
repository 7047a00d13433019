//! `cargo reduce` on a workspace of two cargo-fuzz crates, one of which
//! does not compile (`cargo-reduce/tests-fixtures/fuzz-workspace`): the
//! broken crate fails its own artifacts only, and `--manifest-path` naming
//! one fuzz crate selects that crate alone, as it selects a package for
//! cargo.

use std::fs;
use std::path::{Path, PathBuf};

use crate::fuzz_fixture::{cargo_reduce, copy_tree, minimized_path, repo};
use crate::recycled::RecycledDir;
use crate::util::Run;

/// A copy of the workspace with one artifact per crate; the good crate's
/// artifact path.
fn workspace() -> (RecycledDir, PathBuf, PathBuf) {
    let dir = RecycledDir::new("fuzz-workspace");
    let root = dir.path().join("fuzz-workspace");
    copy_tree(
        &repo().join("cargo-reduce/tests-fixtures/fuzz-workspace"),
        &root,
    );
    for (krate, bytes) in [("broken", &b"x"[..]), ("good", &b"xxBUGyy"[..])] {
        let dir = root
            .join(krate)
            .join(format!("fuzz/artifacts/{krate}_target"));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("crash-1"), bytes).unwrap();
    }
    let good = root.join("good/fuzz/artifacts/good_target/crash-1");
    (dir, root, good)
}

/// `cargo reduce --manifest-path <manifest> --message-format json`.
fn reduce(manifest: &Path) -> Run {
    cargo_reduce(&[
        "reduce",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--message-format",
        "json",
    ])
}

/// The targets whose reduction finished.
fn reduced(run: &Run) -> Vec<String> {
    run.messages()
        .iter()
        .filter(|m| m["reason"] == "reduction-finished")
        .map(|m| m["target"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn a_crate_that_does_not_build_fails_only_its_own_artifacts() {
    let (_dir, root, good) = workspace();
    let run = reduce(&root);
    // A build failed, and the exit code says so at the end.
    run.expect_code(8);
    assert_eq!(reduced(&run), ["good_target"], "{}", run.stdout());
    assert_eq!(fs::read(minimized_path(&good)).unwrap(), b"BUG");
    let errors: Vec<String> = run
        .messages()
        .iter()
        .filter(|m| m["reason"] == "error")
        .map(|m| m["message"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        errors.len() == 1 && errors[0].contains("`broken-fuzz`"),
        "{errors:?}"
    );
}

#[test]
fn manifest_path_naming_one_fuzz_crate_selects_only_that_crate() {
    let (_dir, root, good) = workspace();
    let run = reduce(&root.join("good/fuzz"));
    run.expect_code(0);
    assert_eq!(reduced(&run), ["good_target"], "{}", run.stdout());
    assert!(!run.stdout().contains("broken"), "{}", run.stdout());
    assert_eq!(fs::read(minimized_path(&good)).unwrap(), b"BUG");
}
