//! `cargo reduce corpus` on `cargo-reduce/tests-fixtures/corpus-demo`: a
//! corpus with redundant inputs, a duplicate and a crashing input, made
//! here (the fixture copies leave `corpus/` out).

use std::fs;
use std::path::{Path, PathBuf};

use crate::fuzz_fixture::{
    cargo_reduce, copy_tree, corpus_inputs, fixture_copy, nightly, repo, snapshot,
};
use crate::recycled::RecycledDir;
use crate::util::{message, Run};

/// The corpus: `num:12` twice (one a copy), inputs each of whose features
/// another input also has, and `boom:1`, which panics.
const CORPUS: &[(&str, &[u8])] = &[
    ("a", b"num:12"),
    ("a-copy", b"num:12"),
    ("b", b"num:34"),
    ("c", b"text:ab"),
    ("d", b"num:12;text:xy"),
    ("e", b"flag:on"),
    ("f", b"flag:off"),
    ("g", b"num:1234567890"),
    ("crash", b"boom:1"),
];

fn with_corpus() -> (RecycledDir, PathBuf) {
    let (dir, crate_dir) = fixture_copy("corpus-demo");
    let corpus = crate_dir.join("corpus/records");
    fs::create_dir_all(&corpus).unwrap();
    for (name, bytes) in CORPUS {
        fs::write(corpus.join(name), bytes).unwrap();
    }
    (dir, crate_dir)
}

/// `cargo reduce corpus` on the fixture copy, with JSON messages.
fn corpus_run(crate_dir: &Path, extra: &[&str]) -> Run {
    let mut extra = extra.to_vec();
    // `--corpus` names one target's corpus: the fixture's other target is
    // `typed`.
    if extra.contains(&"--corpus") && !extra.contains(&"--fuzz-target") {
        extra.extend(["--fuzz-target", "records"]);
    }
    corpus_run_as_given(crate_dir, &extra)
}

/// [`corpus_run`] with `extra` as given.
fn corpus_run_as_given(crate_dir: &Path, extra: &[&str]) -> Run {
    let manifest = crate_dir.join("Cargo.toml");
    let mut args = vec![
        "reduce",
        "corpus",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--message-format",
        "json",
    ];
    args.extend_from_slice(extra);
    cargo_reduce(&args)
}

/// [`corpus_run`], which must succeed.
fn corpus(crate_dir: &Path, extra: &[&str]) -> Run {
    let run = corpus_run(crate_dir, extra);
    run.expect_code(0);
    run
}

fn minimized(run: &Run) -> serde_json::Value {
    message(&run.messages(), "corpus-minimized").clone()
}

#[test]
fn a_corpus_shrinks_keeps_every_feature_and_its_crash_becomes_an_artifact() {
    let (_dir, crate_dir) = with_corpus();
    // One target's corpus is a file by mistake: the others go on.
    std::fs::write(crate_dir.join("corpus/typed"), b"not a folder").unwrap();
    let original = snapshot(&crate_dir.join("corpus"));
    let run = corpus(&crate_dir, &[]);
    let summary = minimized(&run);
    assert_eq!(
        summary["files_before"], 8,
        "the copy counts once: {summary}"
    );
    assert_eq!(summary["failing"], 1);
    // The fixture's other targets have no corpus: named, not silently left.
    let skipped = run.warnings();
    assert!(
        skipped.iter().any(|w| w.starts_with("no corpus for")
            && w.contains("typed (`")
            && w.contains("is a file, not a folder")),
        "{skipped:?}"
    );
    let after = summary["files_after"].as_u64().unwrap();
    assert!(after < 7 && after > 0, "{summary}");
    assert!(summary["features"].as_u64().unwrap() > 0);
    let out = crate_dir.join("corpus-min/records");
    assert_eq!(corpus_inputs(&out).len() as u64, after);
    assert_eq!(
        snapshot(&crate_dir.join("corpus")),
        original,
        "the corpus is untouched"
    );
    // The crash: reported, and kept as libFuzzer names an artifact.
    let failure = message(&run.messages(), "corpus-failure").clone();
    assert!(
        failure["failure"].as_str().unwrap().contains("boom record"),
        "{failure}"
    );
    let artifact = PathBuf::from(failure["artifact"].as_str().unwrap());
    assert_eq!(
        artifact.parent().unwrap(),
        crate_dir.join("artifacts/records")
    );
    let name = artifact.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("crash-") && name.len() == 6 + 40, "{name}");
    assert_eq!(fs::read(&artifact).unwrap(), b"boom:1");
    // The output has every feature of the whole corpus, and minimizing it
    // again changes nothing (one run converges); with one worker the same.
    let out_arg = out.to_str().unwrap();
    let again_dir = crate_dir.join("again");
    let again = corpus(
        &crate_dir,
        &["--corpus", out_arg, "--output", again_dir.to_str().unwrap()],
    );
    let again_summary = minimized(&again);
    assert_eq!(
        again_summary["features"], summary["features"],
        "{again_summary}"
    );
    assert_eq!(again_summary["files_after"], after);
    assert_eq!(corpus_inputs(&again_dir).len() as u64, after);
    let single = crate_dir.join("single");
    corpus(&crate_dir, &["-j", "1", "-o", single.to_str().unwrap()]);
    assert_eq!(named(&single), named(&out), "the same set for every -j");
    assert_eq!(
        named(&again_dir),
        named(&out),
        "a second run keeps the same set"
    );
}

