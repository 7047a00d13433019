//! `cargo reduce` on afl.rs crates and AFL++ output that is wrong or odd:
//! one line, a distinct exit code, nothing written into AFL's output; on
//! copies of `cargo-reduce/tests-fixtures/afl-demo` with instance
//! directories laid out as afl-fuzz lays them out.

use std::fs;
use std::path::{Path, PathBuf};

use crate::fuzz_fixture::{
    afl_instance, cargo_reduce, copy_tree, fixture_copy, reduces_nothing, repo, snapshot,
};
use crate::recycled::RecycledDir;
use crate::util::Run;

/// `cargo reduce --manifest-path CRATE --afl-out OUT`.
fn reduce_afl_out(crate_dir: &Path, out: &Path) -> Run {
    cargo_reduce(&[
        "reduce",
        "--manifest-path",
        crate_dir.to_str().unwrap(),
        "--afl-out",
        out.to_str().unwrap(),
    ])
}

const CRASH: &str = "id:000000,sig:06,src:000000,time:12,execs:34,op:havoc,rep:2";

#[test]
fn an_afl_out_that_is_no_afl_output_is_refused() {
    let (dir, crate_dir) = fixture_copy("afl-demo");
    let plain = dir.path().join("plain");
    fs::create_dir_all(plain.join("crashes")).unwrap();
    let run = reduce_afl_out(&crate_dir, &plain);
    run.expect_code(3);
    let line = run.error_line();
    assert!(
        line.contains("is not an AFL++ output directory") && line.contains("--afl-out"),
        "{line}"
    );
}

/// An AFL++ campaign that found nothing yet says so, naming its
/// instances, rather than listing every place artifacts could be.
#[test]
fn an_afl_out_without_crashes_says_its_instances_have_none() {
    let (dir, crate_dir) = fixture_copy("afl-demo");
    let out = dir.path().join("out");
    afl_instance(&out, "default", "/w/target/debug/bytes", &[]);
    let run = reduce_afl_out(&crate_dir, &out);
    run.expect_code(0);
    assert!(
        run.stderr()
            .contains("the 1 AFL++ instance(s) found have no crash or hang yet"),
        "{}",
        run.stderr()
    );
}

#[test]
fn an_instance_whose_binary_no_target_builds_is_reported_and_skipped() {
    let (dir, crate_dir) = fixture_copy("afl-demo");
    let out = dir.path().join("out");
    let unknown = afl_instance(
        &out,
        "default",
        "/elsewhere/target/debug/other",
        &[(CRASH, b"BUGx")],
    );
    let empty = afl_instance(&out, "empty", "/w/target/debug/bytes", &[]);
    let before = snapshot(&out);
    let run = reduce_afl_out(&crate_dir, &out);
    run.expect_code(0);
    let stderr = run.stderr();
    assert!(
        stderr.contains(&format!(
            "AFL++ instance `{}`",
            fs::canonicalize(&unknown).unwrap().display()
        )) && stderr.contains("/elsewhere/target/debug/other")
            && stderr.contains("skipped"),
        "{stderr}"
    );
    assert!(
        !stderr.contains(&empty.display().to_string()),
        "an empty instance is no warning: {stderr}"
    );
    assert_eq!(snapshot(&out), before, "AFL's output is untouched");
}

#[test]
fn a_crash_with_colons_and_commas_is_reduced_beside_the_crate_never_in_afl_out() {
    let (dir, crate_dir) = fixture_copy("afl-demo");
    let out = dir.path().join("out");
    afl_instance(
        &out,
        "main",
        "/w/target/debug/bytes",
        &[(CRASH, b"BUG\x05 and more bytes after the bug")],
    );
    let lock = fs::read(crate_dir.join("Cargo.lock")).unwrap();
    let before = snapshot(&out);
    let args = [
        "reduce",
        "--manifest-path",
        crate_dir.to_str().unwrap(),
        "--afl-out",
        out.to_str().unwrap(),
        "--message-format",
        "json",
    ];
    let run = cargo_reduce(&args);
    run.expect_code(0);
    let result = crate_dir.join("artifacts/bytes/minimized-from-afl-main-id_000000-sig_06");
    // The lowest byte after `BUG` by the search's order, where `'0'` comes first.
    assert_eq!(fs::read(&result).unwrap(), b"BUG0", "{}", run.stdout());
    let finished = run
        .messages()
        .into_iter()
        .find(|m| m["reason"] == "reduction-finished")
        .expect("a reduction");
    assert!(finished["input"].as_str().unwrap().ends_with(CRASH));
    assert_eq!(snapshot(&out), before, "AFL's output is untouched");
    assert_eq!(fs::read(crate_dir.join("Cargo.lock")).unwrap(), lock);
    // Done: a second run finds the result and reduces nothing.
    reduces_nothing(&args);
}

