//! Copies of the bundled `fuzz-targets/` crate with its artifacts, so tests
//! never write into the repository's corpus. Builds go to one directory
//! under cargo's test tmpdir, shared by all tests and runs (incremental),
//! and copies to recycled directories, where they stay warm.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::recycled::RecycledDir;
use crate::util::Run;

/// The `reduction-finished` messages of a `--message-format json` run.
/// Whether a nightly toolchain is installed (the ASan and `#![feature]`
/// builds need one); prints why test `test` is skipped when not.
pub fn nightly(test: &str) -> bool {
    let found = Command::new("rustc")
        .arg("-V")
        .env("RUSTUP_TOOLCHAIN", "nightly")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("{test}: skipped: no nightly toolchain (`rustup toolchain install nightly`)");
    }
    found
}

pub fn finished(run: &Run) -> Vec<serde_json::Value> {
    run.messages()
        .into_iter()
        .filter(|m| m["reason"] == "reduction-finished")
        .collect()
}

/// A crash's file name as afl-fuzz writes it.
pub const AFL_CRASH: &str = "id:000000,sig:06,src:000000,time:12,execs:34,op:havoc,rep:2";

/// An instance directory `out/<name>` that ran `binary`, with `crashes`
/// (file name, content) in `crashes/`.
pub fn afl_instance(out: &Path, name: &str, binary: &str, crashes: &[(&str, &[u8])]) -> PathBuf {
    let dir = out.join(name);
    fs::create_dir_all(dir.join("queue")).unwrap();
    fs::create_dir_all(dir.join("crashes")).unwrap();
    fs::write(dir.join("cmdline"), format!("{binary}\n")).unwrap();
    fs::write(
        dir.join("fuzzer_stats"),
        format!("start_time        : 1\nexec_timeout      : 40\ncommand_line      : afl-fuzz -i in -o out -- {binary}\n"),
    )
    .unwrap();
    for (file, content) in crashes {
        fs::write(dir.join("crashes").join(file), content).unwrap();
    }
    dir
}

/// A copy of `cargo-reduce/tests-fixtures/<name>` (artifacts included) in
/// a recycled directory: the directory (emptied when dropped) and the copy.
pub fn fixture_copy(name: &str) -> (RecycledDir, PathBuf) {
    let dir = RecycledDir::new(name);
    let crate_dir = dir.path().join(name);
    copy_tree(
        &repo().join("cargo-reduce/tests-fixtures").join(name),
        &crate_dir,
    );
    (dir, crate_dir)
}

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Copies `from` into `to`, following symlinks, skipping `target/`.
pub fn copy_tree(from: &Path, to: &Path) {
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

/// A fresh copy of fuzz-targets (artifacts included) in a recycled
/// directory.
pub fn fresh_copy() -> (RecycledDir, PathBuf) {
    let dir = RecycledDir::new("fuzz-targets");
    let crate_dir = dir.path().join("fuzz-targets");
    copy_tree(&repo().join("fuzz-targets"), &crate_dir);
    for leftover in written_files(&crate_dir.join("artifacts")) {
        fs::remove_file(leftover).unwrap();
    }
    (dir, crate_dir)
}

/// What cargo-reduce writes beside an artifact (results, partial results,
/// temporary files, other failures a reduction found), as opposed to the
/// artifacts the fixture has.
pub fn is_written_by_us(name: &str) -> bool {
    name.starts_with("minimized-from-")
        || name.contains("-found-reducing-")
        || name.starts_with("partial-from-")
        || name.starts_with(".cargo-reduce-")
}

/// Every file cargo-reduce wrote under `artifacts/` (see [`is_written_by_us`]).
pub fn written_files(artifacts: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for target in fs::read_dir(artifacts).unwrap() {
        for file in fs::read_dir(target.unwrap().path()).unwrap() {
            let path = file.unwrap().path();
            if is_written_by_us(&path.file_name().unwrap().to_string_lossy()) {
                out.push(path);
            }
        }
    }
    out
}

/// One copy shared by the tests that only read it or name artifacts
/// explicitly (so the fuzz crate is built once per test run).
pub fn shared() -> &'static Path {
    static SHARED: OnceLock<(RecycledDir, PathBuf)> = OnceLock::new();
    &SHARED.get_or_init(fresh_copy).1
}

/// The build directory shared by all tests and runs.
pub fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-targets-build")
}

/// `cargo-reduce ARGS…` building into `target_dir`, not started yet.
pub fn command(args: &[&str], target_dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cargo-reduce"));
    command.args(args).env("CARGO_TARGET_DIR", target_dir);
    command
}

/// `cargo-reduce ARGS…` with the shared build directory.
pub fn cargo_reduce(args: &[&str]) -> Run {
    cargo_reduce_in(args, &target_dir())
}

/// `cargo-reduce ARGS…` building into `target_dir`.
pub fn cargo_reduce_in(args: &[&str], target_dir: &Path) -> Run {
    Run(command(args, target_dir)
        .output()
        .expect("spawn cargo-reduce"))
}

/// Where the 1-minimal result of `artifact` goes (libFuzzer's name).
pub fn minimized_path(artifact: &Path) -> PathBuf {
    derived(artifact, "minimized-from-")
}

/// Where a result of `artifact` that is not 1-minimal goes.
pub fn partial_path(artifact: &Path) -> PathBuf {
    derived(artifact, "partial-from-")
}

fn derived(artifact: &Path, prefix: &str) -> PathBuf {
    let name = artifact.file_name().unwrap().to_string_lossy();
    artifact.with_file_name(format!("{prefix}{name}"))
}

/// The artifact of `target` in the copy at `crate_dir`.
pub fn artifact(crate_dir: &Path, target: &str) -> PathBuf {
    let dir = crate_dir.join("artifacts").join(target);
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !is_written_by_us(&p.file_name().unwrap().to_string_lossy()))
        .collect();
    assert_eq!(files.len(), 1, "one artifact in {}", dir.display());
    files.pop().unwrap()
}

/// Every file below `dir` with its content, sorted.
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push((path.clone(), fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

/// The input files of a corpus directory, sorted, with their bytes: what
/// libFuzzer reads (not a hidden folder's files, where the marker is).
/// A hidden file would be read, and fails the test.
pub fn corpus_inputs(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let inputs: Vec<_> = snapshot(dir)
        .into_iter()
        .filter(|(p, _)| {
            let folder = p.parent().unwrap().strip_prefix(dir).unwrap();
            !folder.to_string_lossy().starts_with('.')
        })
        .collect();
    for (path, _) in &inputs {
        let name = path.file_name().unwrap().to_string_lossy();
        assert!(
            !name.starts_with('.'),
            "{} is read as an input",
            path.display()
        );
    }
    inputs
}

/// Runs `cargo-reduce ARGS…` (with `--message-format json`) again and
/// asserts that it succeeds and reduces nothing: every result was found.
pub fn reduces_nothing(args: &[&str]) {
    let again = cargo_reduce(args);
    again.expect_code(0);
    assert!(
        !again
            .messages()
            .iter()
            .any(|m| m["reason"] == "reduction-finished"),
        "{}",
        again.stdout()
    );
}