/// A failing corpus input equal to a file its target's artifacts folder
/// has (here the `minimized-from-` copy of the bug it is) is reported as
/// that file, not written again (helper-38: corpus filed a hang identical
/// to a minimized one, which the next `cargo reduce` reduced again).
#[test]
fn a_failing_input_already_in_the_artifacts_folder_is_not_filed_again() {
    let (_dir, crate_dir) = with_corpus();
    let artifacts = crate_dir.join("artifacts/records");
    fs::create_dir_all(&artifacts).unwrap();
    let kept = artifacts.join("minimized-from-crash-earlier");
    fs::write(&kept, b"boom:1").unwrap();
    let run = corpus(&crate_dir, &["--fuzz-target", "records"]);
    let failure = message(&run.messages(), "corpus-failure").clone();
    assert_eq!(failure["artifact"], kept.to_str().unwrap(), "{failure}");
    let files: Vec<_> = fs::read_dir(&artifacts).unwrap().collect();
    assert_eq!(files.len(), 1, "nothing new in {}", artifacts.display());
}

#[test]
fn in_place_replaces_the_corpus_with_the_set_and_a_second_run_changes_nothing() {
    let (_dir, crate_dir) = with_corpus();
    let dir = crate_dir.join("corpus/records");
    let dir_arg = dir.to_str().unwrap().to_string();
    let run = corpus(&crate_dir, &["--corpus", &dir_arg, "--in-place"]);
    let after = minimized(&run)["files_after"].as_u64().unwrap();
    let first = corpus_inputs(&dir);
    assert_eq!(first.len() as u64, after);
    assert!(
        first.iter().all(|(_, b)| b != b"boom:1"),
        "the crash is not in the corpus"
    );
    let siblings: Vec<_> = fs::read_dir(dir.parent().unwrap()).unwrap().collect();
    assert_eq!(
        siblings.len(),
        1,
        "nothing staged is left beside the corpus"
    );
    corpus(&crate_dir, &["--corpus", &dir_arg, "--in-place"]);
    assert_eq!(corpus_inputs(&dir), first, "a second run changes nothing");
}

/// A target's corpus that is a file is named as such.
#[test]
fn a_corpus_that_is_a_file_is_named() {
    let (_dir, crate_dir) = fixture_copy("corpus-demo");
    fs::create_dir_all(crate_dir.join("corpus")).unwrap();
    fs::write(crate_dir.join("corpus/records"), b"num:12").unwrap();
    corpus_run_as_given(&crate_dir, &["--fuzz-target", "records"])
        .expect_error(3, "is a file, not a folder of inputs");
}

/// `--in-place` on the target's artifacts (or its ledger) is refused: the
/// set would keep what covers and drop the crashes.
#[test]
fn in_place_refuses_a_folder_of_failing_inputs() {
    let (_dir, crate_dir) = with_corpus();
    for folder in ["artifacts/records", "regressions/records"] {
        let dir = crate_dir.join(folder);
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("crash-1"), b"boom:1").unwrap();
        fs::write(dir.join("crash-2"), b"num:12").unwrap();
        let before = snapshot(&dir);
        let dir_arg = dir.to_str().unwrap().to_string();
        corpus_run(&crate_dir, &["--corpus", &dir_arg, "--in-place"])
            .expect_error(2, "is or holds a folder of failing inputs");
        assert_eq!(snapshot(&dir), before, "{folder} is untouched");
    }
    // Nor a folder that holds them (the whole fuzz crate).
    let crate_arg = crate_dir.to_str().unwrap().to_string();
    corpus_run(&crate_dir, &["--corpus", &crate_arg, "--in-place"])
        .expect_error(2, "holds a folder of failing inputs");
}

