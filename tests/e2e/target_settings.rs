//! Settings beside the targets: a fuzz crate's
//! `[package.metadata.cargo-reduce]` and its per-target tables, read by
//! fuzz mode and `ci` (limits, match level, language, sanitizer), the
//! command line's flags over them; an unknown key is one error line
//! naming it.

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

/// `cargo reduce --fuzz-target TARGET EXTRA…` on `fuzz`, in JSON.
fn reduce_with(fuzz: &Path, target: &str, extra: &[&str]) -> crate::util::Run {
    let manifest = fuzz.to_str().unwrap();
    let args = [
        "reduce",
        "--manifest-path",
        manifest,
        "--fuzz-target",
        target,
        "--message-format",
        "json",
    ];
    cargo_reduce(&[&args[..], extra].concat())
}

/// `cargo reduce --fuzz-target TARGET` on `fuzz`, in JSON.
fn reduce(fuzz: &Path, target: &str) -> crate::util::Run {
    reduce_with(fuzz, target, &[])
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

    // A value the flag would refuse, in `ci` too.
    let manifest = fuzz.join("Cargo.toml");
    let text = fs::read_to_string(&manifest).unwrap();
    fs::write(&manifest, text.replace("timout = 3", "match = \"stak\"")).unwrap();
    let run = cargo_reduce(&["reduce", "ci", "--manifest-path", fuzz.to_str().unwrap()]);
    run.expect_code(2);
    let line = run.error_line();
    assert!(line.contains("unknown variant `stak`"), "{line}");
    assert!(line.contains("`location`"), "{line}");
    assert!(line.contains("targets.byte_parser]"), "{line}");
}

/// Writes two inputs of `two_callers` that panic at one place through two
/// callers: two failures at `--match stack`, one at `location`.
fn plant_two_callers(fuzz: &Path) -> [std::path::PathBuf; 2] {
    let dir = fuzz.join("artifacts/two_callers");
    fs::create_dir_all(&dir).unwrap();
    let (a, b) = (dir.join("crash-a"), dir.join("crash-b"));
    fs::write(&a, "!abc").unwrap();
    fs::write(&b, "xyz").unwrap();
    [a, b]
}

/// The `failures-grouped` message's inputs and failures.
fn grouped(run: &crate::util::Run) -> (u64, u64) {
    let m = message(&run.messages(), "failures-grouped").clone();
    (
        m["inputs"].as_u64().unwrap(),
        m["failures"].as_u64().unwrap(),
    )
}

