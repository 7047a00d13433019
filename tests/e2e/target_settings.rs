//! Settings beside the targets: a fuzz crate's
//! `[package.metadata.cargo-reduce]` and its per-target tables, read by
//! fuzz mode; an unknown key is one error line naming it.

use std::fs;
use std::path::Path;

use crate::fuzz_fixture::{cargo_reduce, finished, fresh_copy};
use crate::util::message;

/// Appends `toml` to the fuzz crate's `Cargo.toml`.
fn add_settings(fuzz: &Path, toml: &str) {
    let manifest = fuzz.join("Cargo.toml");
    let text = fs::read_to_string(&manifest).unwrap();
    fs::write(&manifest, format!("{text}\n{toml}")).unwrap();
}

/// `cargo reduce --fuzz-target TARGET` on `fuzz`, in JSON.
fn reduce(fuzz: &Path, target: &str) -> crate::util::Run {
    let manifest = fuzz.to_str().unwrap();
    cargo_reduce(&[
        "reduce",
        "--manifest-path",
        manifest,
        "--fuzz-target",
        target,
        "--message-format",
        "json",
    ])
}

/// A target's own table wins over the package's: `endless_loop`'s hang is
/// checked under its 3 s (the package's 1.5 s and the built-in 1 s lose),
/// and `huge_alloc`'s memory limit of 0 skips its OOM artifact.
#[test]
fn a_targets_table_sets_its_timeout_and_memory_limit() {
    let (_dir, fuzz) = fresh_copy();
    add_settings(
        &fuzz,
        "[package.metadata.cargo-reduce]\ntimeout = 1.5\n\
         [package.metadata.cargo-reduce.targets.endless_loop]\ntimeout = 3\n\
         [package.metadata.cargo-reduce.targets.huge_alloc]\nrss-limit-mb = 0\n",
    );
    let run = reduce(&fuzz, "huge_alloc");
    run.expect_code(0);
    let skipped = message(&run.messages(), "artifact-skipped").clone();
    assert_eq!(skipped["cause"], "no-memory-limit", "{skipped}");

    let run = reduce(&fuzz, "endless_loop");
    run.expect_code(0);
    let done = finished(&run);
    assert_eq!(done.len(), 1, "{}", run.stdout());
    // The result of a hang is checked under the whole timeout, which it
    // waits out: never less than it.
    let verify = done[0]["phases"]["verify_s"].as_f64().unwrap();
    assert!(verify >= 3.0, "checked in {verify} s, not under 3 s");
}

#[test]
fn an_unknown_key_is_an_error_naming_it() {
    let (_dir, fuzz) = fresh_copy();
    add_settings(
        &fuzz,
        "[package.metadata.cargo-reduce.targets.byte_parser]\ntimout = 3\n",
    );
    let run = reduce(&fuzz, "byte_parser");
    run.expect_code(2);
    let line = run.error_line();
    assert!(line.contains("unknown field `timout`"), "{line}");
    assert!(
        line.contains("[package.metadata.cargo-reduce.targets.byte_parser]"),
        "{line}"
    );
    assert!(line.contains("Cargo.toml"), "{line}");
}