/// `--in-place` on an afl.rs target whose corpus is its AFL++ queues (no
/// `corpus/<target>/`) is refused, as afl-fuzz owns them: no folder is made
/// for the set, and the queue is as it was.
#[test]
fn in_place_refuses_an_afl_targets_queues() {
    let dir = tempfile::tempdir().unwrap();
    let crate_dir = dir.path().join("fuzz-targets-afl");
    copy_tree(&repo().join("fuzz-targets-afl"), &crate_dir);
    copy_tree(&repo().join("corpus/afl/out"), &crate_dir.join("out"));
    let out = crate_dir.join("out");
    let before = snapshot(&out);
    corpus_run_as_given(&crate_dir, &["--fuzz-target", "byte_parser", "--in-place"])
        .expect_error(2, "which afl-fuzz owns");
    assert_eq!(snapshot(&out), before, "the AFL++ output is untouched");
    assert!(
        !crate_dir.join("corpus/byte_parser").exists(),
        "no folder made"
    );
}

/// `--corpus fuzz/corpus/<target>` names its target, as `cargo fuzz cmin
/// <target>` would; a folder no target owns still asks for one.
#[test]
fn a_targets_own_corpus_folder_names_the_target() {
    let (dir, crate_dir) = with_corpus();
    let run_with =
        |corpus: &Path| corpus_run_as_given(&crate_dir, &["--corpus", corpus.to_str().unwrap()]);
    let elsewhere = dir.path().join("inputs");
    fs::create_dir_all(&elsewhere).unwrap();
    fs::write(elsewhere.join("a"), b"num:12").unwrap();
    let refused = run_with(&elsewhere);
    refused.expect_error(2, "choose one with --fuzz-target");
    let run = run_with(&crate_dir.join("corpus/records"));
    run.expect_code(0);
    assert_eq!(minimized(&run)["target"], "records");
}

#[test]
fn an_output_directory_of_the_users_files_is_refused() {
    let (_dir, crate_dir) = with_corpus();
    let out = crate_dir.join("mine");
    fs::create_dir_all(&out).unwrap();
    fs::write(out.join("notes.txt"), b"keep me").unwrap();
    let run = corpus_run(&crate_dir, &["--output", out.to_str().unwrap()]);
    run.expect_error(2, "is not an output of `cargo reduce corpus`");
    assert_eq!(fs::read(out.join("notes.txt")).unwrap(), b"keep me");
    assert!(
        !run.stdout().contains("\"reason\":\"build-started\""),
        "refused before anything is built:\n{}",
        run.stdout()
    );
    // Inside the corpus, the set would be read as part of it next time.
    let corpus = crate_dir.join("corpus/records");
    let before = snapshot(&corpus);
    let inside = corpus.join("min");
    let run = corpus_run(&crate_dir, &["--output", inside.to_str().unwrap()]);
    run.expect_error(2, "is inside the corpus");
    assert_eq!(snapshot(&corpus), before, "nothing written in the corpus");
    // A file, not a folder.
    let file = crate_dir.join("Cargo.toml");
    let run = corpus_run(&crate_dir, &["--output", file.to_str().unwrap()]);
    run.expect_error(2, "is not a folder; give --output a new or empty directory");
}

#[test]
fn a_corpus_folder_that_is_not_there_is_named_so() {
    let (dir, crate_dir) = with_corpus();
    let missing = dir.path().join("no-such-corpus");
    let run = corpus_run(&crate_dir, &["--corpus", missing.to_str().unwrap()]);
    run.expect_code(3);
    assert!(run.stderr().contains("does not exist"), "{}", run.stderr());
    let empty = dir.path().join("empty");
    fs::create_dir(&empty).unwrap();
    let run = corpus_run(&crate_dir, &["--corpus", empty.to_str().unwrap()]);
    run.expect_error(3, &format!("no input file in `{}`", empty.display()));
    let file = crate_dir.join("Cargo.toml");
    let run = corpus_run(&crate_dir, &["--corpus", file.to_str().unwrap()]);
    run.expect_error(3, "is not a directory");
    // Without --fuzz-target too: the folder is what is wrong.
    let run = corpus_run_as_given(&crate_dir, &["--corpus", missing.to_str().unwrap()]);
    run.expect_error(3, "does not exist");
}

