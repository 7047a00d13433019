//! The test thread's stack: exactly as deep as the main thread's
//! (`RLIMIT_STACK`, where both engines run targets), with room below it so
//! that a stack overflow does not have to end the process.
//!
//! A test that overflowed used to kill its process, and the next test ran
//! in a fresh fork whose stack the kernel had to map again page by page:
//! about 3 ms for 8 MiB on the benchmark VM, most of the time a recursive
//! parser's reduction took. Now the thread's stack is `limit` deep plus a
//! margin as large again, and the zone where a `limit`-sized thread's guard
//! would be is made inaccessible: the tripwire. A test that reaches it has
//! overflowed at exactly the depth the real thread would have. The fault
//! handler notes the overflow, opens the tripwire and lets the test go on
//! into the margin; after the test it is closed again. Nothing is
//! abandoned (no frame skipped, no lock left held), so the process stays
//! sound for the next test, and the stack pages stay mapped. A test that
//! goes past the margin too (unbounded recursion) hits the real guard and
//! dies of it, as every overflow did before, but after mapping twice the
//! stack: so once a test process died that way, the fork server's next
//! ones treat the tripwire as the guard (see [`after_death`]).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// How far below the lowest stack address a fault still counts as an
/// overflow (a frame may skip over a guard page).
const GUARD_ZONE: usize = 1 << 20;

/// Faults at addresses in [GUARD_LOW, GUARD_HIGH) are overflows past the
/// thread's real guard; they end the process.
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

/// What a fault at some address means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The running test reached the tripwire, which is now open: note the
    /// overflow and return from the handler, the test goes on.
    Tripped,
    /// A stack overflow that ends the process.
    Overflow,
    /// Not a stack overflow.
    Other,
}

/// The stack depth tests get: `RLIMIT_STACK`, as the main thread's, or
/// 8 MiB when that says nothing useful.
pub fn limit() -> usize {
    const DEFAULT_STACK: usize = 8 << 20;
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: fills in `limit`.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut limit) } == 0;
    if !ok || limit.rlim_cur == libc::RLIM_INFINITY || limit.rlim_cur < (1 << 20) {
        return DEFAULT_STACK;
    }
    usize::try_from(limit.rlim_cur)
        .unwrap_or(DEFAULT_STACK)
        .min(1 << 30)
}

/// The stack size to spawn the test thread with: `limit` and the margin.
pub fn with_margin(limit: usize) -> usize {
    2 * limit
}

/// The usable size of the stack of a thread spawned with `stack_size` (the
/// C library and std round it, to a page or more), measured by spawning
/// one; `None` if that failed.
pub fn usable_size(stack_size: usize) -> Option<usize> {
    std::thread::Builder::new()
        .stack_size(stack_size)
        .spawn(|| own_stack().map(|(_, size)| size))
        .ok()?
        .join()
        .ok()?
}

/// The calling thread's stack: lowest usable address and size.
fn own_stack() -> Option<(usize, usize)> {
    // SAFETY: plain libc calls on this thread's own attributes.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return None;
        }
        let mut low: *mut libc::c_void = std::ptr::null_mut();
        let mut size: libc::size_t = 0;
        let ok = libc::pthread_attr_getstack(&attr, &mut low, &mut size) == 0;
        libc::pthread_attr_destroy(&mut attr);
        ok.then_some((low as usize, size))
    }
}

/// Called on the test thread: records where its real guard is and, when
/// its stack is deeper than `depth` (the usable size of a thread of the
/// limit's size) by more than the tripwire, lays the tripwire at `depth`
/// below the top.
pub fn prepare(depth: Option<usize>) {
    let Some((low, size)) = own_stack() else {
        return;
    };
    let page = page_size();
    GUARD_LOW.store(low.saturating_sub(GUARD_ZONE), Ordering::Relaxed);
    GUARD_HIGH.store(low + page, Ordering::Relaxed);
    let Some(depth) = depth else { return };
    let Some(high) = (low + size).checked_sub(depth) else {
        return;
    };
    let trip_low = high.saturating_sub(GUARD_ZONE);
    if high % page != 0 || trip_low < low + page || !protect(trip_low, high, false) {
        return;
    }
    TRIP_LOW.store(trip_low, Ordering::Relaxed);
    TRIP_HIGH.store(high, Ordering::Release);
}

/// Makes [low, high) inaccessible (or accessible again, `open`).
fn protect(low: usize, high: usize, open: bool) -> bool {
    let access = if open {
        libc::PROT_READ | libc::PROT_WRITE
    } else {
        libc::PROT_NONE
    };
    // SAFETY: [low, high) is part of this thread's stack, below any frame
    // in use when it is closed; mprotect is async-signal-safe.
    unsafe { libc::mprotect(low as *mut libc::c_void, high - low, access) == 0 }
}

/// A test starts: the tripwire may let it go on.
pub fn begin_test() {
    IN_TEST.store(true, Ordering::Relaxed);
}

/// The test ended: closes the tripwire if it opened it.
pub fn end_test() {
    IN_TEST.store(false, Ordering::Relaxed);
    if TRIPPED.swap(false, Ordering::Relaxed) {
        let (low, high) = tripwire();
        if !protect(low, high, false) {
            // No tripwire from now on: overflows end the process again.
            TRIP_HIGH.store(0, Ordering::Relaxed);
        }
    }
}

fn tripwire() -> (usize, usize) {
    (
        TRIP_LOW.load(Ordering::Relaxed),
        TRIP_HIGH.load(Ordering::Acquire),
    )
}

/// What a SIGSEGV or SIGBUS at `address` means; opens the tripwire when the
/// running test reached it. Async-signal-safe.
pub fn on_fault(address: usize) -> Fault {
    let (low, high) = tripwire();
    if (low..high).contains(&address) {
        let opens = IN_TEST.load(Ordering::Relaxed) && TRIPWIRE_OPENS.load(Ordering::Relaxed);
        if opens && protect(low, high, true) {
            TRIPPED.store(true, Ordering::Relaxed);
            return Fault::Tripped;
        }
        return Fault::Overflow;
    }
    let guard = GUARD_LOW.load(Ordering::Relaxed)..GUARD_HIGH.load(Ordering::Relaxed);
    if guard.contains(&address) {
        Fault::Overflow
    } else {
        Fault::Other
    }
}

/// Called by the fork server when a test process died of a stack
/// overflow at `address`: if that was past the margin, the recursion was
/// unbounded, and every such test costs mapping twice the stack before it
/// dies. The processes forked from now on die at the tripwire instead, as
/// a thread of the limit's size would: bounded overflows then cost a
/// process again, unbounded ones no more than before the margin.
pub fn after_death(address: usize) {
    let guard = GUARD_LOW.load(Ordering::Relaxed)..GUARD_HIGH.load(Ordering::Relaxed);
    if guard.contains(&address) {
        TRIPWIRE_OPENS.store(false, Ordering::Relaxed);
    }
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(4096)
}
