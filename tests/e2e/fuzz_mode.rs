//! `cargo reduce` on the bundled fuzz-targets crate and its real libFuzzer
//! artifacts: built through cargo-reduce, reduced in-process.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use crate::fuzz_fixture::{artifact, cargo_reduce, fresh_copy, minimized_path, shared, snapshot};

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
        // The enum tags are the lowest `u32`s that pick `Scale` (the 4th of
        // 5 variants) and `Multiline` (the 2nd of 3).
        ("typed_arbitrary", Some(b"\0\0\x9a\x99\x99\x99\xc9"), "unsaturated scale by _ overflows the register"),
        ("typed_query", Some(b"*?\x01VUUU\x02"), "panic at fuzz_targets/typed_query.rs:47:5: index out of bounds"),
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
    crate::schema::check_messages(&run);
    let messages = run.messages();
    assert!(messages.iter().any(|m| m["reason"] == "build-finished"));
    let found_reducing =
        |m: &&serde_json::Value| m["input"].as_str().unwrap().contains("-found-reducing-");
    let finished: HashMap<String, &serde_json::Value> = messages
        .iter()
        .filter(|m| m["reason"] == "reduction-finished")
        .filter(|m| !found_reducing(m))
        .map(|m| (m["target"].as_str().unwrap().to_string(), m))
        .collect();
    assert_eq!(
        finished.len(),
        8,
        "one reduction-finished per artifact: {}",
        run.stdout()
    );
    let also = also_found(&messages);
    assert_eq!(crate::util::check_progress(&messages), 8 + also.len());

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
        // The command that runs the result on the real engine's build.
        assert_eq!(
            m["run"],
            format!(
                "cargo reduce run --manifest-path {} --fuzz-target {target} {}",
                fuzz.display(),
                m["output"].as_str().unwrap()
            ),
            "{target}"
        );
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
    // Each failure's class: a panic or abort, then resources.
    let severities = [
        ("abort", "abort"),
        ("two_panics", "abort"),
        ("stack_overflow", "stack-overflow"),
        ("huge_alloc", "resource"),
        ("endless_loop", "resource"),
    ];
    for (target, severity) in severities {
        assert_eq!(finished[target]["severity"], severity, "{target}");
    }
    // The smallest failing values: nothing can be dropped or lowered.
    assert_eq!(
        finished["typed_arbitrary"]["debug"],
        "Command {\n    id: 0,\n    op: Scale {\n        factor: 201,\n        saturate: false,\n    },\n    repeat: 0,\n}"
    );
    assert_eq!(
        finished["typed_query"]["debug"],
        "Query {\n    pattern: \"*?\",\n    flags: [\n        Multiline,\n    ],\n    limit: None,\n    haystack: \"\",\n}"
    );
    assert_eq!(
        fs::read(fuzz.join("Cargo.lock")).unwrap(),
        lock,
        "the user's lock file is byte-identical"
    );

    // The other bugs the reductions ran into are filed once each (among
    // them two_panics' decoy) and reduced in the same run, finding nothing
    // new: a second run has nothing to do.
    let decoy = also
        .iter()
        .find(|m| m["target"] == "two_panics")
        .expect("two_panics' other bug");
    assert!(
        decoy["failure"].as_str().unwrap().contains("bug B"),
        "{decoy}"
    );
    let decoy_input = fs::read(decoy["path"].as_str().unwrap()).unwrap();
    assert!(decoy_input.starts_with(b"XYZ"), "{decoy_input:?}");
    let ids: HashSet<(&str, &str)> = also
        .iter()
        .map(|m| {
            (
                m["target"].as_str().unwrap(),
                m["failure_id"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(ids.len(), also.len(), "one artifact per failure");
    for filed in &also {
        let path = Path::new(filed["path"].as_str().unwrap());
        assert!(minimized_path(path).is_file(), "{filed}");
    }
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

/// The `artifact-also-found` messages of a run.
fn also_found(messages: &[serde_json::Value]) -> Vec<&serde_json::Value> {
    messages
        .iter()
        .filter(|m| m["reason"] == "artifact-also-found")
        .collect()
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
    let messages = run.messages();
    let finished = crate::util::message(&messages, "reduction-finished");
    assert!(
        finished["failure"]
            .as_str()
            .unwrap()
            .contains("two_panics.rs:34:13"),
        "{finished}"
    );
}

/// `--effort quick` is ddmin and canonicalization alone, as before the
/// searches existed; the default never makes the result larger (here the
/// typed reduction, which replaces canonicalization, lowers `id` to 0 and
/// the enum tag to the lowest that still picks `Scale`), keeps the
/// failure, and names its steps.
#[test]
fn effort_quick_keeps_the_plain_result_and_the_search_is_never_larger() {
    let fuzz = shared();
    let crash = artifact(fuzz, "typed_arbitrary");
    let out = crash.with_file_name(format!(
        "minimized-from-{}",
        crash.file_name().unwrap().to_string_lossy()
    ));
    let reduce = |effort: &str, jobs: &str| {
        let run = cargo_reduce(&[
            "reduce",
            "--manifest-path",
            fuzz.to_str().unwrap(),
            crash.to_str().unwrap(),
            "--force",
            "--effort",
            effort,
            jobs,
            "--message-format",
            "json",
        ]);
        run.expect_code(0);
        (fs::read(&out).unwrap(), run.messages().pop().unwrap())
    };
    let (quick, finished) = reduce("quick", "-j1");
    assert_eq!(quick, b"00000\x9a\xc9");
    assert!(finished.get("steps").is_none(), "{finished}");
    let (searched, finished) = reduce("default", "-j1");
    assert_eq!(searched, b"\0\0\x9a\x99\x99\x99\xc9");
    assert_eq!(finished["minimal"], true);
    assert!(finished["debug"].as_str().unwrap().contains("factor: 201"));
    let steps: Vec<&str> = finished["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["step"].as_str().unwrap())
        .collect();
    // A typed input goes from ddmin to the typed passes: `typed-lower`
    // takes the place of canonicalization.
    assert_eq!(
        steps[..4],
        ["ddmin", "typed-lower", "typed-drop", "typed-fields"],
        "{steps:?}"
    );
    assert!(!steps.contains(&"canonical") && steps.contains(&"search-2byte"));
    let (parallel, _) = reduce("default", "-j2");
    assert_eq!(parallel, searched, "-j2 finds what -j1 finds");
    let (max, _) = reduce("max", "-j2");
    assert!(max.len() <= searched.len());
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

/// An input in a corpus folder, or anywhere outside `artifacts/<target>/`,
/// has its results (the reduction, the other bugs filed) written to
/// `artifacts/<target>/`, where its row says and the next run looks:
/// never into the corpus (helper-38: `minimized-from-` and
/// `crash-…-found-reducing-` were written beside it, into the corpus, and
/// the next run found neither).
#[test]
fn an_input_from_a_corpus_leaves_the_corpus_as_it_was() {
    let (_dir, fuzz) = fresh_copy();
    let corpus = fuzz.join("corpus/two_panics");
    fs::create_dir_all(&corpus).unwrap();
    let input = corpus.join("crash-copy");
    fs::copy(artifact(&fuzz, "two_panics"), &input).unwrap();
    let before = snapshot(&corpus);
    let run = cargo_reduce(&[
        "reduce",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        "--fuzz-target",
        "two_panics",
        input.to_str().unwrap(),
    ]);
    run.expect_code(0);
    assert_eq!(snapshot(&corpus), before, "{}", run.stdout());
    let artifacts = fuzz.join("artifacts/two_panics");
    assert_eq!(
        fs::read(artifacts.join("minimized-from-crash-copy")).unwrap(),
        b"ABXYZ"
    );
    let also = names_containing(&artifacts, "-found-reducing-crash-copy");
    assert_eq!(
        also.len(),
        1,
        "bug B, filed as an artifact: {}",
        run.stdout()
    );
    assert!(run.stdout().contains(&format!("two_panics/{}", also[0])));
}

/// A run that names one input knows the bugs of its target's other
/// artifacts: reducing bug A runs into bug B, which another artifact
/// records (reduced already, to other bytes than those the reduction
/// finds), and B is not filed again (helper-38: a `found-reducing-` file
/// for a bug whose minimized copy was there).
#[test]
fn a_bug_another_artifact_records_is_not_filed_again() {
    let (_dir, fuzz) = fresh_copy();
    let bug_a = artifact(&fuzz, "two_panics");
    let artifacts = fuzz.join("artifacts/two_panics");
    fs::write(artifacts.join("crash-bug-b"), b"XYZXYZ").unwrap();
    fs::write(artifacts.join("minimized-from-crash-bug-b"), b"XYZW").unwrap();
    let run = cargo_reduce(&[
        "reduce",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        bug_a.to_str().unwrap(),
        "--message-format",
        "json",
    ]);
    run.expect_code(0);
    assert!(also_found(&run.messages()).is_empty(), "{}", run.stdout());
    let filed = names_containing(&artifacts, "-found-reducing-");
    assert!(filed.is_empty(), "{filed:?}");
}

/// The names of the files of `dir` that contain `part`.
fn names_containing(dir: &Path, part: &str) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(part))
        .collect()
}

/// A file from outside `artifacts/<target>/` is shown by its path under
/// the table, since the row's `target/name` would place it there.
#[test]
fn an_input_from_elsewhere_is_named_by_its_path() {
    let fuzz = shared();
    let elsewhere = tempfile::tempdir().unwrap();
    let input = elsewhere.path().join("crash-from-a-bug-report");
    fs::copy(artifact(fuzz, "byte_parser"), &input).unwrap();
    let run = cargo_reduce(&[
        "reduce",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        "--fuzz-target",
        "byte_parser",
        input.to_str().unwrap(),
    ]);
    run.expect_code(0);
    let stdout = run.stdout();
    let listed = stdout
        .split_once("Inputs not in artifacts/<target>/:\n")
        .map(|(_, rest)| rest.lines().next().unwrap_or_default());
    let line = listed.unwrap_or_else(|| panic!("no such list: {stdout}"));
    assert!(
        line.contains("byte_parser/crash-from-a-bug-report")
            && line.ends_with(&format!("from {}", input.display())),
        "{stdout}"
    );
    // `list` shows its result in the target's folder (helper-57: the
    // target showed `(none)` beside it).
    let list = cargo_reduce(&["reduce", "list", "--manifest-path", fuzz.to_str().unwrap()]);
    list.expect_code(0);
    assert!(
        list.stdout().lines().any(|l| l.contains("crash-from-a-bug-report (input elsewhere)")
            && l.contains("yes (")),
        "{}",
        list.stdout()
    );
    let inside = cargo_reduce(&[
        "reduce",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        artifact(fuzz, "byte_parser").to_str().unwrap(),
        "--force",
    ]);
    inside.expect_code(0);
    assert!(
        !inside.stdout().contains("Inputs not in"),
        "{}",
        inside.stdout()
    );
    // A bare name, run inside `artifacts/<target>/`, is in it too.
    let crash = artifact(fuzz, "byte_parser");
    let args = [
        "reduce",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        crash.file_name().unwrap().to_str().unwrap(),
        "--force",
    ];
    let mut here = crate::fuzz_fixture::command(&args, &crate::fuzz_fixture::target_dir());
    here.current_dir(crash.parent().unwrap());
    let here = crate::util::Run(here.output().unwrap());
    here.expect_code(0);
    assert!(
        !here.stdout().contains("Inputs not in"),
        "{}",
        here.stdout()
    );
}

#[test]
fn ctrl_c_keeps_the_best_artifact_so_far() {
    use std::process::{Command, Stdio};
    let fuzz = shared();
    // Build first, so the interrupt lands in the reduction.
    cargo_reduce(&[
        "reduce",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        "--fuzz-target",
        "abort",
        "--force",
    ])
    .expect_code(0);
    let crash = artifact(fuzz, "stack_overflow");
    let original = fs::read(&crash).unwrap();
    let target_dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-targets-build");
    let mut child = Command::new(env!("CARGO_BIN_EXE_cargo-reduce"))
        .args([
            "reduce",
            "--manifest-path",
            fuzz.to_str().unwrap(),
            crash.to_str().unwrap(),
            "--force",
            "-j1",
            "--message-format",
            "json",
        ])
        .env("CARGO_TARGET_DIR", target_dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupt once the reduction has started (the artifact reproduced).
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("artifact-reproduced") {
        line.clear();
        assert!(
            std::io::BufRead::read_line(&mut stdout, &mut line).unwrap() > 0,
            "ended before reproducing"
        );
    }
    // At once: a fast machine may finish the reduction within any delay.
    // SAFETY: sending SIGINT to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let last: serde_json::Value =
        serde_json::from_str(rest.lines().last().expect("a reduction-finished line")).unwrap();
    assert_eq!(last["reason"], "reduction-finished");
    // The signal stopped the search, or (a fast machine) came after its
    // last shrink, in the final check: the result says which.
    let stopped = rest.contains("\"reason\":\"reduction-stopped\"");
    assert_eq!(last["minimal"], !stopped, "{rest}");
    // Stopped before anything smaller was found, the artifact itself is
    // the best so far (no copy of it is written).
    let output = last["output"].as_str().unwrap();
    let unshrunk = stopped && output == crash.to_str().unwrap();
    assert_eq!(
        output.contains("/partial-from-"),
        stopped && !unshrunk,
        "only a 1-minimal result has the final name: {last}"
    );
    if unshrunk {
        assert_eq!(last["reduced_bytes"], last["original_bytes"], "{last}");
    }
    let out = fs::read(last["output"].as_str().unwrap()).unwrap();
    assert!(out.len() <= original.len());
    assert_eq!(fs::read(&crash).unwrap(), original);
}

/// A `slow-unit-*` artifact fails by running longer than the slow-unit
/// threshold, and is reduced like a timeout; under `--sanitizer none` a
/// `leak-*` one is skipped with the reason (only the ASan build finds a
/// leak), not failed.
#[test]
fn slow_units_are_reduced_and_leaks_skipped_with_a_reason() {
    let (_dir, fuzz) = fresh_copy();
    let hang = fs::read(artifact(&fuzz, "endless_loop")).unwrap();
    let dir = fuzz.join("artifacts/endless_loop");
    fs::write(dir.join("slow-unit-0123"), &hang).unwrap();
    fs::write(dir.join("leak-4567"), &hang).unwrap();
    let run = cargo_reduce(&[
        "reduce",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        "--fuzz-target",
        "endless_loop",
        "--slow-unit-secs",
        "0.5",
        "--sanitizer",
        "none",
        "--message-format",
        "json",
    ]);
    run.expect_code(0);
    crate::schema::check_messages(&run);
    let messages = run.messages();
    let skipped: Vec<_> = messages
        .iter()
        .filter(|m| m["reason"] == "artifact-skipped")
        .collect();
    assert_eq!(skipped.len(), 1, "{}", run.stdout());
    assert!(skipped[0]["path"].as_str().unwrap().ends_with("leak-4567"));
    assert_eq!(skipped[0]["cause"], "leak");
    assert!(skipped[0]["why"]
        .as_str()
        .unwrap()
        .contains("LeakSanitizer"));
    let slow = messages
        .iter()
        .find(|m| {
            m["reason"] == "reduction-finished"
                && m["input"].as_str().unwrap().ends_with("slow-unit-0123")
        })
        .expect("the slow unit was reduced");
    // A timeout is placed by the function the test was in.
    let failure = slow["failure"].as_str().unwrap();
    assert!(
        failure.starts_with("timeout at endless_loop::"),
        "{failure}"
    );
    assert_eq!(
        fs::read(dir.join("minimized-from-slow-unit-0123")).unwrap(),
        b"LP\x00"
    );
    assert!(!dir.join("minimized-from-leak-4567").exists());
}

/// An artifact linked into `artifacts/<target>/` from elsewhere belongs to
/// that target, named explicitly as in `list`; the link's target is read,
/// never written.
#[test]
fn a_symlinked_artifact_named_explicitly_is_reduced() {
    let (dir, fuzz) = fresh_copy();
    let crash = artifact(&fuzz, "abort");
    let elsewhere = dir.path().join("crash-elsewhere");
    fs::rename(&crash, &elsewhere).unwrap();
    let link = crash.with_file_name("crash-linked");
    std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
    let original = fs::read(&elsewhere).unwrap();
    cargo_reduce(&[
        "reduce",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        link.to_str().unwrap(),
    ])
    .expect_code(0);
    assert_eq!(
        fs::read(link.with_file_name("minimized-from-crash-linked")).unwrap(),
        b"ZAP"
    );
    assert_eq!(fs::read(&elsewhere).unwrap(), original);
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
}

/// A capped reduction is saved as `partial-from-<name>`, never over (or
/// as) the final `minimized-from-<name>`; the next run finishes it from
/// there and removes the partial file.
#[test]
fn a_capped_result_is_partial_and_the_next_run_finishes_it() {
    let (_dir, fuzz) = fresh_copy();
    let crash = artifact(&fuzz, "stack_overflow");
    let name = crash.file_name().unwrap().to_string_lossy().into_owned();
    let partial = crash.with_file_name(format!("partial-from-{name}"));
    let minimized = crash.with_file_name(format!("minimized-from-{name}"));
    let reduce = |extra: &[&str]| {
        let base = [
            "reduce",
            "--manifest-path",
            fuzz.to_str().unwrap(),
            "--fuzz-target",
            "stack_overflow",
        ];
        cargo_reduce(&[&base[..], extra, &["--message-format", "json"]].concat())
    };
    let capped = reduce(&["--max-tests", "40"]);
    capped.expect_code(0);
    assert!(
        partial.exists() && !minimized.exists(),
        "{}",
        capped.stdout()
    );
    let partial_len = fs::read(&partial).unwrap().len();
    assert!(partial_len < fs::read(&crash).unwrap().len());
    let again = reduce(&[]);
    again.expect_code(0);
    let last = again.messages().pop().unwrap();
    assert_eq!(last["minimal"], true, "{last}");
    assert!(minimized.exists() && !partial.exists());
    assert!(fs::read(&minimized).unwrap().len() <= partial_len);
}

/// `--out-dir DIR` (a read-only tree: a Nix store, a vendored crate):
/// every result goes under `DIR/<package>/`, the tree stays byte-identical,
/// and the next run finds the results there; `corpus` writes its set there
/// too.
#[test]
fn out_dir_takes_every_result_and_the_tree_stays_as_it_was() {
    let (dir, fuzz) = fresh_copy();
    let out = dir.path().join("results");
    let manifest = fuzz.join("Cargo.toml");
    let reduce = |extra: &[&str]| {
        let args = [
            &[
                "reduce",
                "--manifest-path",
                manifest.to_str().unwrap(),
                "--fuzz-target",
                "abort",
                "--out-dir",
                out.to_str().unwrap(),
            ][..],
            extra,
        ]
        .concat();
        cargo_reduce(&args)
    };
    let before = snapshot(&fuzz);
    let run = reduce(&["--message-format", "json"]);
    run.expect_code(0);
    assert_eq!(snapshot(&fuzz), before, "nothing written in the tree");
    let messages = run.messages();
    let finished = crate::util::message(&messages, "reduction-finished");
    let output = PathBuf::from(finished["output"].as_str().unwrap());
    assert_eq!(
        output.parent().unwrap(),
        out.join("fuzz-targets/artifacts/abort"),
        "{finished}"
    );
    assert_eq!(fs::read(&output).unwrap(), b"ZAP");
    let again = reduce(&[]);
    again.expect_code(0);
    assert!(
        again.stderr().contains("nothing to reduce"),
        "{}",
        again.stderr()
    );

    // The other bug a reduction runs into is filed under DIR too, and
    // reduced there in the same run; the next run finds both there.
    let two_panics = |format: &[&str]| {
        let args = [
            &["reduce", "--manifest-path", manifest.to_str().unwrap()][..],
            &[
                "--fuzz-target",
                "two_panics",
                "--out-dir",
                out.to_str().unwrap(),
            ],
            format,
        ]
        .concat();
        cargo_reduce(&args)
    };
    let first = two_panics(&["--message-format", "json"]);
    first.expect_code(0);
    let first = first.messages();
    let also = also_found(&first);
    assert_eq!(also.len(), 1, "{first:?}");
    let decoy = PathBuf::from(also[0]["path"].as_str().unwrap());
    assert!(decoy.starts_with(out.join("fuzz-targets/artifacts/two_panics")));
    let reduced = first
        .iter()
        .find(|m| m["reason"] == "reduction-finished" && m["input"] == also[0]["path"])
        .expect("the decoy reduced in the same run");
    let output = Path::new(reduced["output"].as_str().unwrap());
    assert_eq!(output.parent(), decoy.parent(), "{reduced}");
    let next = two_panics(&[]);
    next.expect_code(0);
    assert!(
        next.stderr().contains("nothing to reduce"),
        "{}",
        next.stderr()
    );
    assert_eq!(snapshot(&fuzz), before, "nothing written in the tree");

    let inputs = dir.path().join("inputs");
    fs::create_dir(&inputs).unwrap();
    fs::write(inputs.join("header"), b"RX\x01").unwrap();
    let corpus = cargo_reduce(&[
        "reduce",
        "corpus",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--fuzz-target",
        "byte_parser",
        "--corpus",
        inputs.to_str().unwrap(),
        "--out-dir",
        out.to_str().unwrap(),
    ]);
    corpus.expect_code(0);
    assert_eq!(snapshot(&fuzz), before, "nothing written in the tree");
    assert!(out.join("fuzz-targets/corpus-min/byte_parser").is_dir());
}

/// A run with nothing new does not run the inputs again: each found
/// input's outcome on an unchanged build is remembered (semver's 58
/// duplicates, 32 of them timeouts, took minutes to replay on every run;
/// gimli's 229 duplicate crashes, seconds).
/// Another `--timeout` replays them again.
#[test]
fn a_rerun_takes_each_input_s_outcome_from_the_last_run_on_the_same_build() {
    let (dir, crate_dir) = crate::fuzz_fixture::fixture_copy("corpus-demo");
    let artifacts = crate_dir.join("artifacts/lazy");
    fs::create_dir_all(&artifacts).unwrap();
    // Two inputs of one endless loop: one is reduced, one is its
    // duplicate. Unique to this run of the test, as the build directory
    // (and so what the last run remembers) is every run's.
    let nonce = std::time::SystemTime::UNIX_EPOCH
        .elapsed()
        .unwrap()
        .as_nanos();
    fs::write(artifacts.join("timeout-a"), format!("h{nonce}")).unwrap();
    fs::write(artifacts.join("timeout-b"), format!("nh{nonce}")).unwrap();
    // And two of one panic: a duplicate crash is not reproduced again
    // either.
    fs::write(artifacts.join("crash-a"), format!("p{nonce}")).unwrap();
    fs::write(artifacts.join("crash-b"), format!("np{nonce}")).unwrap();
    let manifest = crate_dir.join("Cargo.toml");
    let run = |log: &str, extra: &[&str]| {
        let log = dir.path().join(log);
        let base = [
            "reduce",
            "--manifest-path",
            manifest.to_str().unwrap(),
            "--fuzz-target",
            "lazy",
            "--sanitizer",
            "none",
        ];
        let timeout = ["--timeout", "0.2"];
        let extra = if extra.is_empty() {
            &timeout[..]
        } else {
            extra
        };
        let output = crate::fuzz_fixture::command(
            &[&base[..], extra].concat(),
            &crate::fuzz_fixture::target_dir(),
        )
        .env("LAZY_RUN_LOG", &log)
        .output()
        .unwrap();
        let run = crate::util::Run(output);
        run.expect_code(0);
        let runs = fs::read_to_string(&log).unwrap_or_default();
        (run.stdout() + &run.stderr(), runs.lines().count())
    };
    let (first, ran) = run("first.log", &[]);
    assert!(ran > 0, "{first}");
    // The duplicate timed out once, as the failure reproduced before it
    // did: its timeout was not waited out three times (helper-49: gimli's
    // 25 duplicate timeouts, 88 s).
    let log = fs::read_to_string(dir.path().join("first.log")).unwrap();
    let b_runs = log
        .lines()
        .filter(|l| l.starts_with(&format!("nh{nonce} ")))
        .count();
    assert_eq!(b_runs, 1, "{log}");
    assert_eq!(
        fs::read(artifacts.join("minimized-from-timeout-a")).unwrap(),
        b"h"
    );
    let (again, ran) = run("again.log", &[]);
    assert_eq!(ran, 0, "nothing ran again: {again}");
    assert!(again.contains("same failure as lazy/timeout-a"), "{again}");
    assert!(again.contains("same failure as lazy/crash-a"), "{again}");
    // `list` says why the duplicate was not reduced.
    let list = crate::fuzz_fixture::cargo_reduce(&[
        "reduce",
        "list",
        "--manifest-path",
        manifest.to_str().unwrap(),
    ]);
    let line = list
        .stdout()
        .lines()
        .find(|l| l.contains("timeout-b"))
        .map(str::to_string);
    assert!(
        line.as_deref()
            .is_some_and(|l| l.ends_with("duplicate of timeout-a")),
        "{}",
        list.stdout()
    );
    let (longer, ran) = run("longer.log", &["--timeout", "0.3"]);
    assert!(ran > 0, "another timeout replays again: {longer}");
}

/// A folder of `artifacts/` that names no fuzz target (a renamed one's) is
/// named in a warning by `list` and by a run, not skipped in silence
/// (helper-49 on uuid).
#[test]
fn artifacts_of_no_target_are_named() {
    let (_dir, fuzz) = fresh_copy();
    let stray = fuzz.join("artifacts/parse_old");
    fs::create_dir_all(&stray).unwrap();
    fs::write(stray.join("crash-1"), b"x").unwrap();
    let list = cargo_reduce(&["reduce", "list", "--manifest-path", fuzz.to_str().unwrap()]);
    list.expect_code(0);
    let warned = |stderr: String| {
        stderr.contains("artifacts/parse_old` names no fuzz target, so its 1 file(s) are skipped")
    };
    assert!(warned(list.stderr()), "{}", list.stderr());
    // One target chosen, the others' folders are not stray.
    let one = cargo_reduce(&[
        "reduce",
        "list",
        "--manifest-path",
        fuzz.to_str().unwrap(),
        "--fuzz-target",
        "abort",
    ]);
    one.expect_code(0);
    assert!(
        !one.stderr().contains("names no fuzz target"),
        "{}",
        one.stderr()
    );
}