#[test]
fn afl_from_a_path_says_what_to_do() {
    let (dir, crate_dir) = fixture_copy("afl-demo");
    let lock = crate_dir.join("Cargo.lock");
    let text = fs::read_to_string(&lock).unwrap();
    let local = text.replacen(
        "name = \"afl\"\nversion = \"0.18.2\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"",
        "name = \"afl\"\nversion = \"0.18.2\"",
        1,
    );
    assert_ne!(local, text, "the lock names afl from crates.io");
    fs::write(&lock, local).unwrap();
    let out = dir.path().join("out");
    afl_instance(
        &out,
        "default",
        "/w/target/debug/bytes",
        &[(CRASH, b"BUG\x01")],
    );
    let run = reduce_afl_out(&crate_dir, &out);
    run.expect_code(8);
    let line = run.error_line();
    assert!(
        line.contains("gets afl from a path that no package of its workspace names")
            && line.contains("depend on the crates.io release"),
        "{line}"
    );
}

#[test]
fn an_afl_version_the_stand_in_does_not_cover_is_named() {
    let (dir, crate_dir) = fixture_copy("afl-demo");
    let lock = crate_dir.join("Cargo.lock");
    let text = fs::read_to_string(&lock).unwrap();
    fs::write(
        &lock,
        text.replacen(
            "name = \"afl\"\nversion = \"0.18.2\"",
            "name = \"afl\"\nversion = \"0.1.5\"",
            1,
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    afl_instance(
        &out,
        "default",
        "/w/target/debug/bytes",
        &[(CRASH, b"BUG\x01")],
    );
    let run = reduce_afl_out(&crate_dir, &out);
    run.expect_code(8);
    let line = run.error_line();
    assert!(
        line.contains("afl 0.1.5") && line.contains("0.2 to 0.18"),
        "{line}"
    );
}

/// afl.rs 0.8's forms: typed closures decoded through arbitrary 0.4's
/// `RingBuffer`, and the deprecated `read_stdio_bytes`.
#[test]
fn afl_0_8_forms_are_reduced_too() {
    let dir = RecycledDir::new("afl-0.8");
    let crate_dir = dir.path().join("afl-old");
    copy_tree(
        &repo().join("cargo-reduce/tests-fixtures/afl-0.8"),
        &crate_dir,
    );
    let out = crate_dir.join("out");
    afl_instance(
        &out,
        "typed",
        "target/debug/typed",
        &[(CRASH, b"\xc8\xc8\x00\x01\x02\x03junk")],
    );
    afl_instance(&out, "stdio", "target/debug/stdio", &[(CRASH, b"BADxxxxx")]);
    let run = reduce_crate(&crate_dir);
    run.expect_code(0);
    let artifacts = crate_dir.join("artifacts");
    assert_eq!(
        fs::read(artifacts.join("stdio/minimized-from-afl-stdio-id_000000-sig_06")).unwrap(),
        b"BAD"
    );
    let typed = run
        .messages()
        .into_iter()
        .find(|m| m["reason"] == "reduction-finished" && m["target"] == "typed")
        .expect("typed reduced");
    assert_eq!(typed["reduced_bytes"], 2, "{typed}");
    assert!(
        typed["debug"].as_str().unwrap().contains("a: 101"),
        "{typed}"
    );
}

/// A copy of the afl-0.7 fixture with one crash per target (file name,
/// content), laid out as `cargo afl fuzz -o out/<target>` leaves them.
fn afl_0_7(crashes: &[(&str, &[u8])]) -> (RecycledDir, PathBuf) {
    let dir = RecycledDir::new("afl-0.7");
    let crate_dir = dir.path().join("afl-0.7");
    copy_tree(
        &repo().join("cargo-reduce/tests-fixtures/afl-0.7"),
        &crate_dir,
    );
    for (target, bytes) in crashes {
        afl_instance(
            &crate_dir.join("out").join(target),
            "default",
            &format!("target/debug/{target}"),
            &[(CRASH, bytes)],
        );
    }
    (dir, crate_dir)
}

/// `cargo reduce --manifest-path CRATE --message-format json`: the AFL++
/// output in `CRATE/out`.
fn reduce_crate(crate_dir: &Path) -> Run {
    cargo_reduce(&[
        "reduce",
        "--manifest-path",
        crate_dir.to_str().unwrap(),
        "--message-format",
        "json",
    ])
}

/// [`reduce_crate`]; asserts that each of `expected` (target, result) was
/// reduced to it.
fn reduce_each(crate_dir: &Path, expected: &[(&str, &[u8])]) {
    reduce_crate(crate_dir).expect_code(0);
    for (target, result) in expected {
        let path = crate_dir
            .join("artifacts")
            .join(target)
            .join("minimized-from-afl-default-id_000000-sig_06");
        let got = fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(&got[..], *result, "{target}");
    }
}

/// afl.rs 0.7's forms (ttf-parser's `afl::fuzz!` under `#[macro_use]`,
/// `fuzz_nohook!`, `afl::fuzz(hook, …)`, `read_stdio_bytes`) and afl.rs
/// 0.5's in a 2015-edition target (xmlparser's `use afl::fuzz;`): every
/// crash is reduced, and the lock stays.
#[test]
fn afl_0_7_forms_are_reduced() {
    let crashes: [(&str, &[u8]); 5] = [
        ("glyph", b"BADxxxx"),
        ("nohook", b"CAUGHTzzEND"),
        ("function", b"aaBUGaa"),
        ("stdio", b"OLDxxxx"),
        ("legacy", b"aa<x>aa"),
    ];
    let (_dir, crate_dir) = afl_0_7(&crashes);
    let lock = fs::read(crate_dir.join("Cargo.lock")).unwrap();
    reduce_each(
        &crate_dir,
        &[
            ("glyph", b"BAD"),
            ("nohook", b"END"),
            ("function", b"BUG"),
            ("stdio", b"OLD"),
            ("legacy", b"<x>"),
        ],
    );
    assert_eq!(fs::read(crate_dir.join("Cargo.lock")).unwrap(), lock);
}

/// afl.rs 0.4's `afl::fuzz` takes only the closure (its panic hook always
/// on): a target written for 0.4 builds and is reduced.
#[test]
fn afl_0_4_fuzz_takes_only_the_closure() {
    let (_dir, crate_dir) = afl_0_7(&[("function", b"aaBUGaa")]);
    let edit = |file: &str, from: &str, to: &str| {
        let path = crate_dir.join(file);
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{from} in {file}");
        fs::write(&path, text.replacen(from, to, 1)).unwrap();
    };
    edit("Cargo.toml", "afl = \"=0.7.0\"", "afl = \"=0.4.3\"");
    edit(
        "Cargo.lock",
        "name = \"afl\"\nversion = \"0.7.0\"",
        "name = \"afl\"\nversion = \"0.4.3\"",
    );
    edit(
        "src/bin/function.rs",
        "afl::fuzz(true, |data|",
        "afl::fuzz(|data|",
    );
    reduce_each(&crate_dir, &[("function", b"BUG")]);
}

/// An afl.rs crate's `artifacts/<target>/` holds the inputs its user
/// saved there (AFL++ writes nothing there): each is reduced like an
/// AFL++ crash, beside itself, and cargo-reduce's results are no inputs.
#[test]
fn inputs_saved_in_an_afl_targets_artifacts_directory_are_reduced() {
    let (_dir, crate_dir) = fixture_copy("afl-demo");
    let saved = crate_dir.join("artifacts/bytes");
    fs::create_dir_all(&saved).unwrap();
    fs::write(saved.join(CRASH), b"BUG\x05 and more bytes after the bug").unwrap();
    let args = [
        "reduce",
        "--manifest-path",
        crate_dir.to_str().unwrap(),
        "--message-format",
        "json",
    ];
    let run = cargo_reduce(&args);
    run.expect_code(0);
    let result = saved.join(format!("minimized-from-{CRASH}"));
    assert_eq!(fs::read(&result).unwrap(), b"BUG0", "{}", run.stdout());
    assert_eq!(
        fs::read(saved.join(CRASH)).unwrap(),
        b"BUG\x05 and more bytes after the bug",
        "the input is left as it was"
    );
    // Done: its result is found, and is no input of its own.
    reduces_nothing(&args);
}
