//! A failing test does not leave its process to the next one: libFuzzer
//! and AFL++ end the process at a crash, so an artifact whose panic breaks
//! state that outlives the test (a lazily built static whose initializer
//! panicked, a lock it poisoned) fails alike on every run there, and must
//! here too (`cargo-reduce/tests-fixtures/fresh-state`).

use crate::fuzz_fixture::{cargo_reduce, finished, fixture_copy, minimized_path};

#[test]
fn state_a_failure_broke_is_not_seen_by_the_next_test() {
    let (_dir, crate_dir) = fixture_copy("fresh-state");
    let run = cargo_reduce(&[
        "reduce",
        "--manifest-path",
        crate_dir.join("Cargo.toml").to_str().unwrap(),
        "--sanitizer",
        "none",
        "--message-format",
        "json",
    ]);
    run.expect_code(0);
    let finished: Vec<serde_json::Value> = finished(&run);
    let failure_of = |target: &str| {
        let m = finished
            .iter()
            .find(|m| m["target"] == target)
            .unwrap_or_else(|| panic!("{target} not reduced: {}", run.stderr()));
        m["failure"].as_str().unwrap().to_string()
    };
    // The initializer's own panic, never "previously been poisoned".
    let lazy = failure_of("lazy_config");
    assert!(
        lazy.starts_with("panic at fuzz_targets/lazy_config.rs:10:64:")
            && lazy.contains("NotPresent"),
        "{lazy}"
    );
    // The panic under the lock, never the poisoned lock of a later test.
    let held = failure_of("held_lock");
    assert!(
        held.starts_with("panic at fuzz_targets/held_lock.rs:14:9: panicked holding the lock"),
        "{held}"
    );
    for (target, name, reduced) in [
        ("lazy_config", "crash-3f1a", b"L"),
        ("held_lock", "crash-9c2e", b"M"),
    ] {
        let artifact = crate_dir.join("artifacts").join(target).join(name);
        assert_eq!(std::fs::read(minimized_path(&artifact)).unwrap(), reduced);
    }
}

/// An artifact's verdict is that of a process fresh from the init code,
/// as `cargo fuzz run <artifact>` gives it: an input run before it in the
/// same worker (here a stale artifact that no longer fails) does not
/// decide it.
#[test]
fn an_artifact_runs_in_a_process_no_other_input_ran_in() {
    let (_dir, crate_dir) = fixture_copy("fresh-state");
    let dir = crate_dir.join("artifacts/first_setting");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("crash-0-stale"), b"quiet").unwrap();
    std::fs::write(dir.join("crash-1-strict"), b"Fxyz").unwrap();
    let run = cargo_reduce(&[
        "reduce",
        "--manifest-path",
        crate_dir.join("Cargo.toml").to_str().unwrap(),
        "--fuzz-target",
        "first_setting",
        "--sanitizer",
        "none",
        "-j",
        "1",
        "--message-format",
        "json",
    ]);
    let messages = run.messages();
    let reproduced = messages
        .iter()
        .find(|m| m["reason"] == "artifact-reproduced")
        .unwrap_or_else(|| panic!("nothing reproduced: {}", run.stderr()));
    assert!(
        reproduced["path"]
            .as_str()
            .unwrap()
            .ends_with("crash-1-strict"),
        "{reproduced}"
    );
    let failure = reproduced["failure"].as_str().unwrap();
    assert!(
        failure.starts_with("panic at fuzz_targets/first_setting.rs:14:9: strict mode rejects F"),
        "{failure}"
    );
    let written = std::fs::read(minimized_path(&dir.join("crash-1-strict"))).unwrap();
    assert_eq!(written.first(), Some(&b'F'), "{written:?}");
}
