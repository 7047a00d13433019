//! `cargo reduce` on the bundled fuzz-targets crate and its real libFuzzer
//! artifacts: built through cargo-reduce, reduced in-process.

use std::collections::HashMap;
use std::fs;

use crate::fuzz_fixture::{artifact, cargo_reduce, fresh_copy, shared};

/// Per target: the exact reduced bytes (None: only checked for size) and a
/// piece of the failure signature.
fn expected() -> Vec<(&'static str, Option<&'static [u8]>, &'static str)> {
    vec![
        ("abort", Some(b"ZAP"), "signal SIGABRT"),
        ("byte_parser", Some(b"RX\x0100"), "panic at fuzz_targets/byte_parser.rs:36:26: range end index _ out of range for slice of length _"),
        ("endless_loop", Some(b"LP\x00"), "timeout"),
        ("huge_alloc", None, "out of memory"),
        ("stack_overflow", None, "stack overflow"),
        ("two_panics", Some(b"ABXYZ"), "bug A: authenticated XYZ request"),
        ("typed_arbitrary", None, "unsaturated scale by _ overflows the register"),
    ]
}

#[test]
fn every_bundled_artifact_is_reduced_in_process_and_keeps_its_failure() {
    let (_dir, fuzz) = fresh_copy();
    let originals: HashMap<_, _> = expected()
        .iter()
        .map(|(t, ..)| (*t, fs::read(artifact(&fuzz, t)).unwrap()))
        .collect();
    let lock = fs::read(fuzz.join("Cargo.lock")).unwrap();

    let run = cargo_reduce(&[
        "reduce",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        "--message-format",
        "json",
        "-j2",
    ]);
    run.expect_code(0);
    let messages = run.messages();
    assert!(messages.iter().any(|m| m["reason"] == "build-finished"));
    let finished: HashMap<String, &serde_json::Value> = messages
        .iter()
        .filter(|m| m["reason"] == "reduction-finished")
        .map(|m| (m["target"].as_str().unwrap().to_string(), m))
        .collect();
    assert_eq!(
        finished.len(),
        7,
        "one reduction-finished per artifact: {}",
        run.stdout()
    );

    for (target, bytes, failure) in expected() {
        let m = finished[target];
        let output = fs::read(m["output"].as_str().unwrap()).unwrap();
        assert!(m["output"]
            .as_str()
            .unwrap()
            .contains(&format!("artifacts/{target}/minimized-from-")));
        assert!(
            m["failure"].as_str().unwrap().contains(failure),
            "{target}: {}",
            m["failure"]
        );
        assert_eq!(m["minimal"], true, "{target}");
        assert_eq!(m["reduced_bytes"], output.len());
        let original = &originals[target];
        assert!(output.len() <= original.len(), "{target}");
        if let Some(bytes) = bytes {
            assert_eq!(
                output,
                bytes,
                "{target}: {:?}",
                String::from_utf8_lossy(&output)
            );
        }
        assert_eq!(
            &fs::read(artifact(&fuzz, target)).unwrap(),
            original,
            "{target}: the original is never modified"
        );
    }
    assert!(
        finished["stack_overflow"]["reduced_bytes"]
            .as_u64()
            .unwrap()
            < finished["stack_overflow"]["original_bytes"]
                .as_u64()
                .unwrap()
    );
    let debug = finished["typed_arbitrary"]["debug"].as_str().unwrap();
    assert!(
        debug.contains("factor: 201") && debug.contains("saturate: false"),
        "the Debug form of the smallest failing value: {debug}"
    );
    assert_eq!(
        fs::read(fuzz.join("Cargo.lock")).unwrap(),
        lock,
        "the user's lock file is byte-identical"
    );

    // Everything is reduced now: a second run has nothing to do.
    let again = cargo_reduce(&["reduce", "--manifest-path", fuzz.to_str().unwrap()]);
    again.expect_code(0);
    assert!(
        again.stderr().contains("nothing to reduce"),
        "{}",
        again.stderr()
    );
    let list = cargo_reduce(&[
        "list",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        "--message-format",
        "json",
    ]);
    list.expect_code(0);
    assert!(list
        .messages()
        .iter()
        .all(|m| m["reason"] != "fuzz-artifact" || !m["minimized"].is_null()));
}

#[test]
fn a_careless_match_slips_to_the_other_bug_and_the_default_does_not() {
    let fuzz = shared();
    let crash = artifact(fuzz, "two_panics");
    let out = crash.with_file_name(format!(
        "minimized-from-{}",
        crash.file_name().unwrap().to_string_lossy()
    ));
    let path = crash.to_str().unwrap();
    cargo_reduce(&[
        "reduce",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        path,
        "--force",
        "--match",
        "kind",
    ])
    .expect_code(0);
    assert_eq!(
        fs::read(&out).unwrap(),
        b"XYZ",
        "any panic will do: slips to bug B"
    );
    let run = cargo_reduce(&[
        "reduce",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        path,
        "--force",
        "--message-format",
        "json",
    ]);
    run.expect_code(0);
    assert_eq!(
        fs::read(&out).unwrap(),
        b"ABXYZ",
        "same location and message: stays on bug A"
    );
    let last = run.messages().pop().unwrap();
    assert!(
        last["failure"]
            .as_str()
            .unwrap()
            .contains("two_panics.rs:34:13"),
        "{last}"
    );
}

#[test]
fn the_target_is_inferred_from_the_artifacts_directory() {
    let fuzz = shared();
    let crash = artifact(fuzz, "byte_parser");
    let run = cargo_reduce(&[
        "reduce",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        crash.to_str().unwrap(),
        "--force",
        "--message-format",
        "json",
    ]);
    run.expect_code(0);
    assert_eq!(run.messages().pop().unwrap()["target"], "byte_parser");
}