/// A target's `match = "location"` groups the two callers' panics (one
/// reduced, one its duplicate), in fuzz mode and in `ci` (whose report
/// and ledger record it); `--match stack` on the command line wins over it
/// and keeps them apart.
#[test]
fn a_targets_match_level_groups_and_the_flag_wins() {
    let (dir, fuzz) = fresh_copy();
    plant_two_callers(&fuzz);
    add_settings(
        &fuzz,
        "[package.metadata.cargo-reduce.targets.two_callers]\nmatch = \"location\"\n",
    );
    let run = reduce(&fuzz, "two_callers");
    run.expect_code(0);
    assert_eq!(grouped(&run), (2, 1), "{}", run.stdout());
    message(&run.messages(), "artifact-duplicate");

    let manifest = fuzz.to_str().unwrap();
    let report = dir.path().join("report.json");
    let ci = cargo_reduce(&[
        "reduce",
        "ci",
        "--manifest-path",
        manifest,
        "--fuzz-target",
        "two_callers",
        "--no-cache",
        "--update",
        "--report",
        report.to_str().unwrap(),
    ]);
    ci.expect_code(11);
    let report: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&report).unwrap()).unwrap();
    let failures = report["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1, "{report}");
    // The report and the ledger record the level the id is computed at.
    assert_eq!(report["match"], "stack", "{report}");
    assert_eq!(failures[0]["match"], "location", "{report}");
    let entry = fs::read_dir(fuzz.join("regressions/two_callers"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .expect("a sidecar filed");
    let sidecar: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(entry).unwrap()).unwrap();
    assert_eq!(sidecar["match"], "location", "{sidecar}");

    let run = reduce_with(&fuzz, "two_callers", &["--force", "--match", "stack"]);
    run.expect_code(0);
    assert_eq!(grouped(&run), (2, 2), "{}", run.stdout());
}

/// A target's `lang` and `strategy` reduce its inputs as source text, as
/// `--lang` and `--strategy` would.
#[test]
fn a_targets_lang_reduces_its_inputs_as_source_text() {
    let (_dir, fuzz) = fresh_copy();
    add_settings(
        &fuzz,
        "[package.metadata.cargo-reduce.targets.byte_parser]\nlang = \"rust\"\nstrategy = \"hdd\"\n",
    );
    let run = reduce(&fuzz, "byte_parser");
    run.expect_code(0);
    let started = message(&run.messages(), "reduction-started").clone();
    assert_eq!(started["lang"], "rust", "{started}");
    assert_eq!(started["strategy"], "hdd", "{started}");
}

/// A target set to `sanitizer = "address"` reproduces on the ASan build
/// (no retry: it starts there) while one set to `none` in the same run
/// stays uninstrumented, where its ASan-only artifact does not reproduce;
/// `ci` builds and replays each the same way.
#[test]
fn each_target_has_its_own_sanitizer() {
    if !crate::fuzz_fixture::nightly("each_target_has_its_own_sanitizer") {
        return;
    }
    let (dir, crate_dir) = crate::fuzz_fixture::fixture_copy("asan-demo");
    add_settings(
        &crate_dir,
        "[package.metadata.cargo-reduce.targets.overflow]\nsanitizer = \"address\"\n\
         [package.metadata.cargo-reduce.targets.dangling]\nsanitizer = \"none\"\n",
    );
    let first = |target: &str| {
        let dir = crate_dir.join("artifacts").join(target);
        let mut names: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        names.remove(0)
    };
    let (overflow, dangling) = (first("overflow"), first("dangling"));
    let run = cargo_reduce(&[
        "reduce",
        overflow.to_str().unwrap(),
        dangling.to_str().unwrap(),
        "--manifest-path",
        crate_dir.join("Cargo.toml").to_str().unwrap(),
        "--message-format",
        "json",
    ]);
    // One reduced, one that does not reproduce: exit 5.
    run.expect_code(5);
    let done = finished(&run);
    assert_eq!(done.len(), 1, "{}", run.stderr());
    let failure = done[0]["failure"].as_str().unwrap();
    assert!(
        failure.starts_with("heap-buffer-overflow READ 4"),
        "{failure}"
    );
    let said = format!("{}{}", run.stdout(), run.stderr());
    assert!(
        !said.contains("trying them on the AddressSanitizer build"),
        "{said}"
    );
    assert!(said.contains("may need a sanitizer"), "{said}");
    assert!(!crate::fuzz_fixture::minimized_path(&dangling).exists());

    // `ci` replays each target on its own build too (both cached now):
    // overflow's artifacts fail on ASan, dangling's pass uninstrumented.
    for (target, code) in [("overflow", 11), ("dangling", 0)] {
        let report = dir.path().join(format!("{target}.json"));
        let ci = cargo_reduce(&[
            "reduce",
            "ci",
            "--manifest-path",
            crate_dir.join("Cargo.toml").to_str().unwrap(),
            "--fuzz-target",
            target,
            "--no-cache",
            "--report",
            report.to_str().unwrap(),
        ]);
        ci.expect_code(code);
        let report: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&report).unwrap()).unwrap();
        let failures = report["failures"].as_array().unwrap();
        assert_eq!(failures.is_empty(), code == 0, "{report}");
        // The reduction's heap-buffer-overflow, and the SEGV it ran into.
        for failure in failures {
            let kind = failure["kind"].as_str().unwrap();
            assert!(kind.starts_with("asan-"), "{report}");
        }
    }
}
