//! The afl.rs stand-in through real workers, on the
//! `tests-fixtures/afl-demo` crate (afl 0.18): each macro form builds
//! unedited and keeps afl.rs's meaning: typed inputs decoded with
//! `Arbitrary::arbitrary`, every panic a crash under the hook but only an
//! escaping one without it, `reset` after each input, IJON annotations
//! compiled as no-ops, features and examples built as discovery says.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use rustix::process::Signal;

use super::work_dir;
use crate::fuzz::engines::afl::AFL;
use crate::fuzz::pool::*;
use crate::fuzz::project::{self, BinKind, Engine, Selection};
use crate::fuzz::standin::{build_patched, BuildTarget, Dirs};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests-fixtures/afl-demo")
}

/// Every target of the fixture, as discovery finds them, built once per
/// test process against the stand-in (the lock must come back as it was).
fn binaries() -> &'static HashMap<String, PathBuf> {
    static BINARIES: OnceLock<HashMap<String, PathBuf>> = OnceLock::new();
    BINARIES.get_or_init(|| {
        let projects = project::discover_from(
            &fuzz_dir(),
            &Selection {
                manifest_path: Some("Cargo.toml".into()),
                ..Selection::default()
            },
        )
        .unwrap();
        let project = &projects[0];
        let targets: Vec<BuildTarget<'_>> = project
            .targets
            .iter()
            .map(|t| BuildTarget {
                name: &t.name,
                kind: t.kind,
                features: &t.features,
            })
            .collect();
        let lock = crate::fuzz::standin::lock_file(&project.fuzz_dir).unwrap();
        let before = std::fs::read(&lock).unwrap();
        let locked = AFL.locked(&lock).unwrap();
        let harness = work_dir().join(format!("harness/afl-{}", locked.version));
        AFL.write(&harness, &locked).unwrap();
        let built = build_patched(
            &AFL,
            Dirs {
                fuzz: &project.fuzz_dir,
                lock: &lock,
                harness: &harness,
                target: &work_dir().join("target-afl"),
            },
            &targets,
            crate::fuzz::standin::BuildKind::Plain,
            &std::sync::atomic::AtomicBool::new(false),
        )
        .unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(std::fs::read(&lock).unwrap(), before, "Cargo.lock changed");
        targets
            .iter()
            .zip(built)
            .map(|(t, b)| (t.name.to_string(), b.unwrap_or_else(|e| panic!("{e}"))))
            .collect()
    })
}

fn pool(target: &str) -> WorkerPool {
    let options = PoolOptions {
        jobs: 1,
        timeout: Duration::from_secs(2),
        rss_limit_mb: 512,
        ..PoolOptions::default()
    };
    WorkerPool::start(&binaries()[target], options).unwrap_or_else(|err| panic!("{err}"))
}

/// `target`'s signature on `input`, or "passed".
fn run(target: &str, input: &[u8]) -> String {
    match pool(target).run(input).unwrap() {
        Outcome::Passed => "passed".into(),
        Outcome::Failed(failure) => failure.signature().to_string(),
    }
}

#[test]
fn discovery_finds_every_afl_target_and_only_those() {
    let projects = project::discover_from(&fuzz_dir(), &Selection::default()).unwrap();
    assert_eq!(projects.len(), 1);
    let project = &projects[0];
    assert_eq!(project.engine, Engine::Afl);
    let found: Vec<(&str, BinKind, &[String])> = project
        .targets
        .iter()
        .map(|t| (t.name.as_str(), t.kind, t.features.as_slice()))
        .collect();
    let gated = ["gated".to_string()];
    assert_eq!(
        found,
        [
            ("bytes", BinKind::Bin, &[][..]),
            ("direct", BinKind::Bin, &[][..]),
            ("example_target", BinKind::Example, &[][..]),
            ("gated", BinKind::Bin, &gated[..]),
            ("hooked_catch", BinKind::Bin, &[][..]),
            ("nohook", BinKind::Bin, &[][..]),
            ("reset", BinKind::Bin, &[][..]),
            ("typed", BinKind::Bin, &[][..]),
            ("untyped", BinKind::Bin, &[][..]),
        ]
    );
}

