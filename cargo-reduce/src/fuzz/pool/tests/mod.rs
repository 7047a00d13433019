//! End-to-end tests of the pool on the `tests-fixtures/pool-demo` cargo-fuzz
//! crate: it is built once per test process against the harness (checking
//! that its lock file comes back byte-identical), then each target's ways to
//! pass and fail are checked through real workers.

mod afl;
mod asan;
mod coverage;
mod edge;
mod placed;
mod sys_layout;

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use rustix::process::Signal;

use super::crew::Crew;
use super::*;
use crate::fuzz::engines::libfuzzer::LIBFUZZER_SYS;
use crate::fuzz::standin::{build_patched, BuildError, BuildKind, BuildTarget, Dirs};

const TARGETS: &[&str] = &[
    "bytes_panic",
    "crashes",
    "typed",
    "typed_lengths",
    "typed_layout",
    "corpus_bytes",
    "init",
    "foreign_hook",
    "late_hook",
    "mutator",
    "trivial",
    "source",
    "edges",
];

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests-fixtures/pool-demo")
}

/// `<target dir>/pool-fixture`, next to the test binary's own build.
pub(super) fn work_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    exe.ancestors()
        .nth(3)
        .expect("target/debug/deps/binary")
        .join("pool-fixture")
}

/// The fixture's binaries, built once per test process.
pub(super) fn binaries() -> &'static HashMap<&'static str, PathBuf> {
    static BINARIES: OnceLock<HashMap<&'static str, PathBuf>> = OnceLock::new();
    BINARIES.get_or_init(|| {
        let built = build_fixture(TARGETS, "", None);
        TARGETS.iter().copied().zip(built).collect()
    })
}

/// Builds `targets` of the fixture against the stand-in, in work
/// directories named with `flavour` (so each build keeps its own), with
/// AddressSanitizer when `asan` is given; the fixture's lock stays as it
/// was.
pub(super) fn build_fixture(
    targets: &[&str],
    flavour: &str,
    asan: Option<&crate::fuzz::sanitizer::AsanToolchain>,
) -> Vec<PathBuf> {
    build_crate(&fuzz_dir(), targets, flavour, asan.into())
}

