//! Failure signatures in fuzz mode: the default match compares the call
//! path, not the message, on the `two_callers` demo target (one helper,
//! reached from `timeout` and from `port`, panics quoting its input); and
//! signals, aborts and timeouts are told apart by where they happened
//! (`tests-fixtures/signatures`).

use std::fs;
use std::path::{Path, PathBuf};

use crate::fuzz_fixture::{
    cargo_reduce, cargo_reduce_in, copy_tree, fresh_copy, minimized_path, repo,
};
use crate::recycled::RecycledDir;

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
        "--fuzz-target",
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
    // The result's own message: the one `cargo reduce run` shows.
    assert!(failure_a.contains("two_callers.rs:23:19: expected a number, found \"\""));
    assert_eq!(id_a.len(), 8);
    assert_ne!(id_a, id_b);
    let reproduced: Vec<_> = messages
        .iter()
        .filter(|m| m["reason"] == "artifact-reproduced")
        .collect();
    let ids: Vec<_> = reproduced
        .iter()
        .map(|m| m["failure_id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&id_a.as_str()), "{ids:?}");
    // The input's own, as it was reproduced.
    assert!(reproduced
        .iter()
        .any(|m| m["failure"].as_str().unwrap().contains("found \"abc\"")));

    // Comparing messages keeps the quoted letters: nothing shrinks.
    reduce(&fuzz, &["--match", "message"]);
    assert_eq!(fs::read(minimized_path(&a)).unwrap(), b"!abc");
    // Comparing locations alone merges the two bugs.
    let messages = reduce(&fuzz, &["--match", "location"]);
    assert_eq!(grouped(&messages), (2, 1));
    assert!(messages.iter().any(|m| m["reason"] == "artifact-duplicate"));
}

/// The six bugs of `tests-fixtures/signatures` (`bugs.rs`): per artifact,
/// its 1-minimal input, the start of its failure and the place in it
/// (`bugs.rs` is `src/bugs.rs` in the afl.rs twin). Each first one's input
/// holds its twin's, so matching kinds alone slips from one to the other.
const SIX_BUGS: [(&str, &[u8], &str, &str); 6] = [
    (
        "crash-segv-store",
        b"SEGV",
        "signal SIGSEGV at ",
        "bugs.rs:15:14 (in six_bugs::bugs::store_length ← six_bugs::bugs::run ← ",
    ),
    (
        "crash-segv-load",
        b"SV",
        "signal SIGSEGV at ",
        "bugs.rs:21:14 (in six_bugs::bugs::load_checksum ← ",
    ),
    (
        "crash-abort-header",
        b"ABORT",
        "signal SIGABRT at ",
        "bugs.rs:28:9 (in six_bugs::bugs::check_header ← ",
    ),
    (
        "crash-abort-reserve",
        b"AT",
        "signal SIGABRT at ",
        "bugs.rs:37:5 (in six_bugs::bugs::reserve_table ← ",
    ),
    (
        "timeout-loop-padding",
        b"LOOP",
        "timeout at ",
        "six_bugs::bugs::skip_padding (in six_bugs::bugs::skip_padding ← six_bugs::bugs::run ← ",
    ),
    (
        "timeout-loop-ready",
        b"LP",
        "timeout at ",
        "six_bugs::bugs::wait_ready (in six_bugs::bugs::wait_ready ← six_bugs::bugs::run ← ",
    ),
];

/// Fresh copies of `tests-fixtures/signatures` and its afl.rs twin
/// `signatures-afl` (side by side: they share `bugs.rs`).
fn six_bugs() -> (RecycledDir, PathBuf, PathBuf) {
    let dir = RecycledDir::new("six-bugs");
    let fixtures = repo().join("cargo-reduce/tests-fixtures");
    for name in ["signatures", "signatures-afl"] {
        copy_tree(&fixtures.join(name), &dir.path().join(name));
    }
    let (fuzz, afl) = (
        dir.path().join("signatures"),
        dir.path().join("signatures-afl"),
    );
    (dir, fuzz, afl)
}

/// `cargo-reduce ARGS… --manifest-path <crate> --message-format json`,
/// its messages; it must exit with `code`.
fn run_six(crate_dir: &Path, args: &[&str], code: i32) -> Vec<serde_json::Value> {
    let manifest = crate_dir.join("Cargo.toml");
    let common = [
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--message-format",
        "json",
    ];
    let build = Path::new(env!("CARGO_TARGET_TMPDIR")).join("signatures-build");
    let run = cargo_reduce_in(&[args, &common].concat(), &build);
    run.expect_code(code);
    run.messages()
}

/// The distinct failure ids of the artifacts `messages` reproduced.
fn reproduced_ids(messages: &[serde_json::Value]) -> usize {
    let mut ids: Vec<&str> = messages
        .iter()
        .filter(|m| m["reason"] == "artifact-reproduced")
        .map(|m| m["failure_id"].as_str().unwrap())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids.len()
}

/// Checks that each of the six inputs (`input(name)` its path) reduced to
/// its own 1-minimal input with its own failure (`bugs.rs` being at `dir`).
fn assert_six_apart(messages: &[serde_json::Value], dir: &str, input: impl Fn(&str) -> PathBuf) {
    let mut ids = Vec::new();
    for (name, minimal, kind, place) in SIX_BUGS {
        let path = input(name);
        let m = messages
            .iter()
            .find(|m| {
                m["reason"] == "reduction-finished"
                    && Path::new(m["input"].as_str().unwrap()) == path
            })
            .unwrap_or_else(|| panic!("{name}: {messages:?}"));
        let shown = m["failure"].as_str().unwrap();
        let place = match place.strip_prefix("bugs.rs") {
            Some(rest) => format!("{dir}bugs.rs{rest}"),
            None => place.to_string(),
        };
        assert!(
            shown.starts_with(&format!("{kind}{place}")),
            "{name}: {shown}"
        );
        assert_eq!(m["minimal"], true, "{name}");
        let output = fs::read(m["output"].as_str().unwrap()).unwrap();
        assert_eq!(
            output,
            minimal,
            "{name}: {}",
            String::from_utf8_lossy(&output)
        );
        ids.push(m["failure_id"].as_str().unwrap().to_string());
    }
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 6, "{ids:?}");
}

