//! A test's coverage, for the coverage build (`cfg(cargo_reduce_coverage)`,
//! built with SanitizerCoverage's inline 8-bit counters and PC table): the
//! callbacks that register them (libFuzzer's runtime defines these in a
//! `cargo fuzz build`), and the feature log a worker writes after each
//! passing test when the parent asks for it (`FEATURE_LOG_ENV`). The
//! features are counted by `protocol::collect_features`, as libFuzzer
//! counts them.
//!
//! In every other build the callbacks are absent and no counter region is
//! ever registered: a log records empty feature sets.
//!
//! The coverage build compiles this crate itself without SanitizerCoverage
//! (`fuzz/standin/sancov_exempt.rs`), as libFuzzer's runtime is compiled:
//! the code that runs around a test has no counters, and a test's features
//! are its target's alone.

use crate::protocol::{collect_features, feature_record, FEATURE_LOG_ENV};
use std::fs::File;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Most counter regions kept (one per instrumented module that registers
/// its own; a statically linked program registers one).
const MAX_REGIONS: usize = 8;

/// The registered counter regions: (start, stop) addresses.
static REGIONS: [(AtomicUsize, AtomicUsize); MAX_REGIONS] =
    [const { (AtomicUsize::new(0), AtomicUsize::new(0)) }; MAX_REGIONS];
static REGION_COUNT: AtomicUsize = AtomicUsize::new(0);

/// SanitizerCoverage's constructor hands over a module's counters. Each
/// module of a program calls it with the same (merged) section; a region
/// already known is not added twice (libFuzzer's `HandleInline8bitCountersInit`).
#[cfg(all(cargo_reduce_coverage, not(cargo_reduce_companion)))]
#[no_mangle]
pub extern "C" fn __sanitizer_cov_8bit_counters_init(start: *mut u8, stop: *mut u8) {
    let (start, stop) = (start as usize, stop as usize);
    let count = REGION_COUNT.load(Ordering::Acquire);
    let known = REGIONS[..count]
        .iter()
        .any(|r| r.0.load(Ordering::Relaxed) == start);
    if start >= stop || known || count == MAX_REGIONS {
        return;
    }
    REGIONS[count].0.store(start, Ordering::Relaxed);
    REGIONS[count].1.store(stop, Ordering::Relaxed);
    REGION_COUNT.store(count + 1, Ordering::Release);
}

/// Indirect calls, which edge coverage instruments; libFuzzer's runtime
/// ignores them too unless value profiling is on.
#[cfg(all(cargo_reduce_coverage, not(cargo_reduce_companion)))]
#[no_mangle]
pub extern "C" fn __sanitizer_cov_trace_pc_indir(_callee: usize) {}

/// The registered counter regions: SanitizerCoverage's counters, static
/// for the program's life (start, length).
fn regions() -> impl Iterator<Item = (*mut u8, usize)> {
    let count = REGION_COUNT.load(Ordering::Acquire);
    REGIONS[..count].iter().map(|(start, stop)| {
        let (start, stop) = (start.load(Ordering::Relaxed), stop.load(Ordering::Relaxed));
        (start as *mut u8, stop - start)
    })
}

/// Where a worker's test process logs the features of its passing tests.
pub(crate) struct FeatureLog {
    file: File,
    /// The counters as the test left them (copied before they are read,
    /// so that nothing the counting runs can change them).
    snapshot: Vec<u8>,
    features: Vec<u32>,
    record: Vec<u8>,
}

impl FeatureLog {
    /// The log of worker `slot`, when the parent asked for one; exits the
    /// process when it cannot be opened (the parent sees a dead worker).
    pub(crate) fn open(slot: usize) -> Option<FeatureLog> {
        let dir = std::env::var_os(FEATURE_LOG_ENV)?;
        crate::pc_table::write_if_asked(slot);
        let path = std::path::Path::new(&dir).join(slot.to_string());
        let file = match File::options().create(true).append(true).open(&path) {
            Ok(file) => file,
            Err(err) => {
                eprintln!(
                    "cargo-reduce stand-in: cannot open {}: {err}",
                    path.display()
                );
                // SAFETY: _exit has no preconditions.
                unsafe { crate::sys::_exit(2) }
            }
        };
        // Room for the most a test can have (a feature per counter and
        // the stack depth's), so that no test reallocates them: a
        // test process that puts its memory back between tests
        // (`snapshot`) puts the heap back as it was before the first.
        let size: usize = regions().map(|(_, len)| len).sum();
        Some(FeatureLog {
            file,
            snapshot: Vec::with_capacity(size),
            features: Vec::with_capacity(size + 1),
            record: Vec::with_capacity(16 + 4 * (size + 1)),
        })
    }

    /// Before a test: every counter to zero, the stack depth to here
    /// (libFuzzer's `ResetMaps` and `RecordInitialStack`).
    #[inline(always)]
    pub(crate) fn begin(&self) {
        for (start, len) in regions() {
            // SAFETY: a counter region (`regions`).
            unsafe { std::ptr::write_bytes(start, 0, len) };
        }
        stack_depth::reset();
    }

    /// After input `index` passed: its features, appended to the log.
    #[inline(always)]
    pub(crate) fn record(&mut self, index: u64) {
        let offset = stack_depth::offset();
        self.snapshot.clear();
        for (start, len) in regions() {
            // SAFETY: a counter region (`regions`); tests run on this
            // thread alone.
            self.snapshot
                .extend_from_slice(unsafe { std::slice::from_raw_parts(start, len) });
        }
        let mut cut = Vec::with_capacity(MAX_REGIONS);
        let mut rest = &self.snapshot[..];
        for (_, len) in regions() {
            let (this, after) = rest.split_at(len);
            cut.push(this);
            rest = after;
        }
        self.features.clear();
        collect_features(&cut, offset, &mut self.features);
        feature_record(
            index,
            self.snapshot.len() as u32,
            &self.features,
            &mut self.record,
        );
        if self.file.write_all(&self.record).is_err() {
            eprintln!("cargo-reduce stand-in: cannot write the feature log");
            // SAFETY: _exit has no preconditions.
            unsafe { crate::sys::_exit(2) }
        }
    }
}

/// Alignment-sensitive code (memchr's vector loops: an unaligned first
/// chunk, then aligned ones) takes other edges at another address, so a
/// coverage test's input is copied to this alignment rather than run
/// where it lies in the round (after the inputs before it).
const INPUT_ALIGN: usize = 64;

/// A coverage test's input, copied to a heap block of its own, exactly
/// its length, at an address that is a multiple of [`INPUT_ALIGN`] (made
/// in the test's own process: what it allocates depends on the input's
/// length only). Exactly its length as libFuzzer's copy (`new
/// uint8_t[Size]`): under AddressSanitizer the shadow of the input's last
/// 8-byte granule then says how many of its bytes are the input's, and an
/// access there takes the check's slow path, an edge of its own (an input
/// of 8 bytes and one of 5 that read byte 4 reach different edges). In a
/// larger block that granule reads as whole, and the two inputs alike.
pub(crate) struct InputCopy {
    at: std::ptr::NonNull<u8>,
    len: usize,
}

impl InputCopy {
    pub(crate) fn new(input: &[u8]) -> Self {
        let len = input.len();
        let at = match Self::layout(len) {
            // SAFETY: the layout's size is nonzero.
            Some(layout) => match std::ptr::NonNull::new(unsafe { std::alloc::alloc(layout) }) {
                Some(at) => at,
                None => std::alloc::handle_alloc_error(layout),
            },
            // An empty input has no byte to read: no block.
            None => std::ptr::NonNull::dangling(),
        };
        // SAFETY: `at` has room for `len` bytes (none when `len` is 0) and
        // does not overlap `input`.
        unsafe { std::ptr::copy_nonoverlapping(input.as_ptr(), at.as_ptr(), len) };
        InputCopy { at, len }
    }

    fn layout(len: usize) -> Option<std::alloc::Layout> {
        // An input is far smaller than `isize::MAX`.
        (len != 0).then(|| std::alloc::Layout::from_size_align(len, INPUT_ALIGN).unwrap())
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: `len` bytes written in `new`, alive until `drop`.
        unsafe { std::slice::from_raw_parts(self.at.as_ptr(), self.len) }
    }
}

impl Drop for InputCopy {
    fn drop(&mut self) {
        if let Some(layout) = Self::layout(self.len) {
            // SAFETY: allocated in `new` with this layout.
            unsafe { std::alloc::dealloc(self.at.as_ptr(), layout) };
        }
    }
}

/// `-sanitizer-coverage-stack-depth`: every instrumented function lowers
/// the thread-local `__sancov_lowest_stack` to its stack pointer. Stable
/// Rust cannot define a thread-local under a given symbol name, so it is
/// defined in assembly (x86-64 Linux, where the coverage build turns the
/// instrumentation on).
#[cfg(all(
    cargo_reduce_coverage,
    not(cargo_reduce_companion),
    target_arch = "x86_64",
    target_os = "linux"
))]
mod stack_depth {
    std::arch::global_asm!(
        ".pushsection .tbss,\"awT\",@nobits",
        ".globl __sancov_lowest_stack",
        ".type __sancov_lowest_stack,@object",
        ".size __sancov_lowest_stack,8",
        ".p2align 3",
        "__sancov_lowest_stack:",
        ".zero 8",
        ".popsection",
    );