#[test]
fn byte_targets_fail_like_under_afl() {
    assert_eq!(run("bytes", b"BUG"), "passed");
    assert_eq!(
        run("bytes", b"BUG\x07xyz"),
        "panic at src/bin/bytes.rs:8:13: bug _ at _ (in bytes::main::{{closure}})"
    );
    assert_eq!(run("untyped", b"A"), "passed");
    let outcome = pool("untyped").run(b"ABC").unwrap();
    assert_eq!(
        outcome.failure().unwrap().kind,
        FailureKind::Signal(Signal::ABORT.as_raw())
    );
    assert_eq!(
        run("direct", b"DIRECT"),
        "panic at src/bin/direct.rs:13:13: direct (in direct::main::{{closure}})"
    );
    assert_eq!(
        run("gated", b"G"),
        "panic at src/bin/gated.rs:5:13: gated (in gated::main::{{closure}})"
    );
    assert_eq!(
        run("example_target", b"X"),
        "panic at examples/example_target.rs:5:13: example (in example_target::main::{{closure}})"
    );
}

#[test]
fn the_hook_makes_every_panic_a_crash_and_nohook_only_escaping_ones() {
    assert_eq!(
        run("hooked_catch", b"C"),
        "panic at src/bin/hooked_catch.rs:6:54: caught inside (in hooked_catch::main::{{closure}}::{{closure}} ← hooked_catch::main::{{closure}})"
    );
    assert_eq!(run("nohook", b"C"), "passed");
    assert_eq!(
        run("nohook", b"E"),
        "panic at src/bin/nohook.rs:10:13: escaped (in nohook::main::{{closure}})"
    );
    // A caught panic before the escaping one: the escaping one is reported.
    assert_eq!(
        run("nohook", b"CE"),
        "panic at src/bin/nohook.rs:10:13: escaped (in nohook::main::{{closure}})"
    );
}

#[test]
fn reset_runs_after_each_input() {
    let pool = pool("reset");
    let inputs: [&[u8]; 3] = [b"a", b"b", b"c"];
    let round = pool
        .first_accepted(&inputs, &|o| o.failure().is_some())
        .unwrap();
    assert_eq!(round.accepted, None, "{:?}", round.outcomes);
    assert!(pool.run(b"R").unwrap().failure().is_some());
}

#[test]
fn typed_inputs_are_decoded_with_arbitrary_and_shown() {
    let pool = pool("typed");
    assert!(pool.typed_input());
    // name "x" (its length 1 in the last byte), one more op (1), the
    // highest variant tag (Scale), factor 200, no more ops (0).
    let input = b"x\x01\xff\xff\xff\xff\xc8\x00\x01";
    let crash = pool.run(input).unwrap();
    let debug = pool.debug_format(input).unwrap().unwrap();
    assert!(crash.failure().is_some(), "expected a crash for {debug}");
    assert_eq!(
        crash.failure().unwrap().signature().to_string(),
        "panic at src/bin/typed.rs:25:25: scale by _ overflows (in typed::main::{{closure}})"
    );
    assert!(debug.contains("Scale"), "{debug}");
    // Too short to decode: afl.rs skips the input.
    assert_eq!(pool.run(b"").unwrap(), Outcome::Passed);
}

#[test]
fn outside_the_pool_the_binary_runs_stdin_once_like_afl_rs() {
    let run = |input: &[u8]| {
        let mut child = Command::new(&binaries()["bytes"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(input).unwrap();
        child.wait_with_output().unwrap()
    };
    assert!(run(b"fine").status.success());
    let crashed = run(b"BUG\x01");
    assert!(!crashed.status.success());
    assert!(String::from_utf8_lossy(&crashed.stderr).contains("bug 1 at 4"));
}
