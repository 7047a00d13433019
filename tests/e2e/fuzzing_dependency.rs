//! `cargo reduce` on fuzz crates whose library depends on the fuzz engines
//! under `cfg(fuzzing)` (`cargo-reduce/tests-fixtures/fuzzing-dependency`,
//! laid out as image-rs/image's `fuzz/` and `fuzz-afl/`, two workspaces
//! over one path dependency, whose rav1e depends on libfuzzer-sys so): each
//! build links the other engine's stand-in as well, and that one must
//! define none of the engine's program symbols (`main`, `pthread_create`,
//! the global allocator), or the targets fail to link.

use std::fs;
use std::path::{Path, PathBuf};

use crate::fuzz_fixture::{cargo_reduce, cargo_reduce_in, fixture_copy};
use crate::recycled::RecycledDir;

const CRASH: &str = "id:000000,sig:06,src:000000,time:1,execs:1,op:havoc,rep:1";

/// A copy of the fixture with a libFuzzer artifact in `fuzz/` and an AFL++
/// instance with a crash in `fuzz-afl/`.
fn with_inputs() -> (RecycledDir, PathBuf) {
    let (dir, root) = fixture_copy("fuzzing-dependency");
    write(&root.join("fuzz/artifacts/check"), "crash-1", b"BADxyz");
    let instance = root.join("fuzz-afl/out/fuzz_check/default");
    fs::create_dir_all(instance.join("queue")).unwrap();
    write(&instance, "cmdline", b"target/debug/fuzz_check\n");
    write(&instance.join("crashes"), CRASH, b"BADabc");
    (dir, root)
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    fs::create_dir_all(dir).unwrap();
    fs::write(dir.join(name), bytes).unwrap();
}

/// Reduces the fuzz crate `crate_dir`, building into `target_dir`: its one
/// result, and the units its build compiled.
fn reduce(crate_dir: &Path, target_dir: &Path) -> (String, Vec<String>) {
    let args = [
        "reduce",
        "--manifest-path",
        crate_dir.to_str().unwrap(),
        "--message-format",
        "json",
    ];
    let run = cargo_reduce_in(&args, target_dir);
    run.expect_code(0);
    let messages = run.messages();
    let outputs: Vec<String> = messages
        .iter()
        .filter(|m| m["reason"] == "reduction-finished")
        .map(|m| {
            let output = m["output"].as_str().unwrap();
            String::from_utf8(fs::read(output).unwrap()).unwrap()
        })
        .collect();
    assert_eq!(outputs.len(), 1, "{}", run.stdout());
    let compiled = messages
        .iter()
        .filter(|m| m["reason"] == "build-finished")
        .flat_map(|m| m["compiled"].as_array().unwrap())
        .map(|u| u.as_str().unwrap().to_string())
        .collect();
    (outputs[0].clone(), compiled)
}

#[test]
fn both_engines_builds_link_the_other_engine_s_stand_in_and_reduce() {
    let (_dir, root) = with_inputs();
    // Builds from scratch: what they compile is checked.
    let target_dir = tempfile::tempdir().unwrap();
    for crate_dir in ["fuzz", "fuzz-afl"] {
        let (output, compiled) = reduce(&root.join(crate_dir), target_dir.path());
        assert_eq!(output, "BAD", "{crate_dir}");
        for stand_in in ["libfuzzer-sys@", "afl@"] {
            assert!(
                compiled.iter().any(|u| u.starts_with(stand_in)),
                "{crate_dir}: {compiled:?}"
            );
        }
        // Neither real engine is compiled (libFuzzer's C++ and AFL++ are
        // built with `cc`).
        assert!(
            !compiled.iter().any(|u| u.starts_with("cc@")),
            "{crate_dir}: {compiled:?}"
        );
    }
}

/// A panic in the library a standalone `fuzz/` workspace tests (a path
/// dependency outside the workspace, which rustc names by its absolute
/// path) is named by its package: the ledger filed in one checkout knows
/// the failure in another.
#[test]
fn a_library_panic_filed_in_one_checkout_is_known_in_another() {
    let ci = |root: &Path, update: bool| {
        let fuzz = root.join("fuzz");
        let mut args = vec![
            "reduce",
            "ci",
            "--manifest-path",
            fuzz.to_str().unwrap(),
            "--no-cache",
            "--message-format",
            "json",
        ];
        if update {
            args.push("--update");
        }
        cargo_reduce(&args)
    };
    let (_first, here) = with_inputs();
    let filed = ci(&here, true);
    filed.expect_code(11);
    let failure = filed
        .messages()
        .into_iter()
        .find(|m| m["reason"] == "ci-failure")
        .unwrap();
    assert_eq!(failure["location"], "src/lib.rs:24:9", "{failure}");

    let (_second, there) = fixture_copy("fuzzing-dependency");
    crate::fuzz_fixture::copy_tree(
        &here.join("fuzz/regressions"),
        &there.join("fuzz/regressions"),
    );
    let replayed = ci(&there, false);
    replayed.expect_code(0);
    let last = replayed.messages().pop().unwrap();
    assert_eq!(
        (last["known"].as_u64(), last["new"].as_u64()),
        (Some(1), Some(0)),
        "{last}"
    );
}