/// `--output` is one target's set: with two targets that have a corpus it
/// is refused before anything is built (each set went there in turn, the
/// last one left).
#[test]
fn one_output_for_several_targets_is_refused() {
    let (_dir, crate_dir) = with_corpus();
    let typed = crate_dir.join("corpus/typed");
    fs::create_dir_all(&typed).unwrap();
    fs::write(typed.join("t"), [200u8, 1, 7, 7, 3]).unwrap();
    let out = crate_dir.join("out");
    let run = corpus_run_as_given(&crate_dir, &["--output", out.to_str().unwrap()]);
    run.expect_error(2, "2 targets have a corpus (records, typed)");
    assert!(!out.exists());
}

/// kill -9 at any moment of an `--in-place` run leaves the corpus as it
/// was or as the finished set, never a mix or nothing (the set is staged
/// beside it and swapped in by one exchange).
#[test]
fn kill_9_during_in_place_leaves_the_old_corpus_or_the_new_one_whole() {
    let (_dir, crate_dir) = with_corpus();
    let dir = crate_dir.join("corpus/records");
    let dir_arg = dir.to_str().unwrap().to_string();
    let original = corpus_inputs(&dir);
    // The finished set, from a run to the end on a copy.
    let done = crate_dir.join("done");
    let done_arg = done.to_str().unwrap().to_string();
    corpus(&crate_dir, &["--corpus", &dir_arg, "--output", &done_arg]);
    let finished = named(&done);
    let manifest = crate_dir.join("Cargo.toml");
    let mut outcomes = Vec::new();
    for delay_ms in [0, 150, 400, 700, 1000, 1500, 2500] {
        let mut child = crate::fuzz_fixture::command(
            &[
                "reduce",
                "corpus",
                "--manifest-path",
                manifest.to_str().unwrap(),
                "--fuzz-target",
                "records",
                "--corpus",
                &dir_arg,
                "--in-place",
            ],
            &crate::fuzz_fixture::target_dir(),
        )
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let now = corpus_inputs(&dir);
        let names: Vec<_> = now
            .iter()
            .map(|(p, b)| (p.file_name().unwrap().to_owned(), b.clone()))
            .collect();
        let whole = now == original || names == finished;
        assert!(whole, "after {delay_ms} ms: {names:?}");
        outcomes.push(now == original);
        if now != original {
            // Put the corpus back for the next try.
            fs::remove_dir_all(&dir).unwrap();
            fs::create_dir_all(&dir).unwrap();
            for (path, bytes) in &original {
                fs::write(dir.join(path.file_name().unwrap()), bytes).unwrap();
            }
        }
    }
    eprintln!("kept the original after each kill: {outcomes:?}");
}

/// Ctrl-C while a test hangs stops the replay at once: the hanging test
/// is killed, not waited out for its `--timeout` (it was, for 600 s here).
/// And `timeout -s INT` signals the process, then its whole group: one
/// interruption, which says what it left (the second signal was taken for
/// a second Ctrl-C, which leaves at once, and had said nothing).
#[test]
fn a_sigint_to_the_process_and_then_its_group_is_one_interruption() {
    use std::os::unix::process::CommandExt;
    let (dir, crate_dir) = with_corpus();
    let corpus = dir.path().join("hangs");
    fs::create_dir_all(&corpus).unwrap();
    fs::write(corpus.join("n"), b"n").unwrap();
    fs::write(corpus.join("h"), b"h").unwrap();
    let log = dir.path().join("runs.log");
    let manifest = crate_dir.join("Cargo.toml");
    let child = crate::fuzz_fixture::command(
        &[
            "reduce",
            "corpus",
            "--manifest-path",
            manifest.to_str().unwrap(),
            "--fuzz-target",
            "lazy",
            "--corpus",
            corpus.to_str().unwrap(),
            "--timeout",
            "600",
            "-j1",
        ],
        &crate::fuzz_fixture::target_dir(),
    )
    .env("LAZY_RUN_LOG", &log)
    .process_group(0)
    .stdout(std::process::Stdio::null())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let hanging = || {
        let log = fs::read_to_string(&log).unwrap_or_default();
        log.lines().any(|run| run.starts_with("h "))
    };
    while !hanging() {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let pid = child.id() as i32;
    let signalled = std::time::Instant::now();
    // SAFETY: signals to our own child and the group it leads, apart, so
    // that the kernel does not merge them into one pending signal.
    unsafe { libc::kill(pid, libc::SIGINT) };
    std::thread::sleep(std::time::Duration::from_millis(20));
    unsafe { libc::kill(-pid, libc::SIGINT) };
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        signalled.elapsed() < std::time::Duration::from_secs(300),
        "the hanging test was waited out: {stderr}"
    );
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("error: interrupted"), "{stderr}");
    assert!(!stderr.contains("interrupted again"), "{stderr}");
}