/// [`build_fixture`] of the cargo-fuzz crate `fuzz_dir`, as `kind` says.
pub(super) fn build_crate(
    fuzz_dir: &Path,
    targets: &[&str],
    flavour: &str,
    kind: BuildKind<'_>,
) -> Vec<PathBuf> {
    let lock = crate::fuzz::standin::lock_file(fuzz_dir).unwrap();
    let before = std::fs::read(&lock).unwrap();
    let locked = LIBFUZZER_SYS.locked(&lock).unwrap();
    let harness = work_dir().join(format!("harness{flavour}/libfuzzer-sys-{}", locked.version));
    LIBFUZZER_SYS.write(&harness, &locked).unwrap();
    let built = build_patched(
        &LIBFUZZER_SYS,
        Dirs {
            fuzz: fuzz_dir,
            lock: &lock,
            harness: &harness,
            target: &work_dir().join(format!("target{flavour}")),
        },
        &targets
            .iter()
            .map(|&t| BuildTarget::from(t))
            .collect::<Vec<_>>(),
        kind,
        &std::sync::atomic::AtomicBool::new(false),
    )
    .unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(std::fs::read(&lock).unwrap(), before, "Cargo.lock changed");
    built
        .into_iter()
        .map(|b| b.unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

pub(super) fn options() -> PoolOptions {
    PoolOptions {
        jobs: 2,
        timeout: Duration::from_secs(2),
        rss_limit_mb: 512,
        ..PoolOptions::default()
    }
}

/// A pool of one worker of the fixture's `target`.
pub(super) fn one_worker(target: &str) -> WorkerPool {
    let options = PoolOptions {
        jobs: 1,
        ..options()
    };
    WorkerPool::start(&binaries()[target], options).unwrap_or_else(|err| panic!("{err}"))
}

/// A pool of the fixture's `target`.
pub(crate) fn pool(target: &str) -> WorkerPool {
    WorkerPool::start(&binaries()[target], options()).unwrap_or_else(|err| panic!("{err}"))
}

/// A pool of the fixture's `target` whose rounds `flag` stops (Ctrl-C).
pub(crate) fn stopped_by(target: &str, flag: Arc<AtomicBool>) -> WorkerPool {
    let options = PoolOptions {
        stop: super::StopFlag::new(flag),
        ..options()
    };
    WorkerPool::start(&binaries()[target], options).unwrap_or_else(|err| panic!("{err}"))
}

pub(super) fn failure(outcome: &Outcome) -> &Failure {
    outcome
        .failure()
        .unwrap_or_else(|| panic!("expected a failure, got {outcome:?}"))
}

#[test]
fn raw_bytes_panic_has_location_message_and_signature() {
    let pool = pool("bytes_panic");
    assert!(!pool.typed_input());
    assert_eq!(pool.run(b"fine").unwrap(), Outcome::Passed);
    let outcome = pool.run(b"panic!").unwrap();
    let failure = failure(&outcome);
    assert_eq!(failure.kind, FailureKind::Panic);
    assert_eq!(
        failure.location.as_deref(),
        Some("fuzz_targets/bytes_panic.rs:7:9")
    );
    assert!(failure
        .message
        .as_deref()
        .unwrap()
        .starts_with("boom after 6 bytes at 0x"));
    let other = pool.run(b"panic and more").unwrap();
    assert_eq!(failure.signature(), other.failure().unwrap().signature());
    assert_eq!(
        failure.signature().to_string(),
        "panic at fuzz_targets/bytes_panic.rs:7:9: boom after _ bytes at 0x_ (in bytes_panic::_::__libfuzzer_sys_run)"
    );
}

/// A crash kills the fork server's child, not the worker: the next test
/// runs in a new child of the same worker.
#[test]
fn a_crash_costs_a_fork_not_a_worker() {
    let pool = one_worker("crashes");
    let pids = || pool.crew().workers[0].as_ref().unwrap().pids();
    let (server, child) = pids();
    assert_ne!(server, child, "the tests run in a forked child");
    let outcome = pool.run(b"abort").unwrap();
    assert_eq!(
        failure(&outcome).kind,
        FailureKind::Signal(Signal::ABORT.as_raw())
    );
    assert_eq!(pool.run(b"fine").unwrap(), Outcome::Passed);
    let (server_after, child_after) = pids();
    assert_eq!(server_after, server);
    assert_ne!(child_after, child);
}

/// The stack depth the workers give tests: `RLIMIT_STACK`, as the
/// harness reads it, in KiB.
pub(super) fn stack_limit_kib() -> u64 {
    let limit = rustix::process::getrlimit(rustix::process::Resource::Stack).current;
    match limit {
        Some(bytes) if bytes >= 1 << 20 => bytes.min(1 << 30) >> 10,
        _ => 8 << 10,
    }
}

/// The stack the harness's frames (and the process's start) may take
/// below the limit before the target's entry: libFuzzer's main thread
/// takes about 10 KiB.
pub(super) const ENTRY_KIB: u64 = 16;

/// A test that overflows the stack by a bounded amount is a stack overflow
/// at the depth a thread of `RLIMIT_STACK` overflows, but it does not cost
/// the test process: it runs on past the tripwire into the margin below.
/// Each such test trips it anew; one that also hangs there is still a stack
/// overflow (a real stack ends it before the timeout). Once unbounded
/// recursion killed a test process past the margin, the next processes die
/// at the tripwire (the verdict unchanged). Either way, an overflow says
/// whether it went `OVERFLOW_SLACK` past the limit.
#[test]
fn a_bounded_stack_overflow_costs_no_process() {
    let pool = one_worker("crashes");
    let pids = || pool.crew().workers[0].as_ref().unwrap().pids();
    let limit = stack_limit_kib();
    let deep = |kib: u64| pool.run(format!("deep:{kib}").as_bytes()).unwrap();
    let before = pids();
    // The target's entry has the limit less a few KiB, as on libFuzzer's
    // main thread: the harness's frames below it stay small.
    let entry = pool.run(format!("stack-left:{}", limit - ENTRY_KIB).as_bytes());
    assert_eq!(entry.unwrap(), Outcome::Passed);
    assert_eq!(deep(limit - 256), Outcome::Passed);
    for _ in 0..2 {
        assert_eq!(failure(&deep(limit + 128)).kind, FailureKind::StackOverflow);
    }
    let past = |kib: u64| {
        let overflow = failure(&pool.run(format!("past:{kib}").as_bytes()).unwrap()).clone();
        assert_eq!(overflow.kind, FailureKind::StackOverflow);
        overflow.overflow_depth
    };
    assert_eq!(past(8), Some(OverflowDepth::NearTheLimit));
    assert_eq!(past(40), Some(OverflowDepth::WellPast));
    assert_eq!(
        failure(&deep(limit * 3 / 2)).kind,
        FailureKind::StackOverflow
    );
    assert_eq!(deep(limit - 256), Outcome::Passed);
    // Code that measures its stack (as `stacker` does) sees the limit: it
    // goes on on a thread of its own before it overflows.
    let growing = pool.run(format!("deep-growing:{}", limit * 3 / 2).as_bytes());
    assert_eq!(growing.unwrap(), Outcome::Passed);
    assert_eq!(pids(), before, "no test process ended");
    // The timeout kills this one's process.
    let hang = pool.run(format!("deep-hang:{}", limit + 128).as_bytes());
    assert_eq!(failure(&hang.unwrap()).kind, FailureKind::StackOverflow);
    let unbounded = pool.run(b"overflow").unwrap();
    assert_eq!(failure(&unbounded).kind, FailureKind::StackOverflow);
    assert_eq!(deep(limit - 256), Outcome::Passed);
    let before = pids();
    assert_eq!(past(8), Some(OverflowDepth::NearTheLimit));
    assert_eq!(pids(), before, "the tripwire's first part still opens");
    assert_eq!(past(40), Some(OverflowDepth::WellPast));
    assert_eq!(pool.run(b"fine").unwrap(), Outcome::Passed);
    assert_ne!(pids(), before, "the tripwire's rest is the guard now");
}

/// A terminal's Ctrl-C goes to its foreground process group: the workers
/// and their test processes are not in cargo-reduce's, so the interrupt
/// reaches cargo-reduce alone (which stops and writes its best result).
#[test]
fn workers_and_their_tests_are_out_of_the_terminal_s_process_group() {
    use rustix::process::{getpgid, getpgrp, Pid};
    let pool = pool("crashes");
    let (server, child) = pool.crew().workers[0].as_ref().unwrap().pids();
    let group = |pid: u32| getpgid(Pid::from_raw(pid as i32)).unwrap();
    assert_ne!(group(server), getpgrp());
    assert_eq!(group(child), group(server));
}

/// `run_fresh_each` runs every input once, in one round, and gives the
/// outcomes in the inputs' order, hangs among them.
#[test]
fn each_input_runs_once_in_one_round() {
    let pool = pool("crashes");
    let inputs: [&[u8]; 5] = [b"loop", b"fine", b"loop", b"caught", b"abort"];
    let kinds: Vec<Option<FailureKind>> = pool
        .run_fresh_each(&inputs)
        .unwrap()
        .iter()
        .map(|o| o.failure().map(|f| f.kind))
        .collect();
    let abort = FailureKind::Signal(Signal::ABORT.as_raw());
    let timeout = Some(FailureKind::Timeout);
    let expected = [
        timeout,
        None,
        timeout,
        Some(FailureKind::Panic),
        Some(abort),
    ];
    assert_eq!(kinds, expected);
}

#[test]
fn every_kind_of_crash_is_classified_and_the_round_goes_on() {
    let pool = pool("crashes");
    let cases: &[(&[u8], Option<FailureKind>)] = &[
        (b"fine", None),
        (b"abort", Some(FailureKind::Signal(Signal::ABORT.as_raw()))),
        (b"overflow", Some(FailureKind::StackOverflow)),
        (b"fine again", None),
        (b"loop", Some(FailureKind::Timeout)),
        (b"alloc", Some(FailureKind::Oom)),
        (b"segv", Some(FailureKind::Signal(Signal::SEGV.as_raw()))),
        (b"exit", Some(FailureKind::Exit(7))),
        (b"caught", Some(FailureKind::Panic)),
        (b"fine at last", None),
    ];
    let inputs: Vec<&[u8]> = cases.iter().map(|c| c.0).collect();
    let result = pool.first_accepted(&inputs, &|_| false).unwrap();
    assert_eq!(result.accepted, None);
    for ((input, expected), outcome) in cases.iter().zip(&result.outcomes) {
        let got = outcome.as_ref().map(|o| o.failure().map(|f| f.kind));
        assert_eq!(
            got,
            Some(*expected),
            "{}: {outcome:?}",
            String::from_utf8_lossy(input)
        );
    }
    let alloc = result.outcomes[5]
        .as_ref()
        .and_then(Outcome::failure)
        .unwrap();
    assert!(
        alloc
            .message
            .as_deref()
            .unwrap()
            .contains("malloc(3221225472)"),
        "{alloc:?}"
    );
    assert_eq!(alloc.alloc_request, Some(3221225472), "kept by reductions");
    assert_eq!(pool.run(b"fine").unwrap(), Outcome::Passed);
}

/// A pool of `target` whose timeout no test of it reaches, however loaded
/// the machine: for tests whose verdict is not a timeout but comes after
/// work whose speed depends on the machine (filling memory).
fn patient_pool(target: &str) -> WorkerPool {
    let options = PoolOptions {
        timeout: Duration::from_secs(600),
        ..options()
    };
    WorkerPool::start(&binaries()[target], options).unwrap_or_else(|err| panic!("{err}"))
}

/// Memory that only the RSS watchdog sees (touched, in allocations below
/// the malloc limit) is out-of-memory, and the round goes on. Not in
/// `every_kind_of_crash_is_classified_and_the_round_goes_on`, whose
/// 2 s timeout a loaded machine's page faults can outlast before the
/// RSS passes the limit.
#[test]
fn rss_growth_is_out_of_memory_and_the_round_goes_on() {
    let pool = patient_pool("crashes");
    let inputs: Vec<&[u8]> = vec![b"fine", b"rss", b"fine again"];
    let result = pool.first_accepted(&inputs, &|_| false).unwrap();
    let kinds: Vec<_> = result
        .outcomes
        .iter()
        .map(|o| o.as_ref().expect("run").failure().map(|f| f.kind))
        .collect();
    assert_eq!(kinds, [None, Some(FailureKind::Oom), None]);
    let rss = result.outcomes[1]
        .as_ref()
        .and_then(Outcome::failure)
        .unwrap();
    assert!(rss.message.as_deref().unwrap().contains("rss"), "{rss:?}");
}

#[test]
fn typed_input_is_decoded_like_libfuzzer_sys() {
    let pool = pool("typed");
    assert!(pool.typed_input());
    // Shorter than `size_hint`'s minimum (1 + 4 bytes): rejected unrun.
    assert_eq!(pool.run(&[42, 0xff, 0xff, 0xff]).unwrap(), Outcome::Passed);
    // op = 0 returns Corpus::Reject.
    assert_eq!(
        pool.run(&[0, 0xff, 0xff, 0xff, 0xff]).unwrap(),
        Outcome::Passed
    );
    let input = [42, 0xff, 0xff, 0xff, 0xff, b'n', b'm'];
    let failed = pool.run(&input).unwrap();
    let message = failed.failure().unwrap().message.clone().unwrap();
    assert_eq!(message, "value 4294967295 too large for \"nm\"");
    let debug = pool.debug_format(&input).unwrap().unwrap();
    assert_eq!(
        debug,
        "Command {\n    op: 42,\n    value: 4294967295,\n    name: \"nm\",\n}"
    );
    assert_eq!(pool.debug_format(&[1]).unwrap(), None);
}

#[test]
fn corpus_init_and_mutator_forms_run() {
    let corpus = pool("corpus_bytes");
    assert_eq!(corpus.run(b"").unwrap(), Outcome::Passed);
    assert_eq!(corpus.run(b"x").unwrap(), Outcome::Passed);
    let failed = corpus.run(b"corpus").unwrap();
    assert!(failure(&failed)
        .message
        .as_deref()
        .unwrap()
        .contains("rejected input"));

    let init = pool("init");
    assert_eq!(init.run(b"zzz").unwrap(), Outcome::Passed);
    let failed = init.run(b"init").unwrap();
    assert_eq!(
        failure(&failed).message.as_deref(),
        Some("starts with a word")
    );

    let mutator = pool("mutator");
    assert_eq!(mutator.run(b"x").unwrap(), Outcome::Passed);
    assert_eq!(
        failure(&mutator.run(b"mut").unwrap()).kind,
        FailureKind::Panic
    );
}

#[test]
fn init_panic_fails_the_start() {
    let env = vec![(OsString::from("POOL_DEMO_INIT_PANIC"), OsString::from("1"))];
    match Crew::start(&binaries()["init"], &options(), env) {
        Err(PoolError::InitFailed(failure)) => {
            assert_eq!(failure.message.as_deref(), Some("init asked to fail"))
        }
        other => panic!("expected an init failure, got {other:?}"),
    }
}

#[test]
fn first_accepted_equals_a_sequential_run() {
    let mut pool = pool("trivial");
    pool.round_bytes = 300; // Several parts per round.
    let mut inputs: Vec<&[u8]> = vec![b"pass"; 200];
    inputs[57] = b"FAIL";
    inputs[58] = b"FAIL";
    inputs[150] = b"FAIL";
    let failed = |o: &Outcome| o.failure().is_some();
    let result = pool.first_accepted(&inputs, &failed).unwrap();
    assert_eq!(result.accepted, Some(57));
    assert!(result.outcomes[..57]
        .iter()
        .all(|o| *o == Some(Outcome::Passed)));
    assert_eq!(result.outcomes.len(), 200);
    // Accepting passes: the first input wins at once.
    assert_eq!(
        pool.first_accepted(&inputs, &|o| !failed(o))
            .unwrap()
            .accepted,
        Some(0)
    );
    // Inputs made on demand.
    let mut produce =
        |i: usize, out: &mut Vec<u8>| out.extend_from_slice(if i == 3 { b"FAIL" } else { b"ok" });
    let result = pool.first_accepted_with(10, &mut produce, &failed).unwrap();
    assert_eq!(result.accepted, Some(3));
}

#[test]
fn crashes_below_the_answer_are_run_and_respawned() {
    let pool = pool("crashes");
    let inputs: Vec<&[u8]> = vec![
        b"abort", b"fine", b"segv", b"exit", b"caught", b"abort", b"caught",
    ];
    let panicked = |o: &Outcome| o.failure().is_some_and(|f| f.kind == FailureKind::Panic);
    let result = pool.first_accepted(&inputs, &panicked).unwrap();
    assert_eq!(result.accepted, Some(4));
    let kinds: Vec<_> = result.outcomes[..4]
        .iter()
        .map(|o| o.as_ref().expect("run").failure().map(|f| f.kind))
        .collect();
    let expected = [
        Some(FailureKind::Signal(Signal::ABORT.as_raw())),
        None,
        Some(FailureKind::Signal(Signal::SEGV.as_raw())),
        Some(FailureKind::Exit(7)),
    ];
    assert_eq!(kinds, expected);
}

#[test]
fn work_above_the_answer_is_abandoned_not_waited_for() {
    // Waiting for the loops would end in their timeouts: outcomes, after
    // ten minutes.
    let pool = patient_pool("crashes");
    let inputs: Vec<&[u8]> = vec![b"fine", b"caught", b"loop", b"loop", b"loop"];
    let panicked = |o: &Outcome| o.failure().is_some_and(|f| f.kind == FailureKind::Panic);
    let result = pool.first_accepted(&inputs, &panicked).unwrap();
    assert_eq!(result.accepted, Some(1));
    assert_eq!(result.outcomes[2..], [None, None, None]);
    assert_eq!(pool.run(b"fine").unwrap(), Outcome::Passed);
}

/// A set stop flag ends the round at once, its hanging tests killed (not
/// waited out for ten minutes), and the pool runs the next round afresh.
#[test]
fn a_stop_flag_ends_a_hanging_round_at_once() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let flag = std::sync::Arc::new(AtomicBool::new(false));
    let options = PoolOptions {
        timeout: Duration::from_secs(600),
        stop: super::StopFlag::new(flag.clone()),
        ..options()
    };
    let pool = WorkerPool::start(&binaries()["crashes"], options).unwrap();
    let setter = {
        let flag = flag.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            flag.store(true, Ordering::SeqCst);
        })
    };
    let inputs: Vec<&[u8]> = vec![b"fine", b"loop", b"loop", b"fine"];
    let stopped = pool.first_accepted(&inputs, &|_| false);
    assert!(
        matches!(stopped, Err(PoolError::Interrupted)),
        "{stopped:?}"
    );
    setter.join().unwrap();
    assert!(matches!(pool.run(b"fine"), Err(PoolError::Interrupted)));
    flag.store(false, Ordering::SeqCst);
    assert_eq!(pool.run(b"fine").unwrap(), Outcome::Passed);
}

