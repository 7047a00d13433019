//! The test thread's stack: exactly as deep as the main thread's
//! (`RLIMIT_STACK`, where both engines run targets), with room below it so
//! that a stack overflow does not have to end the process.
//!
//! A test that overflowed used to kill its process, and the next test ran
//! in a fresh fork whose stack the kernel had to map again page by page,
//! most of the time a recursive parser's reduction took. Now the test thread runs on a stack of our own
//! mapping, as deep as a thread of the limit's size: that is all the C
//! library knows of, so code that measures its stack (`stacker`) sees the
//! real limit. Below it lies a zone made inaccessible, the tripwire, then a
//! margin as large as the stack. A test that reaches the tripwire has
//! overflowed at exactly the depth the real thread would: the fault handler
//! notes the overflow, opens the tripwire and lets the test go on into the
//! margin; after the test it is closed again. Nothing is abandoned (no
//! frame skipped, no lock left held), so the process stays sound for the
//! next test, and the stack pages stay mapped. A test that goes past the
//! margin too (unbounded recursion) hits the last guard and dies of it, as
//! every overflow did before, but after mapping twice the stack: so once a
//! test process died that way, the fork server's next ones treat the
//! tripwire past its first part as the guard (see [`after_death`]).
//!
//! The tripwire opens in two steps, its first `OVERFLOW_SLACK` bytes, then
//! the rest, so that an overflow's note says whether it went that far past
//! the limit: an input the fuzzer found overflowing well past it is reduced
//! to one that still does, off the edge where the real program overflows on
//! some runs only.

use crate::protocol::{
    OVERFLOW_ELSEWHERE, OVERFLOW_NEAR_LIMIT, OVERFLOW_PAST_MARGIN, OVERFLOW_PAST_SLACK,
    OVERFLOW_SLACK,
};
use crate::sys;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// How far below the lowest stack address a fault still counts as an
/// overflow (a frame may skip over a guard page); also the tripwire's size.
const GUARD_ZONE: usize = 1 << 20;

/// How near the stack pointer a SIGSEGV counts as an overflow on a thread
/// whose stack we do not know (one the target spawned): a frame's first
/// accesses lie within a probe's step of it, and nothing else that close
/// to the stack pointer is inaccessible.
const NEAR_SP: usize = 64 << 10;

/// Faults at addresses in [GUARD_LOW, GUARD_HIGH) are overflows past the
/// last guard; they end the process.
static GUARD_LOW: AtomicUsize = AtomicUsize::new(0);
static GUARD_HIGH: AtomicUsize = AtomicUsize::new(0);
/// The tripwire, [TRIP_LOW, TRIP_HIGH): empty when there is none.
static TRIP_LOW: AtomicUsize = AtomicUsize::new(0);
static TRIP_HIGH: AtomicUsize = AtomicUsize::new(0);
/// Whether a test is running, so a tripped wire may let it go on.
static IN_TEST: AtomicBool = AtomicBool::new(false);
/// Whether the running test opened the tripwire.
static TRIPPED: AtomicBool = AtomicBool::new(false);
/// Whether a test that reaches the tripwire may go on (until a test
/// process dies past the margin).
static TRIPWIRE_OPENS: AtomicBool = AtomicBool::new(true);

/// The test thread's stack mapping's lowest address, and the address of a
/// local of the thread's outermost frame, above every frame of the tests.
static TESTS_STACK_LOW: AtomicUsize = AtomicUsize::new(0);
static TESTS_STACK_TOP: AtomicUsize = AtomicUsize::new(0);

fn set_tests_stack_top(local: &u8) {
    TESTS_STACK_TOP.store(local as *const u8 as usize, Ordering::Relaxed);
}

