//! The coverage build of `tests-fixtures/corpus-demo` and its replays:
//! each passing input's features, as libFuzzer counts them.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::*;
use crate::fuzz::pool::{CoveragePool, Replayed};
use crate::fuzz::sanitizer::AsanToolchain;

/// The fixture's targets, built with coverage once per process.
fn binaries() -> &'static [PathBuf] {
    static BINARIES: OnceLock<Vec<PathBuf>> = OnceLock::new();
    BINARIES.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests-fixtures/corpus-demo");
        build_crate(
            &dir,
            &["records", "typed", "lazy"],
            "-coverage",
            BuildKind::Coverage(None),
        )
    })
}

/// `lazy` built with coverage and AddressSanitizer once per process;
/// `None` without nightly.
fn lazy_asan() -> Option<&'static PathBuf> {
    static BINARY: OnceLock<Option<PathBuf>> = OnceLock::new();
    BINARY
        .get_or_init(|| {
            let toolchain = AsanToolchain::find()?;
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests-fixtures/corpus-demo");
            let kind = BuildKind::Coverage(Some(&toolchain));
            build_crate(&dir, &["lazy"], "-coverage-asan", kind)
                .into_iter()
                .next()
        })
        .as_ref()
}

/// Each run `lazy` logged (`LAZY_RUN_LOG`): its input and its process.
fn logged_runs(log: &Path) -> Vec<(String, String)> {
    let runs = std::fs::read_to_string(log).unwrap();
    let split = |line: &str| line.rsplit_once(' ').map(|(i, p)| (i.into(), p.into()));
    runs.lines().filter_map(split).collect()
}

/// `inputs` replayed by `lazy` (`binary`) at `jobs`, each run logged.
fn replay_logged(binary: &Path, jobs: usize, inputs: &[&[u8]]) -> Vec<(String, String)> {
    let log = tempfile::NamedTempFile::new().unwrap();
    let env = vec![("LAZY_RUN_LOG".into(), log.path().as_os_str().to_owned())];
    let options = PoolOptions { jobs, ..options() };
    let pool = CoveragePool::start_with_env(binary, options, env).unwrap_or_else(|e| panic!("{e}"));
    pool.replay(inputs).unwrap_or_else(|e| panic!("{e}"));
    logged_runs(log.path())
}

fn replay_on(binary: &Path, jobs: usize, inputs: &[&[u8]]) -> Vec<Replayed> {
    let options = PoolOptions { jobs, ..options() };
    let pool = CoveragePool::start(binary, options).unwrap_or_else(|e| panic!("{e}"));
    pool.replay(inputs).unwrap_or_else(|e| panic!("{e}"))
}

fn replay(jobs: usize, inputs: &[&[u8]]) -> Vec<Replayed> {
    replay_on(&binaries()[0], jobs, inputs)
}

/// What a test process did before an input does not change its features:
/// the decoding of a typed input counts the same first as after another
/// (the coverage build leaves out the recording `arbitrary`, whose lazy
/// thread-local would count for the first input only).
#[test]
fn an_inputs_features_do_not_depend_on_what_ran_before_it() {
    let (first, then): (&[u8], &[u8]) = (b"\xff\x05abcde", b"\x01\x02xy");
    let alone = replay_on(&binaries()[1], 1, &[first]);
    let after = replay_on(&binaries()[1], 1, &[then, first]);
    assert!(!alone[0].features.is_empty());
    assert_eq!(alone[0].features, after[1].features);
}

/// Nor does a one-time initialisation that an input before it paid, or
/// where it lies in the round: `lazy`'s `t` builds a table the first time,
/// and its `a` branches on the input's address. Sixteen copies of each
/// run one after another in one test process, each a byte further on.
#[test]
fn neither_a_one_time_initialisation_nor_the_inputs_place_changes_its_features() {
    let lazy = &binaries()[2];
    for input in [b"t".as_slice(), b"a"] {
        let replayed = replay_on(lazy, 1, &[input; 16]);
        assert!(!replayed[0].features.is_empty());
        let first = &replayed[0].features;
        assert!(
            replayed.iter().all(|r| &r.features == first),
            "{input:?}: {replayed:?}"
        );
    }
}

