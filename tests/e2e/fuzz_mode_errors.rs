//! `cargo reduce` on bad fuzz projects and artifacts: one line, a distinct
//! exit code, nothing written.

use std::fs;

use crate::fuzz_fixture::{artifact, cargo_reduce, fresh_copy, shared};
use crate::util::{Run, Sandbox};

#[test]
fn no_fuzz_crate() {
    let sb = Sandbox::new();
    sb.write(
        "Cargo.toml",
        "[package]\nname = \"plain\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    fs::create_dir(sb.join("src")).unwrap();
    sb.write("src/lib.rs", "");
    let run = sb.run(&["reduce"]);
    run.expect_code(3);
    assert!(
        run.error_line()
            .contains("no cargo-fuzz crate or afl.rs target found"),
        "{}",
        run.stderr()
    );
}

#[test]
fn unknown_target() {
    let run = cargo_reduce(&[
        "reduce",
        "--manifest-path",
        shared().to_str().unwrap(),
        "--fuzz-target",
        "nope",
    ]);
    run.expect_code(2);
    assert!(
        run.error_line().contains("nope") && run.stderr().contains("byte_parser"),
        "names the known targets: {}",
        run.stderr()
    );
}

/// Options before a subcommand (`cargo reduce --manifest-path X list`)
/// make it the default mode's input: said so, not "input `list` does not
/// exist".
#[test]
fn a_subcommand_after_options_is_named() {
    let run = cargo_reduce(&[
        "reduce",
        "--manifest-path",
        shared().to_str().unwrap(),
        "list",
    ]);
    run.expect_error(2, "`list` is a subcommand");
}

#[test]
fn missing_artifact() {
    let fuzz = shared();
    let missing = fuzz.join("artifacts/byte_parser/crash-0000");
    let run = cargo_reduce(&[
        "reduce",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        missing.to_str().unwrap(),
    ]);
    run.expect_code(3);
    assert!(run.error_line().contains("crash-0000"), "{}", run.stderr());
}

#[test]
fn artifact_that_does_not_crash() {
    let fuzz = shared();
    let dir = tempfile::tempdir().unwrap();
    let harmless = dir.path().join("crash-harmless");
    fs::write(&harmless, b"hello").unwrap();
    let run = cargo_reduce(&[
        "reduce",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        harmless.to_str().unwrap(),
        "--fuzz-target",
        "byte_parser",
    ]);
    run.expect_code(5);
    assert!(
        run.error_line().contains("does not reproduce"),
        "{}",
        run.stderr()
    );
    assert!(!dir.path().join("minimized-from-crash-harmless").exists());
}

/// Another target's artifact under a wrong --fuzz-target: the error says
/// whose artifact it is, given by its path or by its bare name inside
/// its folder.
#[test]
fn another_targets_artifact_names_its_target() {
    let (_dir, fuzz) = fresh_copy();
    let crash = artifact(&fuzz, "byte_parser");
    let manifest = fuzz.join("Cargo.toml");
    let expected = "it is in the artifacts of `byte_parser`, not `abort`: check --fuzz-target";
    for (given, cwd) in [
        (crash.to_str().unwrap(), fuzz.as_path()),
        (
            crash.file_name().unwrap().to_str().unwrap(),
            crash.parent().unwrap(),
        ),
    ] {
        let args = [
            "reduce",
            "--manifest-path",
            manifest.to_str().unwrap(),
            "--fuzz-target",
            "abort",
            "--sanitizer",
            "none",
            given,
        ];
        let mut command = crate::fuzz_fixture::command(&args, &crate::fuzz_fixture::target_dir());
        command.current_dir(cwd);
        Run(command.output().unwrap()).expect_error(5, expected);
    }
}

/// One target that does not compile fails its own artifacts, with the
/// compiler's error; the other targets are built and reduced.
#[test]
fn a_target_that_does_not_compile_shows_its_error_and_the_others_go_on() {
    let (_dir, fuzz) = fresh_copy();
    let source = fuzz.join("fuzz_targets/byte_parser.rs");
    let text = fs::read_to_string(&source).unwrap();
    fs::write(
        &source,
        format!("{text}\nfn broken() -> u32 {{ \"not a number\" }}\n"),
    )
    .unwrap();
    let crash = artifact(&fuzz, "byte_parser");
    let abort = artifact(&fuzz, "abort");
    let run = cargo_reduce(&[
        "reduce",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        crash.to_str().unwrap(),
        abort.to_str().unwrap(),
    ]);
    run.expect_code(8);
    let stderr = run.stderr();
    assert!(
        run.error_line()
            .contains("cannot build fuzz target `byte_parser` of `fuzz-targets`"),
        "{stderr}"
    );
    assert!(
        abort
            .with_file_name(format!(
                "minimized-from-{}",
                abort.file_name().unwrap().to_string_lossy()
            ))
            .exists(),
        "the target that builds is reduced: {stderr}"
    );
    assert!(
        stderr.contains("E0308") || stderr.contains("mismatched types"),
        "cargo's error is shown: {stderr}"
    );
    // helper-57: "Built 2 target(s)" with one that did not compile.
    assert!(
        stderr.contains("Built 1 target(s) of fuzz-targets"),
        "{stderr}"
    );
    assert!(!crash
        .with_file_name(format!(
            "minimized-from-{}",
            crash.file_name().unwrap().to_string_lossy()
        ))
        .exists());
}

/// Another engine's target in a cargo-fuzz crate (markdown-rs keeps a
/// honggfuzz one beside its libFuzzer one), which does not link against
/// the stand-in: one line saying why, not the linker's kilobytes.
#[test]
fn a_bin_that_is_no_libfuzzer_target_is_named_so() {
    let (dir, fuzz) = fresh_copy();
    fs::write(
        fuzz.join("fuzz_targets/other_engine.rs"),
        "extern \"C\" {\n    fn HF_ITER(buf: *mut *const u8, len: *mut usize);\n}\n\nfn main() {\n    let (mut buf, mut len) = (std::ptr::null(), 0);\n    unsafe { HF_ITER(&mut buf, &mut len) };\n}\n",
    )
    .unwrap();
    let manifest = fuzz.join("Cargo.toml");
    let mut text = fs::read_to_string(&manifest).unwrap();
    text.push_str("\n[[bin]]\nname = \"other_engine\"\npath = \"fuzz_targets/other_engine.rs\"\ntest = false\ndoc = false\n");
    fs::write(&manifest, text).unwrap();
    let input = dir.path().join("input");
    fs::write(&input, b"x").unwrap();
    let run = cargo_reduce(&[
        "reduce",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        "--fuzz-target",
        "other_engine",
        input.to_str().unwrap(),
    ]);
    run.expect_error(
        8,
        "does not use libfuzzer-sys, so it is no libfuzzer fuzz target",
    );
    assert!(run.stderr().len() < 2000, "{}", run.stderr());
}

/// A version the stand-in does not implement: the hint names the edit
/// that works (the manifest's requirement), not only `cargo update`.
#[test]
fn unsupported_libfuzzer_sys_version() {
    let (_dir, fuzz) = fresh_copy();
    let lock_path = fuzz.join("Cargo.lock");
    let lock = fs::read_to_string(&lock_path).unwrap();
    let old = lock.replace(
        "name = \"libfuzzer-sys\"\nversion = \"0.4.",
        "name = \"libfuzzer-sys\"\nversion = \"0.5.",
    );
    assert_ne!(old, lock);
    fs::write(&lock_path, &old).unwrap();
    let run = cargo_reduce(&["reduce", "--manifest-path", fuzz.to_str().unwrap()]);
    run.expect_code(8);
    let line = run.error_line();
    assert!(
        line.contains("does not support")
            && line.contains(&format!(
                "in {} set libfuzzer-sys = \"0.4\"",
                fuzz.join("Cargo.toml").display()
            )),
        "{line}"
    );
    assert_eq!(
        fs::read_to_string(&lock_path).unwrap(),
        old,
        "the lock file is left alone"
    );
}

#[test]
fn unusable_tmpdir_is_refused_before_the_build() {
    let sb = Sandbox::new();
    let missing = sb.join("no-such-dir");
    let run = Run(crate::fuzz_fixture::command(
        &[
            "reduce",
            "--manifest-path",
            shared().to_str().unwrap(),
            "--force",
        ],
        &crate::fuzz_fixture::target_dir(),
    )
    .env("TMPDIR", &missing)
    .output()
    .expect("spawn cargo-reduce"));
    // The environment's problem: not a dead worker (1) or a build failure.
    assert_eq!(run.code(), 10, "{}", run.stderr());
    let stderr = run.stderr();
    assert_eq!(
        stderr.lines().count(),
        1,
        "one line, nothing built: {stderr}"
    );
    assert!(
        run.error_line()
            .contains(&format!("`{}`", missing.display()))
            && stderr.contains("set TMPDIR to a writable directory"),
        "{stderr}"
    );
    assert!(!missing.exists(), "TMPDIR is not created");
}