/// The artifacts of `SIX_BUGS` that crash, and those that hang.
fn crashes_and_hangs() -> (Vec<&'static str>, Vec<&'static str>) {
    SIX_BUGS
        .iter()
        .map(|b| b.0)
        .partition(|name| name.starts_with("crash-"))
}

/// A timeout long enough that no test of a crashing input reaches it on a
/// loaded machine (the crashes never run long; a hang's reduction probes
/// from 25 ms up to the default 1 s, and a candidate that merely ran slow
/// is placed elsewhere than the loop, so it is not taken for it).
const CRASH_TIMEOUT: &str = "30";

/// `reduce -j2 --force --match LEVEL [--timeout SECS] INPUTS…`.
fn args<'a>(level: &'a str, timeout: Option<&'a str>, inputs: &'a [String]) -> Vec<&'a str> {
    let mut args = vec!["reduce", "-j2", "--force", "--match", level];
    args.extend(timeout.map(|t| ["--timeout", t]).into_iter().flatten());
    args.extend(inputs.iter().map(String::as_str));
    args
}

/// Two segfaults, two aborts and two endless loops in one target: each
/// reduces to its own 1-minimal input, never to its twin's, and each is a
/// failure of its own (by kind alone they were three), in `cargo reduce`
/// and in `ci`.
#[test]
fn two_segfaults_aborts_and_loops_in_one_target_stay_six_failures() {
    let (_dir, fuzz, _) = six_bugs();
    let artifacts = fuzz.join("artifacts/six_bugs");
    let path = |name: &str| artifacts.join(name);
    let paths = |names: &[&str]| -> Vec<String> {
        names
            .iter()
            .map(|n| path(n).to_string_lossy().into_owned())
            .collect()
    };
    let (crashes, hangs) = crashes_and_hangs();
    let (crash_paths, hang_paths) = (paths(&crashes), paths(&hangs));

    let crashed = run_six(&fuzz, &args("stack", Some(CRASH_TIMEOUT), &crash_paths), 0);
    let hung = run_six(&fuzz, &args("stack", None, &hang_paths), 0);
    assert_eq!((reproduced_ids(&crashed), reproduced_ids(&hung)), (4, 2));
    assert_six_apart(&[crashed, hung].concat(), "", path);
    for (name, minimal, ..) in SIX_BUGS {
        assert_eq!(fs::read(minimized_path(&path(name))).unwrap(), minimal);
    }

    // By kind alone, the twins are one failure each.
    let by_kind = run_six(&fuzz, &args("kind", Some(CRASH_TIMEOUT), &crash_paths), 0);
    assert_eq!(reproduced_ids(&by_kind), 2);
    let by_kind = run_six(&fuzz, &args("kind", None, &hang_paths), 0);
    assert_eq!(reproduced_ids(&by_kind), 1);

    // `ci` files the four crashes as four failures, one ledger entry each.
    for hang in hang_paths {
        fs::remove_file(hang).unwrap();
    }
    let cache = fuzz.join("ci-cache");
    let ci = [
        "reduce",
        "ci",
        "--update",
        "--timeout",
        CRASH_TIMEOUT,
        "--cache-dir",
        cache.to_str().unwrap(),
    ];
    let last = run_six(&fuzz, &ci, 11).pop().unwrap();
    assert_eq!(
        (last["new"].as_u64(), last["known"].as_u64()),
        (Some(4), Some(0)),
        "{last}"
    );
    let ledger = fs::read_dir(fuzz.join("regressions/six_bugs")).unwrap();
    let inputs = ledger
        .filter(|e| e.as_ref().unwrap().path().extension().is_none())
        .count();
    assert_eq!(inputs, 4);
}