/// The memory the tests' frames live in: from the test thread's stack
/// mapping's lowest address to the end of the page of its outermost
/// frame (`None` before the thread started, or where that is not known).
pub fn tests_stack() -> Option<(usize, usize)> {
    let low = TESTS_STACK_LOW.load(Ordering::Relaxed);
    let top = TESTS_STACK_TOP.load(Ordering::Relaxed);
    let page = page_size();
    (low != 0 && top != 0).then(|| (low, (top / page + 1) * page))
}

/// What a fault at some address means; an overflow's with how far past
/// the limit it was (`OVERFLOW_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The running test reached the tripwire, which is now open down to
    /// the fault: note the overflow and return from the handler, the test
    /// goes on.
    Tripped(u64),
    /// A stack overflow that ends the process.
    Overflow(u64),
    /// Not a stack overflow.
    Other,
}

/// The body of the test thread.
pub type Body = Box<dyn FnOnce() + Send>;

/// The stack depth tests get: `RLIMIT_STACK`, as the main thread's, or
/// 8 MiB when that says nothing useful.
fn limit() -> usize {
    const DEFAULT_STACK: usize = 8 << 20;
    let mut limit = sys::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: fills in `limit`.
    let ok = unsafe { sys::getrlimit(sys::RLIMIT_STACK, &mut limit) } == 0;
    if !ok || limit.rlim_cur == sys::RLIM_INFINITY || limit.rlim_cur < (1 << 20) {
        return DEFAULT_STACK;
    }
    usize::try_from(limit.rlim_cur)
        .unwrap_or(DEFAULT_STACK)
        .min(1 << 30)
}

/// Starts the thread tests run on, running `body` (which never returns):
/// on a stack of our own with the tripwire and margin below it, or, if
/// that cannot be had, on a plain thread of the limit's size, where an
/// overflow ends the process.
pub fn spawn_test_thread(body: Body) -> io::Result<()> {
    let limit = limit();
    let depth = usable_size(limit).unwrap_or(limit);
    let body = match spawn_on_own_stack(depth, body) {
        Ok(()) => return Ok(()),
        Err(body) => body,
    };
    std::thread::Builder::new()
        .name("fuzz-target".into())
        .stack_size(limit)
        .spawn(move || {
            let top = 0u8;
            if let Some((low, _)) = own_stack() {
                set_guard(low);
                TESTS_STACK_LOW.store(low, Ordering::Relaxed);
                set_tests_stack_top(std::hint::black_box(&top));
            }
            body()
        })
        .map(drop)
}

/// The usable size of the stack of a thread spawned with `stack_size` (the
/// C library and std round it, to a page or more), measured by spawning
/// one; `None` if that failed.
fn usable_size(stack_size: usize) -> Option<usize> {
    std::thread::Builder::new()
        .stack_size(stack_size)
        .spawn(|| own_stack().map(|(_, size)| size))
        .ok()?
        .join()
        .ok()?
}

/// The calling thread's stack as the C library reports it: lowest usable
/// address and size.
fn own_stack() -> Option<(usize, usize)> {
    // SAFETY: plain libc calls on this thread's own attributes.
    unsafe {
        let mut attr: sys::pthread_attr_t = std::mem::zeroed();
        if sys::pthread_getattr_np(sys::pthread_self(), &mut attr) != 0 {
            return None;
        }
        let mut low: *mut sys::c_void = std::ptr::null_mut();
        let mut size: sys::size_t = 0;
        let ok = sys::pthread_attr_getstack(&attr, &mut low, &mut size) == 0;
        sys::pthread_attr_destroy(&mut attr);
        ok.then_some((low as usize, size))
    }
}

/// Faults from `GUARD_ZONE` below `low` up to its first page are overflows
/// that end the process.
fn set_guard(low: usize) {
    GUARD_LOW.store(low.saturating_sub(GUARD_ZONE), Ordering::Relaxed);
    GUARD_HIGH.store(low + page_size(), Ordering::Relaxed);
}

