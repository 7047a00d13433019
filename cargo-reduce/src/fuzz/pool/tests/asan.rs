//! The pool on the AddressSanitizer build of `tests-fixtures/pool-demo`
//! (`--sanitizer address`): ASan takes no failure kind from the harness.
//! The stack tripwire still catches overflows (the harness's fault handler
//! runs before ASan's), the malloc limit is still the harness's (after
//! ASan's allocator, whose refusal is its report), an abort,
//! an exit and a caught panic are what they are uninstrumented; a wild
//! pointer's segfault is what ASan reports under `cargo fuzz`, a `SEGV`
//! with its access. Skipped, with the reason printed, when no nightly
//! toolchain is installed.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use rustix::process::Signal;

use crate::fuzz::pool::asan_bug::AsanBug;
use crate::fuzz::pool::*;
use crate::fuzz::sanitizer::AsanToolchain;

/// The fixture's `crashes` target built with ASan, once per test process;
/// `None` without nightly.
fn crashes() -> Option<&'static PathBuf> {
    static BINARY: OnceLock<Option<PathBuf>> = OnceLock::new();
    BINARY
        .get_or_init(|| {
            let toolchain = AsanToolchain::find()?;
            let built = super::build_fixture(&["crashes"], "-asan", Some(&toolchain));
            built.into_iter().next()
        })
        .as_ref()
}

#[test]
fn failure_kinds_are_the_same_on_the_asan_build() {
    let Some(binary) = crashes() else {
        eprintln!("skipped: no nightly toolchain (`rustup toolchain install nightly`)");
        return;
    };
    let options = PoolOptions {
        jobs: 2,
        timeout: Duration::from_secs(2),
        rss_limit_mb: 1024,
        ..PoolOptions::default()
    };
    let pool = WorkerPool::start(binary, options).unwrap_or_else(|err| panic!("{err}"));
    // ASan gives each inlined callee's locals a slot of their own: the
    // harness keeps its frames below the target's entry as small as
    // uninstrumented.
    let entry = format!("stack-left:{}", super::stack_limit_kib() - super::ENTRY_KIB);
    assert_eq!(pool.run(entry.as_bytes()).unwrap(), Outcome::Passed);
    let depth = |input: &[u8]| {
        let outcome = pool.run(input).unwrap();
        outcome.failure().and_then(|f| f.overflow_depth)
    };
    assert_eq!(depth(b"past:8"), Some(OverflowDepth::NearTheLimit));
    assert_eq!(depth(b"past:40"), Some(OverflowDepth::WellPast));
    let segv = AsanBug::from_name("SEGV").unwrap();
    // A size ASan's allocator refuses is its report, as under `cargo fuzz`
    // (libFuzzer's malloc limit is a hook after ASan's allocator).
    let too_big = AsanBug::from_name("allocation-size-too-big").unwrap();
    let cases: &[(&[u8], Option<FailureKind>)] = &[
        (b"fine", None),
        (b"abort", Some(FailureKind::Signal(Signal::ABORT.as_raw()))),
        (b"overflow", Some(FailureKind::StackOverflow)),
        (b"deep:9000", Some(FailureKind::StackOverflow)),
        (b"deep:4000", None),
        (b"alloc", Some(FailureKind::Oom)),
        (b"huge-alloc", Some(FailureKind::Sanitizer(too_big))),
        (b"segv", Some(FailureKind::Sanitizer(segv))),
        (b"exit", Some(FailureKind::Exit(7))),
        (b"caught", Some(FailureKind::Panic)),
        (b"fine at last", None),
    ];
    for (input, expected) in cases {
        let outcome = pool.run(input).unwrap();
        let got = outcome.failure().map(|f| f.kind);
        assert_eq!(
            got,
            *expected,
            "{}: {outcome:?}",
            String::from_utf8_lossy(input)
        );
    }
    // ASan's own stack of the allocation it refused is `malloc` alone
    // (`malloc_context_size=0`): placed by the stand-in's, at the call.
    let huge = pool.run(b"huge-alloc").unwrap();
    let huge = huge.failure().unwrap();
    assert!(
        huge.location
            .as_deref()
            .is_some_and(|l| l.starts_with("fuzz_targets/crashes.rs:")),
        "{huge:?}"
    );
    // ASan's report of the wild write (`crashes.rs`: to address 16).
    let wild = pool.run(b"segv").unwrap();
    let wild = wild.failure().unwrap();
    assert_eq!(wild.message.as_deref(), Some("WRITE"), "{wild:?}");
    assert!(
        wild.location
            .as_deref()
            .is_some_and(|l| l.starts_with("fuzz_targets/crashes.rs:")),
        "{wild:?}"
    );
}
