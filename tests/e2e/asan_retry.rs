//! `--sanitizer auto` on a stale crash artifact (its bug fixed: it fails
//! neither uninstrumented nor under AddressSanitizer), on
//! `cargo-reduce/tests-fixtures/nightly-feature`: the first run tries it
//! on the ASan build and says how to skip that; a second run, the target
//! unchanged, neither builds with ASan nor replays it there. Skipped (the
//! reason printed) without a nightly toolchain.

use std::fs;

use crate::fuzz_fixture::{cargo_reduce, fixture_copy};
use crate::util::Run;

/// The warnings that start an ASan retry, and the ASan builds, of a run.
fn retries(run: &Run) -> (Vec<String>, usize) {
    let messages = run.messages();
    let warnings = messages
        .iter()
        .filter(|m| m["reason"] == "warning")
        .filter_map(|m| m["message"].as_str())
        .filter(|w| w.contains("trying them on the AddressSanitizer build"))
        .map(String::from)
        .collect();
    let builds = messages
        .iter()
        .filter(|m| m["reason"] == "build-started")
        .count();
    (warnings, builds)
}

#[test]
fn a_stale_artifact_is_tried_on_asan_once() {
    if !crate::fuzz_fixture::nightly("a_stale_artifact_is_tried_on_asan_once") {
        return;
    }
    let (_dir, fuzz) = fixture_copy("nightly-feature");
    let stale = fuzz.join("artifacts/plain/crash-stale");
    fs::write(&stale, b"no bug here").unwrap();
    let args = [
        "reduce",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        "--message-format",
        "json",
        stale.to_str().unwrap(),
    ];
    let first = cargo_reduce(&args);
    let (warnings, builds) = retries(&first);
    assert_eq!(warnings.len(), 1, "{}", first.stderr());
    assert!(warnings[0].contains("--sanitizer none"), "{warnings:?}");
    assert!(
        warnings[0].contains("`cargo fuzz`'s default build"),
        "{warnings:?}"
    );
    assert_eq!(builds, 2, "the plain build and the ASan one");
    let second = cargo_reduce(&args);
    assert_eq!(second.code(), first.code());
    assert_eq!(retries(&second), (vec![], 1), "{}", second.stderr());
    assert!(
        second
            .stdout()
            .contains("nor on the AddressSanitizer build"),
        "{}",
        second.stdout()
    );
}
