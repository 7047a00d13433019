//! Copies of the bundled `fuzz-targets/` crate with its artifacts, so tests
//! never write into the repository's corpus. Builds go to one directory
//! under cargo's test tmpdir, shared by all tests and runs (incremental).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::util::Run;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Copies `from` into `to`, following symlinks, skipping `target/`.
fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == "target" || name == "corpus" {
            continue;
        }
        let path = entry.path();
        if fs::metadata(&path).unwrap().is_dir() {
            copy_tree(&path, &to.join(&name));
        } else {
            fs::copy(&path, to.join(&name)).unwrap();
        }
    }
}

/// A fresh copy of fuzz-targets (artifacts included) in a new temp dir.
pub fn fresh_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let crate_dir = dir.path().join("fuzz-targets");
    copy_tree(&repo().join("fuzz-targets"), &crate_dir);
    for leftover in glob_minimized(&crate_dir.join("artifacts")) {
        fs::remove_file(leftover).unwrap();
    }
    (dir, crate_dir)
}

fn glob_minimized(artifacts: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for target in fs::read_dir(artifacts).unwrap() {
        for file in fs::read_dir(target.unwrap().path()).unwrap() {
            let path = file.unwrap().path();
            if path
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("minimized-from-")
            {
                out.push(path);
            }
        }
    }
    out
}

/// One copy shared by the tests that only read it or name artifacts
/// explicitly (so the fuzz crate is built once per test run).
pub fn shared() -> &'static Path {
    static SHARED: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &SHARED.get_or_init(fresh_copy).1
}

/// `cargo-reduce ARGS…` with the shared build directory.
pub fn cargo_reduce(args: &[&str]) -> Run {
    let target_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-targets-build");
    Run(Command::new(env!("CARGO_BIN_EXE_cargo-reduce"))
        .args(args)
        .env("CARGO_TARGET_DIR", target_dir)
        .output()
        .expect("spawn cargo-reduce"))
}

/// The artifact of `target` in the copy at `crate_dir`.
pub fn artifact(crate_dir: &Path, target: &str) -> PathBuf {
    let dir = crate_dir.join("artifacts").join(target);
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            !p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("minimized-from-")
        })
        .collect();
    assert_eq!(files.len(), 1, "one artifact in {}", dir.display());
    files.pop().unwrap()
}
