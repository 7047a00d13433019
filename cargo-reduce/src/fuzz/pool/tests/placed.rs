//! Where the pool-demo `crashes` target's failures other than panics
//! happened, through real workers: each is placed by the stack its test
//! noted (`place`), in the user's code.

use rustix::process::Signal;

use super::pool;
use crate::fuzz::pool::*;

fn failure(pool: &WorkerPool, input: &[u8]) -> Failure {
    let outcome = pool.run(input).unwrap();
    outcome
        .failure()
        .unwrap_or_else(|| panic!("expected a failure, got {outcome:?}"))
        .clone()
}

/// `fuzz_targets/crashes.rs:<line>:` of the line of the source holding
/// `code`.
fn line_of(code: &str) -> String {
    let path = "tests-fixtures/pool-demo/fuzz_targets/crashes.rs";
    let source = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap();
    let line = source.lines().position(|l| l.contains(code)).unwrap() + 1;
    format!("fuzz_targets/crashes.rs:{line}:")
}

const RUN: &str = "crashes::_::__libfuzzer_sys_run";

#[test]
fn faults_aborts_and_allocations_are_placed_by_line() {
    let pool = pool("crashes");
    let cases = [
        (
            &b"segv"[..],
            "write_volatile(black_box(16usize)",
            FailureKind::Signal(Signal::SEGV.as_raw()),
        ),
        (
            b"abort",
            "std::process::abort()",
            FailureKind::Signal(Signal::ABORT.as_raw()),
        ),
        (
            b"alloc",
            "Vec::<u8>::with_capacity(3 << 30)",
            FailureKind::Oom,
        ),
    ];
    for (input, code, kind) in cases {
        let failure = failure(&pool, input);
        assert_eq!(failure.kind, kind, "{failure:?}");
        let location = failure.location.as_deref().unwrap_or_default();
        assert!(location.starts_with(&line_of(code)), "{code}: {failure:?}");
        assert_eq!(failure.call_path, [RUN], "{code}: {failure:?}");
        let signature = failure.signature();
        assert!(
            signature
                .to_string()
                .contains(" at fuzz_targets/crashes.rs:"),
            "{signature}"
        );
    }
}

/// A panic inside the standard library is placed at the user's line that
/// called into it (helper-49: gimli's capacity overflow placed at
/// `/rustc/<hash>/library/alloc/src/raw_vec/mod.rs`, with no line of its
/// own for an annotation).
#[test]
fn a_panic_inside_the_standard_library_is_placed_at_the_user_s_line() {
    let failure = failure(&pool("crashes"), b"capacity");
    assert_eq!(failure.kind, FailureKind::Panic, "{failure:?}");
    let location = failure.location.as_deref().unwrap_or_default();
    assert!(
        location.starts_with(&line_of("usize::MAX / 4")),
        "{failure:?}"
    );
    assert_eq!(failure.call_path, [RUN], "{failure:?}");
}

/// A panic in a recursion has one call path at any depth: the stack's
/// outer frames are noted beside its inner ones, so the recursion is taken
/// out whole however deep it is, not cut off at some phase of its cycle.
#[test]
fn a_panic_has_one_call_path_at_any_depth_of_a_recursion() {
    let pool = pool("crashes");
    for input in ["nest", "nest-shifted"] {
        let call_path =
            |depth: u64| failure(&pool, format!("{input}:{depth}").as_bytes()).call_path;
        let shallow = call_path(1);
        assert!(
            shallow.iter().any(|f| f.ends_with("nest_array")),
            "{shallow:?}"
        );
        for depth in [2, 30, 31, 200, 201] {
            assert_eq!(call_path(depth), shallow, "{input}:{depth}");
        }
    }
}

#[test]
fn a_recursion_is_placed_by_its_function_and_a_loop_by_its_own() {
    let pool = pool("crashes");
    let overflow = failure(&pool, b"overflow");
    assert_eq!(overflow.kind, FailureKind::StackOverflow);
    assert_eq!(overflow.location.as_deref(), Some("crashes::recurse"));
    assert!(overflow.call_path.is_empty(), "{overflow:?}");
    let hang = failure(&pool, b"loop");
    assert_eq!(hang.kind, FailureKind::Timeout);
    assert_eq!(hang.location.as_deref(), Some(RUN));
    assert_eq!(hang.call_path, [RUN]);
}

/// One worker of the `edges` target with a short timeout, for inputs that
/// never end (their verdict is a timeout however fast the machine).
fn hanging_edges() -> WorkerPool {
    let options = PoolOptions {
        jobs: 1,
        timeout: Duration::from_millis(300),
        ..super::options()
    };
    WorkerPool::start(&super::binaries()["edges"], options).unwrap()
}