#[test]
fn restart_after_failure_keeps_results() {
    let options = PoolOptions {
        restart_after_failure: true,
        ..options()
    };
    let pool = WorkerPool::start(&binaries()["trivial"], options).unwrap();
    let inputs: Vec<&[u8]> = vec![b"FAIL", b"ok", b"FAIL", b"ok", b"ok"];
    let result = pool.first_accepted(&inputs, &|_| false).unwrap();
    let failed: Vec<bool> = result
        .outcomes
        .iter()
        .map(|o| o.as_ref().unwrap().failure().is_some())
        .collect();
    assert_eq!(failed, [true, false, true, false, false]);
}

#[test]
fn unused_patch_is_an_error_naming_both_versions() {
    let binaries = binaries(); // Built first: both builds rewrite the lock.
    assert!(!binaries.is_empty());
    let fuzz_dir = fuzz_dir();
    let lock = crate::fuzz::standin::lock_file(&fuzz_dir).unwrap();
    let before = std::fs::read(&lock).unwrap();
    let harness = work_dir().join("harness/wrong-version");
    let locked = LIBFUZZER_SYS.locked(&lock).unwrap().version;
    let wrong = crate::fuzz::standin::crate_files::Locked {
        version: "0.4.0".into(),
        source: crate::fuzz::standin::crate_files::Source::Registry,
        arbitrary: None,
    };
    LIBFUZZER_SYS.write(&harness, &wrong).unwrap();
    let err = build_patched(
        &LIBFUZZER_SYS,
        Dirs {
            fuzz: &fuzz_dir,
            lock: &lock,
            harness: &harness,
            target: &work_dir().join("target-wrong"),
        },
        &[BuildTarget::from("trivial")],
        BuildKind::Plain,
        &std::sync::atomic::AtomicBool::new(false),
    )
    .expect_err("the patch cannot be used");
    let message = err.to_string();
    assert!(matches!(err, BuildError::PatchNotUsed { .. }), "{message}");
    assert!(
        message.contains("0.4.0") && message.contains(&locked),
        "{message}"
    );
    assert_eq!(std::fs::read(&lock).unwrap(), before, "Cargo.lock changed");
}

