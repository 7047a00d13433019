//! `cargo reduce` on a workspace of two afl.rs packages
//! (`cargo-reduce/tests-fixtures/afl-workspace`), one with its own global
//! allocator: their builds share what they can, and a second run compiles
//! nothing (cargo's `fresh` flags, reported as each build's `compiled`
//! units), also when another workspace builds into the same target
//! directory in between.

use std::path::{Path, PathBuf};

use crate::fuzz_fixture::{afl_instance, cargo_reduce_in, copy_tree, repo, AFL_CRASH};
use crate::recycled::RecycledDir;

/// A copy of the workspace with an AFL++ instance per package in `out/`.
fn workspace() -> (RecycledDir, PathBuf) {
    let dir = RecycledDir::new("afl-workspace");
    let root = dir.path().join("afl-workspace");
    copy_tree(
        &repo().join("cargo-reduce/tests-fixtures/afl-workspace"),
        &root,
    );
    for (package, crash) in [("first", "xxONE"), ("second", "yyTWO")] {
        let binary = format!("target/debug/{package}");
        afl_instance(
            &root.join("out"),
            package,
            &binary,
            &[(AFL_CRASH, crash.as_bytes())],
        );
    }
    (dir, root)
}

/// Reduces every input of the workspace at `root` again (`--force`),
/// building into `target_dir`; returns each package's compiled units.
fn reduce(root: &Path, target_dir: &Path) -> Vec<(String, Vec<String>)> {
    let args = [
        "reduce",
        "--manifest-path",
        root.to_str().unwrap(),
        "--all",
        "--force",
        "--message-format",
        "json",
    ];
    let run = cargo_reduce_in(&args, target_dir);
    run.expect_code(0);
    let messages = run.messages();
    let reduced = messages
        .iter()
        .filter(|m| m["reason"] == "reduction-finished")
        .count();
    assert_eq!(reduced, 2, "{}", run.stdout());
    messages
        .iter()
        .filter(|m| m["reason"] == "build-finished")
        .map(|m| {
            let compiled = m["compiled"].as_array().expect("compiled units");
            (
                m["package"].as_str().unwrap().to_string(),
                compiled
                    .iter()
                    .map(|u| u.as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn a_second_run_compiles_nothing_for_either_package() {
    let (_dir, root) = workspace();
    let (_other_dir, other) = workspace();
    // A target directory of its own: the shared one keeps only a few
    // workspaces' builds, and other tests build theirs at the same time.
    let target = tempfile::tempdir().unwrap();
    let reduce = |root: &Path| reduce(root, target.path());
    let first = reduce(&root);
    let packages: Vec<&str> = first.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(packages, ["first", "second"]);
    let nothing = |builds: Vec<(String, Vec<String>)>| {
        for (package, compiled) in builds {
            assert!(compiled.is_empty(), "{package} compiled {compiled:?}");
        }
    };
    nothing(reduce(&root));
    // Another workspace (its sources remapped from another root) built into
    // the same target directory does not undo this one's build.
    reduce(&other);
    nothing(reduce(&root));
}
