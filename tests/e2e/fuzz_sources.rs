//! `cargo reduce` on fuzz crates as they are found in the wild: libfuzzer-sys
//! 0.3 (arbitrary 0.4), no `Cargo.lock` (or a workspace lock without the
//! fuzz crate), libfuzzer-sys from git (0.1 and 0.4), 0.1.1 from crates.io and from a path. Each runs unprepared on a copy of a
//! fixture under `cargo-reduce/tests-fixtures/`, and leaves the user's
//! files as they were.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::fuzz_fixture::{cargo_reduce, fixture_copy, snapshot};
use crate::util::Run;

/// Writes artifact `name` of `target` under `fuzz/artifacts/`.
fn artifact(fuzz: &Path, target: &str, name: &str, bytes: &[u8]) -> PathBuf {
    let dir = fuzz.join("artifacts").join(target);
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    fs::write(&path, bytes).unwrap();
    path
}

/// `cargo reduce --manifest-path fuzz --message-format json ARTIFACTS…`.
fn reduce(fuzz: &Path, artifacts: &[&Path]) -> Run {
    let mut args = vec![
        "reduce",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        "--message-format",
        "json",
    ];
    args.extend(artifacts.iter().map(|a| a.to_str().unwrap()));
    cargo_reduce(&args)
}

/// The `minimized-from-` result of `artifact`.
fn minimized(artifact: &Path) -> Vec<u8> {
    let path = crate::fuzz_fixture::minimized_path(artifact);
    fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// libfuzzer-sys 0.3.5's forms, `|data|`, `|data: &[u8]|` and a typed
/// closure over arbitrary 0.4's `Arbitrary` (which 1.x's would not
/// compile): every artifact reproduces and is reduced, and the lock stays.
#[test]
fn libfuzzer_sys_0_3_targets_are_reduced() {
    let (_dir, fuzz) = fixture_copy("libfuzzer-sys-0.3");
    let lock = fs::read(fuzz.join("Cargo.lock")).unwrap();
    let bytes = artifact(&fuzz, "bytes", "crash-1", b"BADxxxxx");
    let slice = artifact(&fuzz, "slice", "crash-2", b"yyyyEND");
    let typed = artifact(&fuzz, "typed", "crash-3", b"\xff\x00\x07junk");
    let run = reduce(&fuzz, &[&bytes, &slice, &typed]);
    run.expect_code(0);
    assert_eq!(minimized(&bytes), b"BAD");
    assert_eq!(minimized(&slice), b"END");
    // The size hint (3) rejects shorter inputs, as 0.3.1 and later do.
    let red = minimized(&typed);
    assert_eq!((red.len(), &red[..2]), (3, &b"\xff\x00"[..]), "{red:?}");
    let shown = run
        .messages()
        .into_iter()
        .find(|m| m["reason"] == "reduction-finished" && m["target"] == "typed")
        .expect("typed reduced");
    assert!(
        shown["debug"].as_str().unwrap().contains("r: 255"),
        "{shown}"
    );
    assert_eq!(fs::read(fuzz.join("Cargo.lock")).unwrap(), lock);
}

/// libfuzzer-sys 0.3.0 decodes inputs shorter than the type's size hint
/// (arbitrary 0.4 pads them with zeros), so one byte is enough there.
#[test]
fn libfuzzer_sys_0_3_0_decodes_inputs_shorter_than_the_size_hint() {
    let (_dir, fuzz) = fixture_copy("libfuzzer-sys-0.3");
    let lock_path = fuzz.join("Cargo.lock");
    let text = fs::read_to_string(&lock_path).unwrap();
    let old = text.replace(
        "name = \"libfuzzer-sys\"\nversion = \"0.3.5\"",
        "name = \"libfuzzer-sys\"\nversion = \"0.3.0\"",
    );
    assert_ne!(old, text);
    fs::write(&lock_path, &old).unwrap();
    let typed = artifact(&fuzz, "typed", "crash-3", b"\xff\x00\x07junk");
    reduce(&fuzz, &[&typed]).expect_code(0);
    assert_eq!(minimized(&typed), b"\xff");
    assert_eq!(fs::read_to_string(&lock_path).unwrap(), old);
}

/// A workspace with no Cargo.lock: one is resolved for the run (and said
/// so in one line); nothing is written into the user's folder but the
/// result.
#[test]
fn a_crate_without_a_lock_gets_one_for_the_run() {
    let run = bug_reduced_and_only_the_result_written("no-lock");
    let warnings = run.warnings();
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with("no Cargo.lock in ") && w.contains("resolved one for this run")),
        "{warnings:?}"
    );
}