/// The minimized files of `dir`, by name.
fn named(dir: &Path) -> Vec<(std::ffi::OsString, Vec<u8>)> {
    corpus_inputs(dir)
        .into_iter()
        .map(|(p, b)| (p.file_name().unwrap().to_owned(), b))
        .collect()
}

/// `--shrink`: the kept inputs get shorter, the set keeps exactly the
/// corpus's features (a plain run on it counts the same), nothing in it
/// crashes, and a second `--shrink` run on it changes nothing.
#[test]
fn shrink_cuts_bytes_keeps_the_features_and_converges_in_one_run() {
    let (_dir, crate_dir) = with_corpus();
    let arg = |p: &Path| p.to_str().unwrap().to_string();
    let plain = crate_dir.join("plain");
    // `--out`: the spelling before `-o`/`--output`, still accepted.
    let plain_run = corpus(&crate_dir, &["--out", &arg(&plain)]);
    let shrunk = crate_dir.join("shrunk");
    let run = corpus(&crate_dir, &["--shrink", "--output", &arg(&shrunk)]);
    let summary = minimized(&run);
    let before = minimized(&plain_run);
    assert!(
        summary["bytes_after"].as_u64() < before["bytes_after"].as_u64(),
        "{summary} against {before}"
    );
    assert!(summary["shrink_rounds"].as_u64().unwrap() >= 1, "{summary}");
    assert!(summary.get("shrink_stopped").is_none(), "{summary}");
    // A message per round, its bytes never growing, the last the set's.
    let rounds: Vec<serde_json::Value> = run
        .messages()
        .into_iter()
        .filter(|m| m["reason"] == "corpus-shrink-round")
        .collect();
    assert_eq!(
        rounds.len() as u64,
        summary["shrink_rounds"].as_u64().unwrap()
    );
    assert!(rounds
        .iter()
        .all(|r| r["bytes_after"].as_u64() <= r["bytes_before"].as_u64()));
    let last = rounds.last().unwrap();
    assert_eq!(last["bytes_after"], summary["bytes_after"], "{last}");
    assert_eq!(last["files"], summary["files_after"], "{last}");
    // --max-time passed before the shrink starts (the build and the replay
    // take longer): the plain set is written, whole, and said to be cut.
    let cut = crate_dir.join("cut");
    let args = ["--shrink", "--max-time", "0.001", "--output", &arg(&cut)];
    let cut_summary = minimized(&corpus(&crate_dir, &args));
    assert_eq!(cut_summary["shrink_stopped"], "max-time", "{cut_summary}");
    assert_eq!(named(&cut), named(&plain), "the set, not shrunk");
    // A second --shrink run on the set: every feature of the corpus, none
    // new (it counts the set's own), nothing fails, nothing changes.
    let again = crate_dir.join("again");
    let second = corpus(
        &crate_dir,
        &[
            "--corpus",
            &arg(&shrunk),
            "--shrink",
            "--output",
            &arg(&again),
        ],
    );
    let recounted = minimized(&second);
    assert_eq!(recounted["features"], summary["features"], "{recounted}");
    assert_eq!(recounted["failing"], 0);
    assert_eq!(
        named(&again),
        named(&shrunk),
        "a second run changes nothing"
    );
}