/// Maps, from the bottom: a guard page, the margin (`depth` bytes), the
/// tripwire (`GUARD_ZONE`), the stack (`depth`); starts a thread on the
/// stack running `body`. Gives `body` back if any step failed.
// `is_multiple_of` is Rust 1.87, and the stand-in builds with the user's
// toolchain.
#[allow(clippy::manual_is_multiple_of)]
fn spawn_on_own_stack(depth: usize, body: Body) -> Result<(), Body> {
    let page = page_size();
    if depth % page != 0 {
        return Err(body);
    }
    let len = page + depth + GUARD_ZONE + depth;
    // SAFETY: a fresh private mapping; nothing else refers to it.
    let region = unsafe {
        sys::mmap(
            std::ptr::null_mut(),
            len,
            sys::PROT_READ | sys::PROT_WRITE,
            sys::MAP_PRIVATE | sys::MAP_ANONYMOUS | sys::MAP_NORESERVE | sys::MAP_STACK,
            -1,
            0,
        )
    };
    if region == sys::MAP_FAILED {
        return Err(body);
    }
    let region = region as usize;
    let stack = region + len - depth;
    let unmap = |body| {
        // SAFETY: the mapping made above, which no thread uses.
        unsafe { sys::munmap(region as *mut sys::c_void, len) };
        Err(body)
    };
    if !protect(region, region + page, false) || !protect(stack - GUARD_ZONE, stack, false) {
        return unmap(body);
    }
    set_guard(region + page);
    TRIP_LOW.store(stack - GUARD_ZONE, Ordering::Relaxed);
    TRIP_HIGH.store(stack, Ordering::Release);
    TESTS_STACK_LOW.store(region, Ordering::Relaxed);
    let arg = Box::into_raw(Box::new(body));
    // SAFETY: the attributes are initialized before use and destroyed
    // after; the stack is ours, page-aligned and `depth` bytes; `arg` goes
    // to the thread, or is taken back below if it did not start.
    let started = unsafe {
        let mut attr: sys::pthread_attr_t = std::mem::zeroed();
        let mut thread: sys::pthread_t = std::mem::zeroed();
        let ok = sys::pthread_attr_init(&mut attr) == 0
            && sys::pthread_attr_setstack(&mut attr, stack as *mut sys::c_void, depth) == 0
            && sys::pthread_create(&mut thread, &attr, run_body, arg.cast()) == 0;
        sys::pthread_attr_destroy(&mut attr);
        if ok {
            sys::pthread_detach(thread);
        }
        ok
    };
    if started {
        return Ok(());
    }
    TRIP_HIGH.store(0, Ordering::Relaxed);
    GUARD_HIGH.store(0, Ordering::Relaxed);
    // SAFETY: no thread took `arg`.
    unmap(*unsafe { Box::from_raw(arg) })
}

/// The test thread's start: runs the body it is handed (a panic escaping
/// it aborts, as it would at the C frame).
// C string literals are Rust 1.77: see above.
#[allow(clippy::manual_c_str_literals)]
extern "C" fn run_body(arg: *mut sys::c_void) -> *mut sys::c_void {
    // SAFETY: `arg` is the box `spawn_on_own_stack` leaked for this thread.
    let body = unsafe { Box::from_raw(arg.cast::<Body>()) };
    let top = 0u8;
    set_tests_stack_top(std::hint::black_box(&top));
    // SAFETY: names the calling thread; the name is NUL-terminated.
    unsafe { sys::prctl(sys::PR_SET_NAME, b"fuzz-target\0".as_ptr()) };
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(*body)).is_err() {
        std::process::abort();
    }
    std::ptr::null_mut()
}

/// Makes [low, high) inaccessible (or accessible again, `open`).
fn protect(low: usize, high: usize, open: bool) -> bool {
    let access = if open {
        sys::PROT_READ | sys::PROT_WRITE
    } else {
        sys::PROT_NONE
    };
    // SAFETY: [low, high) is part of the test thread's mapping, below any
    // frame in use when it is closed; mprotect is async-signal-safe.
    unsafe { sys::mprotect(low as *mut sys::c_void, high - low, access) == 0 }
}

