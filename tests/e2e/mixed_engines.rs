//! `cargo reduce` on a package that fuzzes with both engines
//! (`cargo-reduce/tests-fixtures/mixed-engines`): a cargo-fuzz crate with an
//! optional `afl`, targets gated by `required-features` (one with its own
//! global allocator), and a plain stdin program. Each target is built with
//! its features by the engine its source calls; the plain program is no
//! target and is never built.

use std::fs;
use std::path::{Path, PathBuf};

use crate::fuzz_fixture::{
    afl_instance, cargo_reduce, cargo_reduce_in, copy_tree, repo, AFL_CRASH,
};
use crate::recycled::RecycledDir;

/// A copy of the crate with one libFuzzer artifact per libFuzzer target and
/// an AFL++ instance (`out/default`) with a crash of the afl.rs target.
fn mixed() -> (RecycledDir, PathBuf) {
    let dir = RecycledDir::new("mixed-engines");
    let crate_dir = dir.path().join("mixed-engines");
    copy_tree(
        &repo().join("cargo-reduce/tests-fixtures/mixed-engines"),
        &crate_dir,
    );
    write(&crate_dir, "artifacts/lf_bytes/crash-1", b"xxxxBUGyyyy");
    write(&crate_dir, "artifacts/lf_strict/crash-2", b"Shello!world");
    let binary = "target/debug/afl_bytes";
    afl_instance(
        &crate_dir.join("out"),
        "default",
        binary,
        &[(AFL_CRASH, b"junkjunkAFL")],
    );
    (dir, crate_dir)
}