/// A typed target's input is shrunk too, the typed reduction's draws
/// decoded by the plain build (the coverage build records none): one
/// input, so every byte it loses is the shrink's; the corpus untouched.
#[test]
fn shrink_reduces_a_typed_targets_inputs() {
    let (_dir, crate_dir) = fixture_copy("corpus-demo");
    let dir = crate_dir.join("corpus/typed");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("big"), [200u8, 1, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 3]).unwrap();
    let original = snapshot(&dir);
    let out = crate_dir.join("out");
    let args = [
        "--fuzz-target",
        "typed",
        "--shrink",
        "--output",
        out.to_str().unwrap(),
    ];
    let shrunk = minimized(&corpus(&crate_dir, &args));
    assert_eq!(shrunk["files_after"], 1, "{shrunk}");
    assert!(
        shrunk["bytes_after"].as_u64() < shrunk["bytes_before"].as_u64(),
        "{shrunk}"
    );
    assert_eq!(snapshot(&dir), original, "the corpus is untouched");
}

/// An input's features do not depend on what its worker ran before it:
/// `lazy`'s first `t` in a process takes the table's one-time
/// initialisation. Read in name order, `t` runs before `tnn` at -j1; kept
/// for the initialisation it alone would have had, a second run (on the
/// set, named by content: `tnn` first) would drop it. Every input counts
/// the initialisation it reaches, so `tnn` alone is the set, the same at
/// -j1 and -j2 and again.
#[test]
fn a_one_time_initialisation_counts_for_every_input_and_one_run_converges() {
    let (_dir, crate_dir) = fixture_copy("corpus-demo");
    let dir = crate_dir.join("corpus/lazy");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("1"), b"t").unwrap();
    fs::write(dir.join("2"), b"tnn").unwrap();
    let arg = |p: &Path| p.to_str().unwrap().to_string();
    let set = |jobs: &str, corpus_dir: &Path, out: &Path| {
        let args = [
            "--fuzz-target",
            "lazy",
            "-j",
            jobs,
            "--corpus",
            &arg(corpus_dir),
            "--output",
            &arg(out),
        ];
        corpus(&crate_dir, &args);
        named(out)
    };
    let (j1, j2, again) = (
        crate_dir.join("j1"),
        crate_dir.join("j2"),
        crate_dir.join("again"),
    );
    let first = set("1", &dir, &j1);
    let contents: Vec<&[u8]> = first.iter().map(|(_, bytes)| bytes.as_slice()).collect();
    assert_eq!(contents, [b"tnn".as_slice()], "`t` adds nothing to `tnn`");
    assert_eq!(set("1", &j1, &again), first, "a second run changes nothing");
    assert_eq!(set("2", &dir, &j2), first, "the same set at -j2");
}

/// An input's features are its own even after an input that left a file
/// open: the test process puts its memory back between tests, but not a
/// descriptor table, so the input after gets a fork of its own.
#[test]
fn an_input_after_one_that_left_a_file_open_counts_as_alone() {
    let (_dir, crate_dir) = fixture_copy("corpus-demo");
    let features_of_d = |files: &[(&str, &[u8])]| {
        let dir = crate_dir.join(format!("corpus-{}", files.len()));
        fs::create_dir_all(&dir).unwrap();
        for (name, bytes) in files {
            fs::write(dir.join(name), bytes).unwrap();
        }
        let written = lazy_features_out(&crate_dir, &dir, &files.len().to_string(), &["-j", "1"]);
        let recorded: serde_json::Value = serde_json::from_slice(&written).unwrap();
        let inputs = recorded["targets"][0]["inputs"].as_array().unwrap().clone();
        let d = inputs
            .iter()
            .find(|i| i["path"].as_str().unwrap().ends_with("/c-d"));
        d.expect("c-d recorded")["features"].clone()
    };
    let alone = features_of_d(&[("c-d", b"d")]);
    let after_leaks = features_of_d(&[("a-f", b"f"), ("b-ff", b"ff"), ("c-d", b"d")]);
    assert_eq!(after_leaks, alone);
}

/// The file `cargo reduce corpus --features-out` writes for `lazy`'s
/// inputs in `dir` (as `features-<name>.json`), `extra` on its command line.
fn lazy_features_out(crate_dir: &Path, dir: &Path, name: &str, extra: &[&str]) -> Vec<u8> {
    let out = crate_dir.join(format!("features-{name}.json"));
    let args = [
        "--fuzz-target",
        "lazy",
        "--corpus",
        dir.to_str().unwrap(),
        "--features-out",
        out.to_str().unwrap(),
    ];
    corpus(crate_dir, &[&args[..], extra].concat());
    fs::read(out).unwrap()
}