/// A workspace lock written before the fuzz crate was added (it lacks
/// libfuzzer-sys): the missing part is resolved for the run, as `cargo
/// fuzz build` would, and the lock stays as it was.
#[test]
fn a_workspace_lock_without_the_fuzz_crate_is_completed_for_the_run() {
    let (_dir, root) = fixture_copy("no-lock");
    let lock = root.join("Cargo.lock");
    let text = "version = 4\n\n[[package]]\nname = \"app\"\nversion = \"0.1.0\"\n";
    fs::write(&lock, text).unwrap();
    let fuzz = root.join("fuzz");
    let crash = artifact(&fuzz, "bytes", "crash-1", b"BUGxxxx");
    let run = reduce(&fuzz, &[&crash]);
    run.expect_code(0);
    assert_eq!(minimized(&crash), b"BUG");
    let warnings = run.warnings();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("does not lock libfuzzer-sys") && w.contains("unchanged")),
        "{warnings:?}"
    );
    assert_eq!(fs::read_to_string(&lock).unwrap(), text);
}

/// Dependencies cargo cannot resolve (no lock to fall back on): the
/// resolution's own exit code, not a build failure, and cargo's reason.
#[test]
fn a_crate_whose_dependencies_do_not_resolve_is_not_a_build_failure() {
    let (_dir, root) = fixture_copy("no-lock");
    let fuzz = root.join("fuzz");
    edit_manifest(
        &fuzz,
        "app = { path = \"../app\" }",
        "app = { path = \"../app\", version = \"2\" }",
    );
    let crash = artifact(&fuzz, "bytes", "crash-1", b"BUGxxxx");
    let run = reduce(&fuzz, &[&crash]);
    run.expect_code(13);
    let line = run.error_line();
    assert!(
        line.contains("cannot resolve the dependencies of") && line.contains("app"),
        "{line}"
    );
    assert!(!root.join("Cargo.lock").exists());
    assert!(!crate::fuzz_fixture::minimized_path(&crash).exists());
}

/// `git` with `args` in `dir`, with a fixed author, so it runs anywhere.
fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=cargo-reduce",
            "-c",
            "user.email=t@example.com",
        ])
        .args(args)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// Makes `root/engine` a git repository, puts its `file://` URL in place of
/// `@ENGINE_GIT@` in `root/fuzz/Cargo.toml` and makes the fuzz crate's lock
/// (cargo fetches a `file://` URL like any other, with no network).
/// Returns the URL and the lock.
fn git_engine(root: &Path) -> (String, String) {
    let engine = root.join("engine");
    git(&engine, &["init", "-q", "-b", "main"]);
    git(&engine, &["add", "-A"]);
    git(&engine, &["commit", "-q", "-m", "engine"]);
    let manifest = root.join("fuzz/Cargo.toml");
    let url = format!("file://{}", engine.display());
    let text = fs::read_to_string(&manifest).unwrap();
    fs::write(&manifest, text.replace("@ENGINE_GIT@", &url)).unwrap();
    let status = Command::new("cargo")
        .args(["generate-lockfile", "--quiet", "--manifest-path"])
        .arg(&manifest)
        .status()
        .unwrap();
    assert!(status.success(), "the fixture's lock is made");
    let lock = fs::read_to_string(root.join("fuzz/Cargo.lock")).unwrap();
    (url, lock)
}

/// libfuzzer-sys from git (`{ git = "…", branch = "main" }`): the stand-in
/// is patched in for that repository and the lock stays as it is. The
/// repository is a local one made here, holding a libfuzzer-sys whose
/// `fuzz_target!` does not compile: the build succeeds only if the patch
/// replaced it.
#[test]
fn libfuzzer_sys_from_git_is_patched_by_its_url() {
    let (_dir, root) = fixture_copy("libfuzzer-sys-git");
    let (url, lock) = git_engine(&root);
    assert!(
        lock.contains(&format!("source = \"git+{url}?branch=main#")),
        "{lock}"
    );
    let fuzz = root.join("fuzz");
    let crash = artifact(&fuzz, "bytes", "crash-1", b"BUGxxxx");
    let run = reduce(&fuzz, &[&crash]);
    run.expect_code(0);
    assert_eq!(minimized(&crash), b"BUG");
    assert_eq!(fs::read_to_string(fuzz.join("Cargo.lock")).unwrap(), lock);
}

