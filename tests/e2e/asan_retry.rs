//! `--sanitizer auto` on a stale crash artifact (its bug fixed: it fails
//! neither uninstrumented nor under AddressSanitizer), on
//! `cargo-reduce/tests-fixtures/nightly-feature`: the first run tries it
//! on the ASan build and says how to skip that; a second run, the target
//! unchanged, neither builds with ASan nor replays it there. Skipped (the
//! reason printed) without a nightly toolchain. A file of the target's
//! corpus is not tried there.

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

/// A file of the target's own corpus, named on the command line, passes:
/// libFuzzer keeps only inputs that passed there, on `cargo fuzz`'s ASan
/// build too, so no ASan build is made for it, and the error says what
/// the file is.
#[test]
fn a_corpus_file_is_not_tried_on_asan() {
    if !crate::fuzz_fixture::nightly("a_corpus_file_is_not_tried_on_asan") {
        return;
    }
    let (_dir, fuzz) = fixture_copy("nightly-feature");
    let corpus = fuzz.join("corpus/plain");
    fs::create_dir_all(&corpus).unwrap();
    let input = corpus.join("passes");
    fs::write(&input, b"no bug here").unwrap();
    let run = cargo_reduce(&[
        "reduce",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        "--message-format",
        "json",
        input.to_str().unwrap(),
    ]);
    assert_ne!(run.code(), 0, "{}", run.stderr());
    assert_eq!(retries(&run), (vec![], 1), "{}", run.stderr());
    assert!(
        run.stdout().contains("a file of its target's corpus"),
        "{}",
        run.stdout()
    );
    assert_eq!(fs::read(&input).unwrap(), b"no bug here");
}
