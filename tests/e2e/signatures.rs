//! Failure signatures in fuzz mode: the default match compares the call
//! path, not the message, on the `two_callers` demo target (one helper,
//! reached from `timeout` and from `port`, panics quoting its input).

use std::fs;
use std::path::{Path, PathBuf};

use crate::fuzz_fixture::{cargo_reduce, fresh_copy, minimized_path};

/// Writes the two inputs: bug A (through `timeout`) and bug B (through
/// `port`), each quoting letters the message would keep.
fn plant(fuzz: &Path) -> (PathBuf, PathBuf) {
    let dir = fuzz.join("artifacts/two_callers");
    fs::create_dir_all(&dir).unwrap();
    let (a, b) = (dir.join("crash-a"), dir.join("crash-b"));
    fs::write(&a, "!abc").unwrap();
    fs::write(&b, "xyz").unwrap();
    (a, b)
}

fn reduce(fuzz: &Path, extra: &[&str]) -> Vec<serde_json::Value> {
    let mut args = vec![
        "reduce",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        "--target",
        "two_callers",
        "--message-format",
        "json",
        "--force",
    ];
    args.extend(extra);
    let run = cargo_reduce(&args);
    run.expect_code(0);
    run.messages()
}

fn grouped(messages: &[serde_json::Value]) -> (u64, u64) {
    let m = messages
        .iter()
        .find(|m| m["reason"] == "failures-grouped")
        .expect("failures-grouped");
    (
        m["inputs"].as_u64().unwrap(),
        m["failures"].as_u64().unwrap(),
    )
}

#[test]
fn a_quoting_message_shrinks_fully_and_two_callers_stay_apart() {
    let (_dir, fuzz) = fresh_copy();
    let (a, b) = plant(&fuzz);

    let messages = reduce(&fuzz, &[]);
    assert_eq!(grouped(&messages), (2, 2), "two callers, two failures");
    assert_eq!(
        fs::read(minimized_path(&a)).unwrap(),
        b"!",
        "bug A, fully shrunk"
    );
    assert_eq!(
        fs::read(minimized_path(&b)).unwrap(),
        b"\0",
        "bug B, fully shrunk"
    );
    let finished: Vec<_> = messages
        .iter()
        .filter(|m| m["reason"] == "reduction-finished")
        .collect();
    let path_of = |name: &str| {
        let m = finished
            .iter()
            .find(|m| m["input"].as_str().unwrap().ends_with(name))
            .unwrap();
        (
            m["failure"].as_str().unwrap().to_string(),
            m["failure_id"].as_str().unwrap().to_string(),
        )
    };
    let (failure_a, id_a) = path_of("crash-a");
    let (failure_b, id_b) = path_of("crash-b");
    assert!(
        failure_a.ends_with(
            "(in two_callers::number ← two_callers::timeout ← two_callers::settings::{{closure}})"
        ),
        "{failure_a}"
    );
    assert!(
        failure_b.contains("two_callers::number ← two_callers::port"),
        "{failure_b}"
    );
    assert!(failure_a.contains("two_callers.rs:23:19: expected a number, found \"abc\""));
    assert_eq!(id_a.len(), 8);
    assert_ne!(id_a, id_b);
    let reproduced: Vec<_> = messages
        .iter()
        .filter(|m| m["reason"] == "artifact-reproduced")
        .map(|m| m["failure_id"].as_str().unwrap())
        .collect();
    assert!(reproduced.contains(&id_a.as_str()), "{reproduced:?}");

    // Comparing messages keeps the quoted letters: nothing shrinks.
    reduce(&fuzz, &["--match", "message"]);
    assert_eq!(fs::read(minimized_path(&a)).unwrap(), b"!abc");
    // Comparing locations alone merges the two bugs.
    let messages = reduce(&fuzz, &["--match", "location"]);
    assert_eq!(grouped(&messages), (2, 1));
    assert!(messages.iter().any(|m| m["reason"] == "artifact-duplicate"));
}
