//! Records why a test failed in the worker's shared-memory area, including
//! when the failure kills the process: the parent reads the note after the
//! death and attributes it to the test that was running.
//!
//! * A panic hook stores the first panic's location, message and call path
//!   (and prints nothing). A target that installs a hook of its own gets it
//!   run after ours ([`hold_hook`], before each test). Any panic fails the test, even one the target catches itself,
//!   because libfuzzer-sys's and afl.rs's hooks abort on every panic. Under
//!   afl.rs's `fuzz_nohook!` only an escaping panic fails, so the hook keeps
//!   the last one instead ([`keep_last_panic`]).
//! * A SIGSEGV/SIGBUS handler on an alternate stack notes faults in the guard
//!   zone of the test thread's stack as stack overflows, then lets the signal
//!   kill the process as usual.
//! * A global allocator wrapping the system one enforces libFuzzer's
//!   `-malloc_limit_mb` during tests: a larger single allocation aborts with a
//!   note (build with `--cfg cargo_reduce_system_alloc` for targets that bring
//!   their own `#[global_allocator]`).

use crate::protocol::{
    panic_text, read_note, write_note, WorkerArea, NOTE_ALLOC_FAILED, NOTE_BUSY, NOTE_MALLOC_LIMIT,
    NOTE_NONE, NOTE_PANIC, NOTE_STACK_OVERFLOW, WORKER_AREA_SIZE,
};
use crate::trace;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicUsize, Ordering};

/// This worker's area in shared memory (or a private one when standalone).
static AREA: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
/// Largest single allocation allowed right now.
static MALLOC_LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);
/// Whether a panic replaces an earlier one of the same test.
static KEEP_LAST_PANIC: AtomicBool = AtomicBool::new(false);
/// Faults at addresses in [GUARD_LOW, GUARD_HIGH) are stack overflows.
static GUARD_LOW: AtomicUsize = AtomicUsize::new(0);
static GUARD_HIGH: AtomicUsize = AtomicUsize::new(0);

/// How far below the lowest stack address a fault still counts as overflow.
const GUARD_ZONE: usize = 1 << 20;
/// Size of the alternate signal stack of the test thread.
const ALT_STACK_SIZE: usize = 64 * 1024;