/// The fixture's `trivial` target body, for the direct-call baseline.
#[inline(never)]
fn trivial(data: &[u8]) {
    if data == b"FAIL" {
        panic!("trivial failure");
    }
}

/// Per-test cost of a round of 1 MB of one-byte inputs against calling the
/// same code directly. `cargo test --release -- --ignored --nocapture pool_overhead`.
#[test]
#[ignore = "benchmark"]
fn pool_overhead() {
    let count = 1_000_000;
    let inputs: Vec<[u8; 1]> = (0..count).map(|i| [i as u8]).collect();
    let slices: Vec<&[u8]> = inputs.iter().map(|i| &i[..]).collect();
    let started = Instant::now();
    for input in &slices {
        trivial(std::hint::black_box(input));
    }
    let per = |d: Duration| d.as_secs_f64() * 1e6 / count as f64;
    println!("direct call: {:.3} us/test", per(started.elapsed()));
    let failed = |o: &Outcome| o.failure().is_some();
    for jobs in [1, 2] {
        let options = PoolOptions { jobs, ..options() };
        let pool = WorkerPool::start(&binaries()["trivial"], options.clone()).unwrap();
        pool.first_accepted(&slices, &failed).unwrap(); // Warm up.
        let started = Instant::now();
        let rounds = 5;
        for _ in 0..rounds {
            assert_eq!(
                pool.first_accepted(&slices, &failed).unwrap().accepted,
                None
            );
        }
        let total = per(started.elapsed()) / f64::from(rounds);
        // The round alone, without building the batch.
        let mut crew = Crew::start(&binaries()["trivial"], &options, Vec::new()).unwrap();
        let batch = shm::Batch {
            data: vec![7; count],
            ends: (1..=count as u64).collect(),
        };
        crew.load(&batch, false).unwrap();
        run_round(&mut crew, count, &failed).unwrap();
        let started = Instant::now();
        run_round(&mut crew, count, &failed).unwrap();
        let round = per(started.elapsed());
        let small = Instant::now();
        for _ in 0..1000 {
            pool.first_accepted(&slices[..8], &failed).unwrap();
        }
        let small = small.elapsed().as_secs_f64() * 1e3;
        println!("{jobs} job(s): first_accepted {total:.3} us/test, round only {round:.3} us/test, round of 8: {small:.1} us");
    }
}