/// A crash whose candidates run into another bug's endless loop (`LOOP`
/// around the `AT` abort): those candidates time out, which left the
/// result partial (not 1-minimal) after every run; none is smaller than the
/// result, so it is final after one.
#[test]
fn a_crash_whose_candidates_meet_an_endless_loop_is_final_after_one_run() {
    let (_dir, fuzz, _) = six_bugs();
    let artifact = fuzz.join("artifacts/six_bugs/crash-loop-around-abort");
    fs::write(&artifact, "rec:LOOPATLOOP!end").unwrap();
    let path = artifact.to_string_lossy().into_owned();
    let messages = run_six(&fuzz, &["reduce", "--timeout", "1", &path], 0);
    let finished = messages
        .iter()
        .find(|m| m["reason"] == "reduction-finished")
        .expect("reduction-finished");
    assert_eq!(finished["minimal"], true, "{finished}");
    assert_eq!(fs::read(minimized_path(&artifact)).unwrap(), b"AT");
}

/// The same six inputs as AFL++ would have saved them (crashes and hangs
/// of one instance, written here) in AFL mode: six failures, each reduced
/// to its own input. The crashes under a long `--timeout`, the hangs under
/// the instance's `exec_timeout` (a flag would win over it, and a hang's
/// replay and checks wait the whole timeout).
#[test]
fn afl_mode_keeps_the_six_bugs_apart() {
    let (_dir, fuzz, afl) = six_bugs();
    let instance = afl.join("out/six_bugs/default");
    fs::create_dir_all(instance.join("queue")).unwrap();
    fs::write(instance.join("cmdline"), "target/debug/six_bugs\n").unwrap();
    // Hangs are reduced under the instance's timeout, crashes under ours.
    fs::write(instance.join("fuzzer_stats"), "exec_timeout      : 1000\n").unwrap();
    let mut inputs = Vec::new();
    for (i, (name, ..)) in SIX_BUGS.iter().enumerate() {
        let (dir, sig) = match name.split('-').nth(1) {
            Some("segv") => ("crashes", "sig:11,"),
            Some("abort") => ("crashes", "sig:06,"),
            _ => ("hangs", ""),
        };
        let file = instance.join(dir).join(format!(
            "id:{i:06},{sig}src:000000,time:1,execs:1,op:havoc,rep:1"
        ));
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::copy(fuzz.join("artifacts/six_bugs").join(name), &file).unwrap();
        inputs.push((*name, file));
    }
    let input = |name: &str| inputs.iter().find(|(n, _)| *n == name).unwrap().1.clone();
    let (crashes, hangs) = crashes_and_hangs();
    let paths = |names: &[&str]| -> Vec<String> {
        names
            .iter()
            .map(|n| input(n).to_string_lossy().into_owned())
            .collect()
    };
    let crashed = run_six(
        &afl,
        &args("stack", Some(CRASH_TIMEOUT), &paths(&crashes)),
        0,
    );
    let hung = run_six(&afl, &args("stack", None, &paths(&hangs)), 0);
    assert_eq!((reproduced_ids(&crashed), reproduced_ids(&hung)), (4, 2));
    assert_six_apart(&[crashed, hung].concat(), "src/", input);
}