fn write(dir: &Path, rel: &str, bytes: &[u8]) {
    let path = dir.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

#[test]
fn list_names_each_target_s_engine_and_leaves_the_plain_program_out() {
    let (_dir, crate_dir) = mixed();
    let run = cargo_reduce(&[
        "reduce",
        "list",
        "--manifest-path",
        crate_dir.to_str().unwrap(),
        "--message-format",
        "json",
    ]);
    run.expect_code(0);
    let mut engines: Vec<(String, String)> = run
        .messages()
        .iter()
        .filter(|m| m["reason"] == "fuzz-target" || m["reason"] == "fuzz-artifact")
        .map(|m| {
            (
                m["target"].as_str().unwrap().to_string(),
                m["engine"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    engines.sort();
    engines.dedup();
    let expected = [
        ("afl_bytes", "afl"),
        ("lf_bytes", "libfuzzer"),
        ("lf_strict", "libfuzzer"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(t, e)| (t.to_string(), e.to_string()))
        .collect();
    assert_eq!(engines, expected, "{}", run.stdout());
}

#[test]
fn every_target_builds_with_its_features_and_reduces_by_its_engine() {
    let (_dir, crate_dir) = mixed();
    let lock = fs::read(crate_dir.join("Cargo.lock")).unwrap();
    // A build from scratch: what it compiles is checked below.
    let target_dir = tempfile::tempdir().unwrap();
    let args = [
        "reduce",
        "--manifest-path",
        crate_dir.to_str().unwrap(),
        "--all",
        "--message-format",
        "json",
    ];
    let run = cargo_reduce_in(&args, target_dir.path());
    run.expect_code(0);
    let messages = run.messages();
    let mut built: Vec<&str> = messages
        .iter()
        .filter(|m| m["reason"] == "build-started")
        .flat_map(|m| m["targets"].as_array().unwrap())
        .map(|t| t.as_str().unwrap())
        .collect();
    built.sort_unstable();
    assert_eq!(
        built,
        ["afl_bytes", "lf_bytes", "lf_strict"],
        "{}",
        run.stdout()
    );
    // The afl.rs build patches libfuzzer-sys too: the real one (libFuzzer's
    // C++, built with `cc`) is never compiled.
    let compiled: Vec<&str> = messages
        .iter()
        .filter(|m| m["reason"] == "build-finished")
        .flat_map(|m| m["compiled"].as_array().unwrap())
        .map(|u| u.as_str().unwrap())
        .collect();
    assert!(
        compiled.iter().any(|u| u.starts_with("afl@")),
        "{compiled:?}"
    );
    assert!(
        !compiled.iter().any(|u| u.starts_with("cc@")),
        "{compiled:?}"
    );
    let mut results: Vec<(String, String)> = messages
        .iter()
        .filter(|m| m["reason"] == "reduction-finished")
        .map(|m| {
            let output = PathBuf::from(m["output"].as_str().unwrap());
            (
                m["target"].as_str().unwrap().to_string(),
                String::from_utf8(fs::read(output).unwrap()).unwrap(),
            )
        })
        .collect();
    results.sort();
    let expected = [
        ("afl_bytes", "AFL"),
        ("lf_bytes", "BUG"),
        ("lf_strict", "S!"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(t, r)| (t.to_string(), r.to_string()))
        .collect();
    assert_eq!(results, expected, "{}", run.stdout());
    assert_eq!(fs::read(crate_dir.join("Cargo.lock")).unwrap(), lock);
}

/// A target whose required feature the package does not have (a typo)
/// fails its own artifact with cargo's error; the other targets are built
/// and reduced.
#[test]
fn a_target_with_a_missing_feature_fails_only_itself() {
    let (_dir, crate_dir) = mixed();
    let manifest = crate_dir.join("Cargo.toml");
    let mut text = fs::read_to_string(&manifest).unwrap();
    text.push_str("\n[[bin]]\nname = \"lf_typo\"\npath = \"fuzz_targets/lf_typo.rs\"\ntest = false\nrequired-features = [\"stirct\"]\n");
    fs::write(&manifest, text).unwrap();
    fs::copy(
        crate_dir.join("fuzz_targets/lf_bytes.rs"),
        crate_dir.join("fuzz_targets/lf_typo.rs"),
    )
    .unwrap();
    write(&crate_dir, "artifacts/lf_typo/crash-3", b"xxBUGxx");
    let run = cargo_reduce(&[
        "reduce",
        "--manifest-path",
        crate_dir.to_str().unwrap(),
        "--all",
    ]);
    run.expect_code(8);
    let stderr = run.stderr();
    assert!(
        run.error_line()
            .contains("cannot build fuzz target `lf_typo` of `mixed-engines-fuzz`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("stirct"),
        "cargo's error is shown: {stderr}"
    );
    for (target, name) in [("lf_bytes", "crash-1"), ("lf_strict", "crash-2")] {
        let result = crate_dir.join(format!("artifacts/{target}/minimized-from-{name}"));
        assert!(result.is_file(), "{target} is reduced: {stderr}");
    }
    assert!(!crate_dir
        .join("artifacts/lf_typo/minimized-from-crash-3")
        .exists());
}

/// `ci --update` files each engine's failures in the one ledger of the
/// package, and the next `ci` knows both (neither engine's folders are
/// taken for strays of the other).
#[test]
fn ci_keeps_one_ledger_for_both_engines() {
    let (dir, crate_dir) = mixed();
    let cache = dir.path().join("ci-cache");
    let ci = |extra: &[&str]| {
        let mut args = vec![
            "reduce",
            "ci",
            "--manifest-path",
            crate_dir.to_str().unwrap(),
            "--cache-dir",
            cache.to_str().unwrap(),
        ];
        args.extend(extra);
        cargo_reduce(&args)
    };
    // New failures fail the run that files them.
    ci(&["--update"]).expect_code(11);
    for target in ["afl_bytes", "lf_bytes", "lf_strict"] {
        let ledger = crate_dir.join("regressions").join(target);
        assert_eq!(
            fs::read_dir(&ledger).unwrap().count(),
            2,
            "{target}: input and sidecar"
        );
    }
    let run = ci(&["--message-format", "json"]);
    run.expect_code(0);
    let finished = run
        .messages()
        .into_iter()
        .find(|m| m["reason"] == "ci-finished")
        .unwrap_or_else(|| panic!("{}", run.stdout()));
    assert_eq!(
        (finished["new"].as_u64(), finished["known"].as_u64()),
        (Some(0), Some(3)),
        "{finished}"
    );
}

/// A target that is both a libFuzzer and an afl.rs one (its source calls
/// either engine by a feature, as taiki-e/parse-changelog's `parse`):
/// `--corpus` names one target's corpus, so `--fuzz-target` alone selects
/// two and the error says to choose with `--engine`, which then selects one.
#[test]
fn a_target_of_both_engines_is_chosen_by_engine() {
    let (_dir, crate_dir) = mixed();
    let manifest = fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap();
    let dual = "[[bin]]\nname = \"dual\"\npath = \"fuzz_targets/dual.rs\"\ntest = false\n";
    write(
        &crate_dir,
        "Cargo.toml",
        format!("{manifest}\n{dual}").as_bytes(),
    );
    write(
        &crate_dir,
        "fuzz_targets/dual.rs",
        b"#![cfg_attr(not(feature = \"afl\"), no_main)]\n\
          #[cfg(feature = \"afl\")]\nfn main() { afl::fuzz!(|d: &[u8]| { check(d) }); }\n\
          #[cfg(not(feature = \"afl\"))]\nlibfuzzer_sys::fuzz_target!(|d: &[u8]| { check(d) });\n\
          fn check(d: &[u8]) { if d.len() > 2 && d[0] == b'x' { std::hint::black_box(d); } }\n",
    );
    write(&crate_dir, "seeds/a", b"abc");
    write(&crate_dir, "seeds/b", b"xyz");
    let corpus = |extra: &[&str]| {
        let seeds = crate_dir.join("seeds");
        let out = crate_dir.join("minimized");
        let mut args = vec![
            "reduce",
            "corpus",
            "--manifest-path",
            crate_dir.to_str().unwrap(),
        ];
        args.extend(["--fuzz-target", "dual", "--corpus", seeds.to_str().unwrap()]);
        args.extend(["--out", out.to_str().unwrap(), "--message-format", "json"]);
        args.extend_from_slice(extra);
        cargo_reduce(&args)
    };
    let both = corpus(&[]);
    both.expect_code(2);
    assert!(
        both.stderr()
            .contains("`dual` is a target of both engines: choose one with --engine"),
        "{}",
        both.stderr()
    );
    let chosen = corpus(&["--engine", "libfuzzer"]);
    chosen.expect_code(0);
    let minimized = crate::util::message(&chosen.messages(), "corpus-minimized").clone();
    assert_eq!(minimized["target"], "dual", "{minimized}");
    let none = cargo_reduce(&[
        "reduce",
        "list",
        "--manifest-path",
        crate_dir.to_str().unwrap(),
        "--fuzz-target",
        "lf_bytes",
        "--engine",
        "afl",
    ]);
    none.expect_code(2);
    assert!(
        none.stderr()
            .contains("no fuzz target for afl is selected (targets: lf_bytes (libfuzzer))"),
        "{}",
        none.stderr()
    );
}