/// Runs `input`, a hang, `runs` times in `pool`: a timeout placed in
/// `function` each time.
fn placed_every_time(pool: &WorkerPool, input: &[u8], runs: usize, function: &str) {
    for run in 0..runs {
        let hang = failure(pool, input);
        assert_eq!(hang.kind, FailureKind::Timeout);
        let input = String::from_utf8_lossy(input);
        assert_eq!(
            hang.location.as_deref(),
            Some(function),
            "{input}, run {run}: {hang:?}"
        );
    }
}

/// An endless loop that calls a function is placed by the loop, whether
/// the deadline finds the test in the loop or in the function (the
/// `edges` target's `loop-calls`: about half the time each). One stack per
/// timeout placed it in `step` about every other run.
#[test]
fn a_loop_that_calls_a_function_is_placed_by_the_loop_every_time() {
    placed_every_time(&hanging_edges(), b"loop-calls", 12, "edges::spin_with_step");
}

/// A loop with a callee inlined into it is placed by the loop, whether
/// the deadline finds the test in the loop or in the callee's code, which
/// has the loop's addresses (serde_json's whitespace loop around its
/// inlined `peek` was placed in its caller, or nowhere).
#[test]
fn a_loop_with_an_inlined_callee_is_placed_by_the_loop_every_time() {
    let function = "edges::spin_with_inlined_step";
    placed_every_time(&hanging_edges(), b"loop-inlines", 12, function);
}

/// The same loop at the bottom of a recursion is placed by the loop at
/// any depth: the samples are not lined up frame by frame, since a deep
/// stack's note leaves out its middle, a different number of frames in
/// each sample.
#[test]
fn a_loop_at_the_bottom_of_a_recursion_is_placed_by_the_loop_at_any_depth() {
    let pool = hanging_edges();
    for depth in [1, 30, 31, 200, 201] {
        let input = format!("nest-loop-calls:{depth}");
        placed_every_time(&pool, input.as_bytes(), 4, "edges::spin_with_step");
    }
}

/// A test that does not answer the request for its stack (it blocks the
/// signal) is a timeout with no place whose message says why.
#[test]
fn a_timeout_whose_stack_is_not_answered_says_why() {
    let pool = hanging_edges();
    let hang = failure(&pool, b"deaf-loop");
    assert_eq!(hang.kind, FailureKind::Timeout, "{hang:?}");
    assert!(hang.signature().is_unplaced_timeout(), "{hang:?}");
    let message = hang.message.unwrap_or_default();
    assert!(message.contains("(no stack: no answer in "), "{message}");
}

/// A test that hangs in a system call goes on hanging while the parent
/// takes its stack again and again: the call is restarted, not cut short
/// (`EINTR`, on which the `read-hang` test panics).
#[test]
fn a_hang_in_a_system_call_stays_a_timeout_while_sampled() {
    let pool = hanging_edges();
    let hang = failure(&pool, b"read-hang");
    assert_eq!(hang.kind, FailureKind::Timeout, "{hang:?}");
    assert_eq!(hang.location.as_deref(), Some("edges::wait_for_input"));
}

/// Per-test cost of stack overflows on the `crashes` target, whose
/// recursion is 16,000 frames deep at the limit: ones bounded enough that
/// the test process lives on (`deep:`, past the tripwire), and unbounded
/// ones (`overflow`, the process dies and the fork server forks another).
/// Each notes the frames nearest the fault (at most `MAX_FRAMES`), which
/// the parent names. Wall time, and the CPU time of the worker and the
/// test processes it reaped (less sensitive to a loaded machine; only the
/// unbounded ones' processes end, so only their figure is whole).
/// `cargo test --lib -- --ignored --nocapture overflow_cost`.
#[test]
#[ignore = "benchmark"]
fn overflow_cost() {
    let count = 300;
    let bounded = format!("deep:{}", super::stack_limit_kib() + 128);
    for (name, input) in [("bounded", bounded.as_bytes()), ("unbounded", b"overflow")] {
        let pool = super::one_worker("crashes");
        let inputs = vec![input; count];
        let failed = |o: &Outcome| o.failure().is_none();
        pool.first_accepted(&inputs[..10], &failed).unwrap(); // Warm up.
        let cpu_before = children_cpu();
        let started = std::time::Instant::now();
        let result = pool.first_accepted(&inputs, &failed).unwrap();
        let wall = started.elapsed().as_secs_f64() * 1e6 / count as f64;
        let last = result
            .outcomes
            .last()
            .and_then(|o| o.as_ref()?.failure().cloned());
        assert_eq!(last.map(|f| f.kind), Some(FailureKind::StackOverflow));
        drop(pool); // Its worker is reaped: its CPU time is counted.
        let cpu = (children_cpu() - cpu_before) * 1e6 / count as f64;
        println!("{name} overflow: {wall:.1} us/test wall, {cpu:.1} us/test CPU (with warm-up)");
    }
}

/// CPU seconds (user and system) of this process's reaped children.
fn children_cpu() -> f64 {
    // SAFETY: a zeroed rusage is a valid out-argument.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid out-pointer.
    assert_eq!(
        unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) },
        0
    );
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