    static INITIAL: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    fn set(value: usize) {
        // SAFETY: writes this thread's `__sancov_lowest_stack` (local-exec:
        // it is defined in the program itself).
        unsafe {
            std::arch::asm!("mov qword ptr fs:[__sancov_lowest_stack@tpoff], {}", in(reg) value)
        };
    }

    fn get() -> usize {
        let value: usize;
        // SAFETY: reads this thread's `__sancov_lowest_stack`.
        unsafe {
            std::arch::asm!("mov {}, qword ptr fs:[__sancov_lowest_stack@tpoff]", out(reg) value)
        };
        value
    }

    /// The stack depth counts from here (the caller's frame).
    #[inline(always)]
    pub(super) fn reset() {
        let here = 0u8;
        let address = std::ptr::addr_of!(here) as usize;
        INITIAL.store(address, std::sync::atomic::Ordering::Relaxed);
        set(address);
    }

    /// How far below the start the test's deepest instrumented frame was.
    pub(super) fn offset() -> usize {
        INITIAL
            .load(std::sync::atomic::Ordering::Relaxed)
            .saturating_sub(get())
    }
}

/// No stack-depth instrumentation: no depth feature.
#[cfg(not(all(
    cargo_reduce_coverage,
    not(cargo_reduce_companion),
    target_arch = "x86_64",
    target_os = "linux"
)))]
mod stack_depth {
    pub(super) fn reset() {}

    pub(super) fn offset() -> usize {
        0
    }
}