/// The features `lazy`'s corpus of the one input `input` records, in
/// four runs of `cargo reduce corpus`, `extra` on their command lines.
fn features_in_four_runs(input: &[u8], extra: &[&str]) -> Vec<Vec<u8>> {
    let (_dir, crate_dir) = fixture_copy("corpus-demo");
    let dir = crate_dir.join("corpus/lazy");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("input"), input).unwrap();
    (0..4)
        .map(|run| lazy_features_out(&crate_dir, &dir, &run.to_string(), extra))
        .collect()
}

/// An input whose path follows an address (where a fresh mapping lands)
/// has the same features in every run: coverage workers start with the
/// address layout not randomized. Randomized, four runs agree on one of
/// eight paths once in 512.
#[test]
fn an_inputs_features_do_not_follow_the_randomized_address_layout() {
    let runs = features_in_four_runs(b"m", &[]);
    assert!(runs.iter().all(|run| run == &runs[0]));
}

/// An input whose path follows a `HashMap`'s order has the same features
/// in every run: the stand-in's `getrandom`, which seeds it, gives coverage
/// workers a fixed sequence. Seeded by the kernel, four runs agree on one
/// of eight paths about once in 512.
#[test]
fn an_inputs_features_do_not_follow_a_hash_maps_random_seed() {
    let runs = features_in_four_runs(b"r", &[]);
    assert!(runs.iter().all(|run| run == &runs[0]));
}

/// The same in the AddressSanitizer coverage build (`--sanitizer
/// address`, on nightly), where the stand-in's `getrandom` seeds the map
/// too (it was left out of that build, and image-rs/image-tiff's corpus
/// got another set in every run).
#[test]
fn an_inputs_features_do_not_follow_a_hash_maps_random_seed_under_asan() {
    if !nightly("an_inputs_features_do_not_follow_a_hash_maps_random_seed_under_asan") {
        return;
    }
    let runs = features_in_four_runs(b"r", &["--sanitizer", "address"]);
    assert!(runs.iter().all(|run| run == &runs[0]));
}

/// Two shards record their shares' features, and `corpus merge` of the
/// two files writes the set one machine writes.
#[test]
fn two_shards_merged_give_the_set_of_one_machine() {
    let (_dir, crate_dir) = with_corpus();
    let arg = |p: &Path| p.to_str().unwrap().to_string();
    let whole = crate_dir.join("whole");
    corpus(&crate_dir, &["--output", &arg(&whole)]);
    let files: Vec<PathBuf> = (1..=2)
        .map(|k| crate_dir.join(format!("shard-{k}.json")))
        .collect();
    for (k, file) in files.iter().enumerate() {
        let shard = format!("{}/2", k + 1);
        let run = corpus(
            &crate_dir,
            &["--shard", &shard, "--features-out", &arg(file)],
        );
        assert!(run
            .messages()
            .iter()
            .all(|m| m["reason"] != "corpus-minimized"));
    }
    let merged_dir = crate_dir.join("merged");
    let run = cargo_reduce(&[
        "reduce",
        "corpus",
        "merge",
        &arg(&files[1]),
        &arg(&files[0]),
        "--output",
        &arg(&merged_dir),
        "--message-format",
        "json",
    ]);
    run.expect_code(0);
    assert_eq!(named(&merged_dir), named(&whole));
    assert_eq!(minimized(&run)["files_before"], 8);
    // One shard's file alone is not the whole corpus.
    let alone = cargo_reduce(&["reduce", "corpus", "merge", &arg(&files[0])]);
    alone.expect_error(3, "shard 2/2 are missing");
}