/// libfuzzer-sys 0.1.0 from git, as the archived rust-fuzz/libfuzzer-sys
/// repository serves it (rustls's committed lock): `#[macro_use] extern
/// crate`, `|data|`, and a typed target over arbitrary 0.2, decoded from a
/// `RingBuffer` and without `Debug` (so reduced as bytes). Every artifact
/// reproduces and is reduced; the lock stays.
#[test]
fn libfuzzer_sys_0_1_from_git_is_reduced() {
    let (_dir, root) = fixture_copy("libfuzzer-sys-0.1");
    let (_, lock) = git_engine(&root);
    assert!(lock.contains("name = \"libfuzzer-sys\"\nversion = \"0.1.0\""));
    let fuzz = root.join("fuzz");
    let message = artifact(&fuzz, "message", "crash-1", b"BADxxxx");
    let bytes = artifact(&fuzz, "bytes", "crash-2", b"yyENDyEND");
    let typed = artifact(&fuzz, "typed", "crash-3", b"\xff\x00\x07junk");
    let run = reduce(&fuzz, &[&message, &bytes, &typed]);
    run.expect_code(0);
    assert_eq!(minimized(&message), b"BAD");
    assert_eq!(minimized(&bytes), b"END");
    // A ring buffer wraps: one byte would decode as red = green = 0xff.
    assert_eq!(minimized(&typed), b"\xff\x00");
    assert_eq!(fs::read_to_string(fuzz.join("Cargo.lock")).unwrap(), lock);
}

/// libfuzzer-sys 0.1.1 from crates.io (over arbitrary 0.1), its lock
/// committed: the stand-in is patched over the registry's release, the
/// artifact is reduced, and the lock stays.
#[test]
fn libfuzzer_sys_0_1_1_from_crates_io_is_reduced() {
    let (_dir, fuzz) = fixture_copy("libfuzzer-sys-0.1.1");
    let lock = fs::read_to_string(fuzz.join("Cargo.lock")).unwrap();
    assert!(lock.contains("name = \"libfuzzer-sys\"\nversion = \"0.1.1\"\nsource = \"registry+"));
    let crash = artifact(&fuzz, "bytes", "crash-1", b"xxBUGyy");
    let run = reduce(&fuzz, &[&crash]);
    run.expect_code(0);
    assert_eq!(minimized(&crash), b"BUG");
    assert_eq!(fs::read_to_string(fuzz.join("Cargo.lock")).unwrap(), lock);
}

/// libfuzzer-sys from a path, in rust-fuzz/libfuzzer's layout (the engine
/// is the workspace root, the fuzz crate a member, no lock): the stand-in
/// replaces the path source (the one at the root does not compile), and
/// nothing is written into the user's folder but the result.
#[test]
fn libfuzzer_sys_from_a_path_is_replaced() {
    bug_reduced_and_only_the_result_written("libfuzzer-sys-path");
}

/// The same with the workspace's lock committed: it stays as it was.
#[test]
fn libfuzzer_sys_from_a_path_keeps_the_lock() {
    let (_dir, root) = fixture_copy("libfuzzer-sys-path");
    let status = Command::new("cargo")
        .args(["generate-lockfile", "--quiet", "--manifest-path"])
        .arg(root.join("Cargo.toml"))
        .status()
        .unwrap();
    assert!(status.success(), "the fixture's lock is made");
    let lock = fs::read_to_string(root.join("Cargo.lock")).unwrap();
    let fuzz = root.join("fuzz");
    let crash = artifact(&fuzz, "bytes", "crash-1", b"BUGxxxxxx");
    let run = reduce(&fuzz, &[&crash]);
    run.expect_code(0);
    assert_eq!(minimized(&crash), b"BUG");
    assert!(run.warnings().is_empty(), "the workspace's lock is used");
    assert_eq!(fs::read_to_string(root.join("Cargo.lock")).unwrap(), lock);
}

/// Reduces a `bytes` crash `BUGxxxx` in the `fuzz/` crate of a copy of
/// fixture `name` to `BUG`, and asserts that nothing but the result was
/// written into the copy; returns the run.
fn bug_reduced_and_only_the_result_written(name: &str) -> Run {
    let (_dir, root) = fixture_copy(name);
    let fuzz = root.join("fuzz");
    let crash = artifact(&fuzz, "bytes", "crash-1", b"BUGxxxx");
    let before = snapshot(&root);
    let run = reduce(&fuzz, &[&crash]);
    run.expect_code(0);
    assert_eq!(minimized(&crash), b"BUG");
    only_the_result_is_written(&root, before, &crash);
    run
}

/// Asserts that the files under `root` are `before` and the result of
/// `crash`.
fn only_the_result_is_written(root: &Path, before: Vec<(PathBuf, Vec<u8>)>, crash: &Path) {
    let mut after = snapshot(root);
    after.retain(|(path, _)| *path != crate::fuzz_fixture::minimized_path(crash));
    assert_eq!(after, before, "only the result is written");
}

/// Replaces `from` by `to` in the fixture's manifest `fuzz/Cargo.toml`.
fn edit_manifest(fuzz: &Path, from: &str, to: &str) {
    let manifest = fuzz.join("Cargo.toml");
    let text = fs::read_to_string(&manifest).unwrap();
    let edited = text.replace(from, to);
    assert_ne!(edited, text, "{from} is in {}", manifest.display());
    fs::write(&manifest, edited).unwrap();
}