/// A fork that cannot put its memory back for the next test (the test
/// before left a file open) ends, and the next fork starts at that test,
/// not at one of the other worker's: every input runs once.
#[test]
fn a_fork_cut_short_resumes_at_its_own_next_test() {
    let inputs: Vec<Vec<u8>> = (0..60)
        .map(|i| format!("{}{i:02}", if i % 2 == 0 { 'f' } else { 'n' }).into_bytes())
        .collect();
    let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    let runs = replay_logged(&binaries()[2], 2, &refs);
    for input in &inputs {
        let input = std::str::from_utf8(input).unwrap();
        let count = runs.iter().filter(|(ran, _)| ran == input).count();
        assert_eq!(count, 1, "{input} ran {count} times:\n{runs:?}");
    }
}

/// The snapshot leaves the heap as it was: taken before the first test,
/// it allocates nothing, so `lazy`'s `b` (a branch by where small
/// allocations land) has the same features as in a fork of its own.
#[test]
fn the_snapshot_leaves_the_heap_as_the_test_process_had_it() {
    let features = |env: Vec<(OsString, OsString)>| {
        let options = PoolOptions {
            jobs: 1,
            ..options()
        };
        let pool = CoveragePool::start_with_env(&binaries()[2], options, env)
            .unwrap_or_else(|e| panic!("{e}"));
        let replayed = pool.replay(&[b"b"]).unwrap_or_else(|e| panic!("{e}"));
        replayed[0].features.clone()
    };
    let fork_per_input = vec![("CARGO_REDUCE_FORK_PER_INPUT".into(), "1".into())];
    assert_eq!(features(Vec::new()), features(fork_per_input));
}

/// On the AddressSanitizer build too, one fork runs a worker's inputs and
/// puts its memory back between them (the sanitizer's shadow and
/// allocator among it): sixteen `t` in one process, each counting the
/// table's one-time initialisation. Skipped without nightly, and on a
/// kernel without `PAGEMAP_SCAN` (before 6.7), where ASan's large mappings
/// get a fork per input.
#[test]
fn the_asan_build_puts_its_memory_back_between_inputs() {
    if !kernel_scans_pagemaps() {
        eprintln!("skipped: this kernel has no PAGEMAP_SCAN (Linux 6.7)");
        return;
    }
    let Some(lazy) = lazy_asan() else {
        eprintln!("skipped: no nightly toolchain (`rustup toolchain install nightly`)");
        return;
    };
    let inputs = [b"t".as_slice(); 16];
    let replayed = replay_on(lazy, 1, &inputs);
    let first = &replayed[0].features;
    assert!(!first.is_empty());
    assert!(
        replayed.iter().all(|r| &r.features == first),
        "{replayed:?}"
    );
    // Besides the empty input each process runs as it starts.
    let runs: Vec<_> = replay_logged(lazy, 1, &inputs)
        .into_iter()
        .filter(|(input, _)| input == "t")
        .collect();
    assert_eq!(runs.len(), 16, "{runs:?}");
    assert!(runs.iter().all(|(_, pid)| *pid == runs[0].1), "{runs:?}");
}

/// A test that never ends in its fork is placed where it loops, as in
/// the test process itself: the parent's stack request reaches the fork.
#[test]
fn a_hang_in_a_tests_fork_is_placed_by_its_loop() {
    let replayed = replay_on(&binaries()[2], 1, &[b"h"]);
    let Outcome::Failed(hang) = &replayed[0].outcome else {
        panic!("{replayed:?}");
    };
    assert_eq!(hang.kind, FailureKind::Timeout);
    assert_eq!(hang.location.as_deref(), Some("lazy::spin"), "{hang:?}");
}