/// A target whose init code installs its own panic hook: the recording
/// hook is put back in front, so a panic keeps its location and message.
#[test]
fn a_target_s_own_panic_hook_does_not_hide_the_failure() {
    let pool = pool("foreign_hook");
    assert_eq!(pool.run(b"fine").unwrap(), Outcome::Passed);
    let outcome = pool.run(b"P12").unwrap();
    let failure = failure(&outcome);
    assert_eq!(failure.kind, FailureKind::Panic);
    assert_eq!(
        failure.location.as_deref(),
        Some("fuzz_targets/foreign_hook.rs:12:13")
    );
    assert_eq!(failure.message.as_deref(), Some("foreign 3"));
}

/// A target that replaces the recording hook during a test, with one that
/// prints the panic and aborts: the failure is read from what it printed.
#[test]
fn a_panic_the_hook_missed_is_read_from_what_the_test_printed() {
    let pool = pool("late_hook");
    let outcome = pool.run(b"P12").unwrap();
    let failure = failure(&outcome);
    assert_eq!(failure.kind, FailureKind::Panic, "{failure:?}");
    assert_eq!(
        failure.location.as_deref(),
        Some("fuzz_targets/late_hook.rs:18:9")
    );
    assert_eq!(failure.message.as_deref(), Some("late 3"));
    assert_eq!(pool.run(b"fine").unwrap(), Outcome::Passed);
}