/// A disk that is full when the set is written: `--in-place` fails with a
/// one-line error naming the disk, and the corpus on it is exactly as it
/// was, nothing staged left beside it (faults.rs's tmpfs; skipped where
/// this process may not mount one).
#[test]
fn a_full_disk_during_the_write_leaves_the_corpus_as_it_was() {
    let (_dir, crate_dir) = with_corpus();
    let disk = crate_dir.join("disk");
    fs::create_dir_all(&disk).unwrap();
    let Some(mount) = crate::faults::mount_or_skip("full disk (corpus)", &disk, "64k") else {
        return;
    };
    let dir = disk.join("records");
    fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in CORPUS {
        fs::write(dir.join(name), bytes).unwrap();
    }
    let original = snapshot(&dir);
    mount.fill();
    let run = corpus_run(
        &crate_dir,
        &["--corpus", dir.to_str().unwrap(), "--in-place"],
    );
    run.expect_error(1, "No space left on device");
    assert_eq!(snapshot(&dir), original, "the corpus changed");
    let mut left: Vec<_> = fs::read_dir(&disk)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    left.sort();
    assert_eq!(left, ["filler", "records"], "nothing staged is left");
}

/// An input that hangs where its stack cannot be taken (the fixture's
/// `edges` target blocks the stack signal on `deaf-loop`) is reported as a
/// timeout, with a warning that names the input and says why it has no
/// stack; the corpus is untouched.
#[test]
fn a_hang_whose_stack_cannot_be_taken_is_warned_of_with_why() {
    let (_dir, crate_dir) = fixture_copy("pool-demo");
    let corpus_dir = crate_dir.join("corpus/edges");
    fs::create_dir_all(&corpus_dir).unwrap();
    fs::write(corpus_dir.join("deaf"), b"deaf-loop").unwrap();
    fs::write(corpus_dir.join("plain"), b"hello").unwrap();
    let original = snapshot(&crate_dir.join("corpus"));
    let manifest = crate_dir.join("Cargo.toml");
    let run = cargo_reduce(&[
        "reduce",
        "corpus",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--fuzz-target",
        "edges",
        "--timeout",
        "1",
        "--message-format",
        "json",
    ]);
    run.expect_code(0);
    let failure = message(&run.messages(), "corpus-failure").clone();
    assert_eq!(failure["failure"], "timeout", "{failure}");
    let deaf = corpus_dir.join("deaf");
    let warned = run.warnings().into_iter().find(|w| {
        w.starts_with(&format!(
            "`{}`: timeout after 1s (no stack: ",
            deaf.display()
        ))
    });
    assert!(
        warned.is_some_and(|w| w.contains("its stack could not be taken")),
        "{:?}",
        run.warnings()
    );
    assert_eq!(snapshot(&crate_dir.join("corpus")), original);
}

/// Failing inputs are grouped as `cargo reduce` groups them: two panics at
/// one place and call path whose messages differ only in the input they
/// quote (`boom record [_]` and `boom record [_, _]`) are one failure at
/// the default match level (one artifact: the smaller input, whose
/// failure the report names), and two when the target's settings say
/// `match = "message"`.
#[test]
fn failing_inputs_are_grouped_at_the_targets_match_level() {
    let failures = |settings: &str| {
        let (_dir, crate_dir) = with_corpus();
        // Read before `crash` (`boom:1`): the group's first input.
        fs::write(crate_dir.join("corpus/records/0-crash"), b"boom:12").unwrap();
        let manifest = crate_dir.join("Cargo.toml");
        let text = fs::read_to_string(&manifest).unwrap();
        fs::write(&manifest, text + settings).unwrap();
        let run = corpus(&crate_dir, &[]);
        assert_eq!(minimized(&run)["failing"], 2);
        let groups: Vec<serde_json::Value> = run
            .messages()
            .into_iter()
            .filter(|m| m["reason"] == "corpus-failure")
            .collect();
        let artifacts = corpus_inputs(&crate_dir.join("artifacts/records"));
        (groups, artifacts)
    };
    let (groups, artifacts) = failures("");
    assert_eq!(groups.len(), 1, "{groups:?}");
    assert_eq!(groups[0]["inputs"].as_array().unwrap().len(), 2);
    assert_eq!(artifacts.len(), 1);
    assert_eq!(artifacts[0].1, b"boom:1");
    let named = groups[0]["failure"].as_str().unwrap();
    assert!(named.contains("boom record [_] "), "{named}");
    let message_level = "\n[package.metadata.cargo-reduce.targets.records]\nmatch = \"message\"\n";
    let (groups, artifacts) = failures(message_level);
    assert_eq!(groups.len(), 2, "{groups:?}");
    assert_eq!(artifacts.len(), 2);
}