#[test]
fn passing_inputs_have_their_features_and_failures_their_outcome() {
    let inputs: &[&[u8]] = &[
        b"num:12",
        b"text:ab",
        b"num:12",
        b"boom:x",
        b"num:123456789012345678901234567890123456",
        b"flag:on",
        b"",
    ];
    let replayed = replay(2, inputs);
    let features = |i: usize| &replayed[i].features;
    assert!(!features(0).is_empty(), "{replayed:?}");
    assert_eq!(
        features(0),
        features(2),
        "the same input, the same features"
    );
    assert_ne!(features(0), features(1), "another branch");
    assert!(matches!(replayed[3].outcome, Outcome::Failed(_)));
    assert!(features(3).is_empty());
    // More digits: the digit loop's counters land in higher buckets.
    let more: Vec<_> = features(4)
        .iter()
        .filter(|f| !features(0).contains(f))
        .collect();
    assert!(!more.is_empty(), "{:?} vs {:?}", features(4), features(0));
    assert!(
        features(4).windows(2).all(|w| w[0] < w[1]),
        "sorted, no repeats"
    );
    // The same features whichever worker ran which input.
    assert_eq!(replay(1, inputs), replayed);
}

/// No counter is in the stand-in's own code (the coverage build compiles
/// it without SanitizerCoverage, as libFuzzer's runtime is): what runs
/// around a test adds no feature of its own. Each counter's block named by
/// the function symbol that holds it, generic instances of the stand-in's
/// code (`std::panicking::try::<.., libfuzzer_sys::..>`) included.
#[test]
fn no_counter_is_in_the_stand_ins_code() {
    use object::{Object, ObjectSymbol, SymbolKind};
    let binary = &binaries()[0];
    let table_file = crate::fuzz::pool::PcTableFile::new().unwrap();
    let pool = CoveragePool::start_with_env(binary, options(), vec![table_file.env()])
        .unwrap_or_else(|e| panic!("{e}"));
    pool.replay(&[b"num:1"]).unwrap_or_else(|e| panic!("{e}"));
    let table = table_file.read(binary).unwrap();
    let data = std::fs::read(binary).unwrap();
    let file = object::File::parse(&*data).unwrap();
    let mut functions: Vec<(u64, String)> = file
        .symbols()
        .filter(|s| s.kind() == SymbolKind::Text && s.size() > 0)
        .filter_map(|s| Some((s.address(), s.name().ok()?.to_string())))
        .collect();
    functions.sort_unstable();
    let holder = |pc: u64| {
        let at = functions.partition_point(|(address, _)| *address <= pc);
        let name = at.checked_sub(1).map_or("", |i| functions[i].1.as_str());
        addr2line::demangle_auto(name.into(), None).into_owned()
    };
    assert!(!table.pcs.is_empty());
    let standin: Vec<String> = table
        .pcs
        .iter()
        .map(|&pc| holder(pc))
        .filter(|name| name.contains("libfuzzer_sys::"))
        .collect();
    assert!(standin.is_empty(), "{standin:#?}");
}

/// Whether this kernel answers the pagemap's `PAGEMAP_SCAN` ioctl (asked
/// about the page of a local variable).
fn kernel_scans_pagemaps() -> bool {
    use std::os::unix::io::AsRawFd;
    let Ok(pagemap) = std::fs::File::open("/proc/self/pagemap") else {
        return false;
    };
    let local = 0u8;
    let page = std::hint::black_box(&local) as *const u8 as u64 & !4095;
    let mut runs = [sys::page_region::default(); 1];
    let mut scan = sys::pm_scan_arg {
        size: std::mem::size_of::<sys::pm_scan_arg>() as u64,
        start: page,
        end: page + 4096,
        vec: runs.as_mut_ptr() as u64,
        vec_len: 1,
        category_anyof_mask: sys::PAGE_IS_PRESENT,
        return_mask: sys::PAGE_IS_PRESENT,
        ..Default::default()
    };
    // SAFETY: `vec` points to `runs`, one run long.
    unsafe { sys::pagemap_scan(pagemap.as_raw_fd(), &mut scan) >= 0 }
}