/// A test starts: the tripwire may let it go on.
pub fn begin_test() {
    IN_TEST.store(true, Ordering::Relaxed);
}

/// The test ended: closes the tripwire if it opened it. If it cannot be
/// closed (`mprotect` fails with ENOMEM at `vm.max_map_count`), the
/// process ends as the overflow would have ended it: the pool starts a
/// new one, whose tripwire is closed, rather than let later overflows into
/// the open margin go unnoticed. The test's overflow is noted already.
pub fn end_test() {
    IN_TEST.store(false, Ordering::Relaxed);
    if TRIPPED.swap(false, Ordering::Relaxed) {
        let (low, high) = tripwire();
        if !protect(low, high, false) {
            // SAFETY: signal and raise have no preconditions.
            unsafe {
                sys::signal(sys::SIGSEGV, sys::SIG_DFL);
                sys::raise(sys::SIGSEGV);
            }
        }
    }
}

fn tripwire() -> (usize, usize) {
    (
        TRIP_LOW.load(Ordering::Relaxed),
        TRIP_HIGH.load(Ordering::Acquire),
    )
}

/// What a SIGSEGV or SIGBUS at `address` with the stack pointer at `sp`
/// means; opens the tripwire when the running test reached it.
/// Async-signal-safe.
pub fn on_fault(signal: sys::c_int, address: usize, sp: usize) -> Fault {
    let (low, high) = tripwire();
    if (low..high).contains(&address) {
        return trip(low, high, address);
    }
    if past_margin(address) {
        Fault::Overflow(OVERFLOW_PAST_MARGIN)
    } else if signal == sys::SIGSEGV && address.abs_diff(sp) < NEAR_SP {
        Fault::Overflow(OVERFLOW_ELSEWHERE)
    } else {
        Fault::Other
    }
}

/// A fault at `address` in the tripwire [low, high): opens its first
/// `OVERFLOW_SLACK` bytes, or all of it for a fault below them, when the
/// running test may go on. Once a test process died past the margin, only
/// the first part opens, so that an overflow past it ends its process
/// there, still told apart from one near the limit.
fn trip(low: usize, high: usize, address: usize) -> Fault {
    let first_step = high.saturating_sub(OVERFLOW_SLACK).max(low);
    let (depth, open_from) = match address >= first_step {
        true => (OVERFLOW_NEAR_LIMIT, first_step),
        false => (OVERFLOW_PAST_SLACK, low),
    };
    let in_test = IN_TEST.load(Ordering::Relaxed);
    let opens = in_test && (depth == OVERFLOW_NEAR_LIMIT || TRIPWIRE_OPENS.load(Ordering::Relaxed));
    if opens && protect(open_from, high, true) {
        TRIPPED.store(true, Ordering::Relaxed);
        return Fault::Tripped(depth);
    }
    Fault::Overflow(depth)
}

/// Whether a fault at `address` is in the last guard, below the margin.
fn past_margin(address: usize) -> bool {
    (GUARD_LOW.load(Ordering::Relaxed)..GUARD_HIGH.load(Ordering::Relaxed)).contains(&address)
}

/// Called by the fork server when a test process died of a stack
/// overflow `depth` past the limit (`OVERFLOW_*`): if that was in the last
/// guard, the recursion was unbounded, and every such test costs mapping
/// twice the stack before it dies. The processes forked from now on die
/// `OVERFLOW_SLACK` past the limit instead: overflows deeper than that
/// cost a process again, unbounded ones no more than before the margin.
pub fn after_death(depth: u64) {
    if depth == OVERFLOW_PAST_MARGIN {
        TRIPWIRE_OPENS.store(false, Ordering::Relaxed);
    }
}

/// The size of a memory page.
pub fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { sys::sysconf(sys::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(4096)
}