/// Starts recording into `area` (a `WORKER_AREA_SIZE` bytes worker area, or
/// null for a private one): installs the panic hook and fault handlers.
pub fn install(area: *mut u8) {
    let area = if area.is_null() {
        Box::leak(vec![0u8; WORKER_AREA_SIZE].into_boxed_slice()).as_mut_ptr()
    } else {
        area
    };
    AREA.store(area, Ordering::Release);
    trace::init();
    set_hook(None);
    for signal in [libc::SIGSEGV, libc::SIGBUS] {
        // SAFETY: a plain sigaction call with a handler that is async-signal-safe.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_fault as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// `PanicHookInfo` by the name every Rust version has (it was renamed in
/// 1.81; the old name is a deprecated alias), so the stand-in builds with
/// the user's toolchain, whatever it is.
#[allow(deprecated)]
type HookInfo<'a> = std::panic::PanicInfo<'a>;
type Hook = Box<dyn Fn(&HookInfo<'_>) + Sync + Send + 'static>;

/// The address of the hook installed last, to tell it from one the target
/// installs itself.
static OUR_HOOK: AtomicUsize = AtomicUsize::new(0);

/// Installs the recording hook; `previous` (the target's own hook) runs
/// after it.
fn set_hook(previous: Option<Hook>) {
    let hook: Hook = Box::new(move |info| {
        record_panic(info);
        if let Some(previous) = &previous {
            previous(info);
        }
    });
    OUR_HOOK.store(hook_address(&hook), Ordering::Relaxed);
    std::panic::set_hook(hook);
}

fn hook_address(hook: &Hook) -> usize {
    &**hook as *const (dyn Fn(&HookInfo<'_>) + Sync + Send) as *const () as usize
}

/// Puts the recording hook back in front if the target replaced it with
/// its own (in its init code, or an earlier input): the target's hook runs
/// after it, so what it prints and does (an abort) stays, and the panic is
/// still recorded with its location, message and call path.
fn hold_hook() {
    let current = std::panic::take_hook();
    if hook_address(&current) == OUR_HOOK.load(Ordering::Relaxed) {
        std::panic::set_hook(current);
    } else {
        set_hook(Some(current));
    }
}

fn record_panic(info: &HookInfo<'_>) {
    let location = info
        .location()
        .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
        .unwrap_or_default();
    let payload = info.payload();
    let message = match payload.downcast_ref::<&str>() {
        Some(s) => s.to_string(),
        None => match payload.downcast_ref::<String>() {
            Some(s) => s.clone(),
            None => "Box<dyn Any>".to_string(),
        },
    };
    if KEEP_LAST_PANIC.load(Ordering::Relaxed) {
        // An earlier panic of this test was caught: this one may escape.
        let _ = note_kind().compare_exchange(
            NOTE_PANIC,
            NOTE_NONE,
            Ordering::AcqRel,
            Ordering::Relaxed,
        );
    }
    note(
        NOTE_PANIC,
        0,
        &panic_text(&location, &message, &trace::capture()),
    );
}

/// Makes each panic of a test replace the one before (for targets where
/// only the panic that escapes counts), or keep the first (`false`).
pub fn keep_last_panic(last: bool) {
    KEEP_LAST_PANIC.store(last, Ordering::Relaxed);
}

fn area() -> *mut u8 {
    AREA.load(Ordering::Acquire)
}

fn note(kind: u32, arg: u64, text: &[u8]) {
    let area = area();
    if !area.is_null() {
        // SAFETY: `area` is a mapped worker area (see `install`).
        unsafe { write_note(area, kind, arg, text) };
    }
}

/// Prepares the calling thread to run tests: an alternate signal stack for
/// the fault handler and the bounds of its stack's guard zone.
pub fn enter_test_thread() {
    // SAFETY: plain libc calls on this thread's own attributes; the alternate
    // stack is leaked so it lives as long as the thread.
    unsafe {
        let stack = Box::leak(vec![0u8; ALT_STACK_SIZE].into_boxed_slice());
        let alt = libc::stack_t {
            ss_sp: stack.as_mut_ptr().cast(),
            ss_flags: 0,
            ss_size: stack.len(),
        };
        libc::sigaltstack(&alt, std::ptr::null_mut());

        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) == 0 {
            let mut low: *mut libc::c_void = std::ptr::null_mut();
            let mut size: libc::size_t = 0;
            if libc::pthread_attr_getstack(&attr, &mut low, &mut size) == 0 {
                let low = low as usize;
                GUARD_LOW.store(low.saturating_sub(GUARD_ZONE), Ordering::Relaxed);
                GUARD_HIGH.store(low + page_size(), Ordering::Relaxed);
            }
            libc::pthread_attr_destroy(&mut attr);
        }
    }
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(4096)
}

extern "C" fn on_fault(signal: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
    let address = unsafe { (*info).si_addr() } as usize;
    let low = GUARD_LOW.load(Ordering::Relaxed);
    let high = GUARD_HIGH.load(Ordering::Relaxed);
    if (low..high).contains(&address) {
        note(NOTE_STACK_OVERFLOW, address as u64, b"");
    }
    // Die of the same signal: with the default action restored, the pending
    // re-raised signal (or the re-executed faulting instruction) kills us.
    // SAFETY: signal and raise are async-signal-safe.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

/// Enables the malloc limit (bytes; 0 for none) for the tests that follow.
pub fn arm(malloc_limit: u64) {
    let limit = match usize::try_from(malloc_limit) {
        Ok(0) | Err(_) => usize::MAX,
        Ok(limit) => limit,
    };
    MALLOC_LIMIT.store(limit, Ordering::Relaxed);
}

/// Disables the malloc limit (between rounds the worker is not testing).
pub fn disarm() {
    MALLOC_LIMIT.store(usize::MAX, Ordering::Relaxed);
}

fn note_kind() -> &'static AtomicU32 {
    // SAFETY: the area starts with a `WorkerArea` and is never unmapped.
    unsafe { &(*(area() as *const WorkerArea)).note_kind }
}

/// Forgets the note of the previous test.
pub fn begin_test() {
    note_kind().store(NOTE_NONE, Ordering::Relaxed);
    hold_hook();
}

/// The `panic_text` of the current test's first panic, if it panicked.
pub fn take_panic() -> Option<Vec<u8>> {
    let kind = note_kind().load(Ordering::Acquire);
    if kind == NOTE_NONE || kind == NOTE_BUSY {
        return None;
    }
    // SAFETY: `area()` is a mapped worker area.
    let note = unsafe { read_note(area()) }?;
    (note.kind == NOTE_PANIC).then_some(note.text)
}

#[cfg(not(cargo_reduce_system_alloc))]
#[global_allocator]
static ALLOCATOR: LimitedAlloc = LimitedAlloc;

/// The system allocator with libFuzzer's malloc limit.
#[cfg_attr(cargo_reduce_system_alloc, allow(dead_code))]
struct LimitedAlloc;

impl LimitedAlloc {
    #[inline]
    fn check(size: usize) {
        if size > MALLOC_LIMIT.load(Ordering::Relaxed) {
            note(NOTE_MALLOC_LIMIT, size as u64, b"");
            // SAFETY: abort has no preconditions.
            unsafe { libc::abort() };
        }
    }

    #[inline]
    fn checked(ptr: *mut u8, size: usize) -> *mut u8 {
        if ptr.is_null() {
            // Rust aborts on allocation failure: say why first.
            note(NOTE_ALLOC_FAILED, size as u64, b"");
        }
        ptr
    }
}

// SAFETY: forwards to the system allocator unchanged.
unsafe impl std::alloc::GlobalAlloc for LimitedAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        Self::check(layout.size());
        Self::checked(unsafe { std::alloc::System.alloc(layout) }, layout.size())
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        Self::check(layout.size());
        let ptr = unsafe { std::alloc::System.alloc_zeroed(layout) };
        Self::checked(ptr, layout.size())
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        Self::check(new_size);
        let ptr = unsafe { std::alloc::System.realloc(ptr, layout, new_size) };
        Self::checked(ptr, new_size)
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
}
