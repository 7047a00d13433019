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
//! * A SIGSEGV/SIGBUS handler on an alternate stack notes stack overflows
//!   (faults in the guard zone of the test thread's stack, or next to the
//!   stack pointer of any thread), then lets the signal kill the process as
//!   usual; a test that reaches the tripwire at the stack limit goes on
//!   instead (see [`crate::stack`]). Other faults go on to the handler
//!   installed before ours, if any.
//! * A global allocator wrapping the system one enforces libFuzzer's
//!   `-malloc_limit_mb` during tests: a single allocation of the limit or more aborts with a
//!   note (build with `--cfg cargo_reduce_system_alloc` for targets that bring
//!   their own `#[global_allocator]`). Under AddressSanitizer ASan's
//!   allocator sees the allocation first, as libFuzzer's malloc hook runs
//!   after it: a size it refuses is its report, as on `cargo fuzz`'s binary.

use crate::altstack;
use crate::fault_trace;
use crate::protocol::{
    frames_text, panic_text, read_note, write_note_parts, Note, WorkerArea, FRAMES_TEXT_CAPACITY,
    NOTE_ALLOC_FAILED, NOTE_MALLOC_LIMIT, NOTE_NONE, NOTE_PANIC, NOTE_SANITIZER, NOTE_SIGNAL,
    NOTE_STACK_OVERFLOW, PANIC_ENDS_TEST, WORKER_AREA_SIZE,
};
use crate::stack::{self, Fault};
use crate::sys;
use crate::trace::{self, Reach};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicUsize, Ordering};

/// The SIGSEGV and SIGBUS handlers installed before ours (`SIG_DFL` if
/// none), and whether each takes `SA_SIGINFO` arguments: faults that are
/// not overflows go on to them.
static PREVIOUS_HANDLER: [AtomicUsize; 2] = [AtomicUsize::new(0), AtomicUsize::new(0)];
static PREVIOUS_SIGINFO: [AtomicBool; 2] = [AtomicBool::new(false), AtomicBool::new(false)];

/// This worker's area in shared memory (or a private one when standalone).
static AREA: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
/// Largest single allocation allowed right now.
static MALLOC_LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);
/// Whether a panic replaces an earlier one of the same test.
static KEEP_LAST_PANIC: AtomicBool = AtomicBool::new(false);

/// Starts recording into `area` (a `WORKER_AREA_SIZE` bytes worker area, or
/// null for a private one): installs the panic hook and fault handlers.
pub fn install(area: *mut u8) {
    let area = if area.is_null() {
        Box::leak(vec![0u8; WORKER_AREA_SIZE].into_boxed_slice()).as_mut_ptr()
    } else {
        area
    };
    AREA.store(area, Ordering::Release);
    altstack::keep_linked();
    trace::init();
    crate::sanitizer::install(note_sanitizer_report);
    fault_trace::install(note, forget_caught_panic);
    set_hook(None);
    for signal in [sys::SIGSEGV, sys::SIGBUS] {
        let ours = on_fault as *const () as sys::sighandler_t;
        // SAFETY: plain sigaction calls with a handler that is async-signal-safe.
        let previous = unsafe {
            let mut action: sys::sigaction = std::mem::zeroed();
            let mut previous: sys::sigaction = std::mem::zeroed();
            action.sa_sigaction = ours;
            action.sa_flags = sys::SA_SIGINFO | sys::SA_ONSTACK;
            sys::sigemptyset(&mut action.sa_mask);
            (sys::sigaction(signal, &action, &mut previous) == 0).then_some(previous)
        };
        if let Some(previous) = previous.filter(|p| p.sa_sigaction != ours) {
            let i = signal_index(signal);
            let siginfo = previous.sa_flags & sys::SA_SIGINFO != 0;
            PREVIOUS_SIGINFO[i].store(siginfo, Ordering::Relaxed);
            PREVIOUS_HANDLER[i].store(previous.sa_sigaction, Ordering::Release);
        }
    }
}

fn signal_index(signal: sys::c_int) -> usize {
    usize::from(signal == sys::SIGBUS)
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
    forget_caught_panic();
    forget_handled_alloc_failure();
    let ends_test = if KEEP_LAST_PANIC.load(Ordering::Relaxed) {
        0
    } else {
        PANIC_ENDS_TEST
    };
    note(
        NOTE_PANIC,
        ends_test,
        &panic_text(&location, &message, &trace::capture()),
    );
}

/// Under `fuzz_nohook!`, forgets the test's earlier panic: it was caught,
/// and what comes now (a panic that may escape, a stack overflow) decides.
/// Async-signal-safe.
pub(crate) fn forget_caught_panic() {
    if KEEP_LAST_PANIC.load(Ordering::Relaxed) {
        let _ = note_kind().compare_exchange(
            NOTE_PANIC,
            NOTE_NONE,
            Ordering::AcqRel,
            Ordering::Relaxed,
        );
    }
}

/// Notes AddressSanitizer's `report` of the running test, which is about
/// to die of it (a panic the target caught under `fuzz_nohook!` gives way,
/// and so does the note of a fault the handler passed on to ASan's: the
/// report is ASan's account of that fault).
fn note_sanitizer_report(report: &[u8]) {
    forget_caught_panic();
    let _ =
        note_kind().compare_exchange(NOTE_SIGNAL, NOTE_NONE, Ordering::AcqRel, Ordering::Relaxed);
    // The stack as ASan reports, ahead of the report (`panic_text`'s form):
    // the report's own stack of an allocation ASan refused is `malloc`
    // alone (`malloc_context_size=0`).
    let frames = trace::capture_from(0, Reach::Whole);
    let mut head = [0u8; FRAMES_TEXT_CAPACITY];
    let len = frames_text(frames.as_slice(), &mut head);
    note_parts(NOTE_SANITIZER, 0, &[&head[..len], report]);
}

/// Forgets an allocation failure noted earlier in the test: the target
/// handled it (`try_reserve`), since it goes on, and what comes now (a
/// panic, an overflow, the malloc limit) decides. Only an allocation
/// failure that ends the process (Rust aborts on one it does not handle)
/// is out of memory. Async-signal-safe.
fn forget_handled_alloc_failure() {
    if !area().is_null() {
        let _ = note_kind().compare_exchange(
            NOTE_ALLOC_FAILED,
            NOTE_NONE,
            Ordering::AcqRel,
            Ordering::Relaxed,
        );
    }
}

/// Makes each panic of a test replace the one before (for targets where
/// only the panic that escapes counts), or keep the first (`false`).
pub fn keep_last_panic(last: bool) {
    KEEP_LAST_PANIC.store(last, Ordering::Relaxed);
}

fn area() -> *mut u8 {
    AREA.load(Ordering::Acquire)
}

/// Notes why the test failed, unless it has a note already.
/// Async-signal-safe.
pub(crate) fn note(kind: u32, arg: u64, text: &[u8]) {
    note_parts(kind, arg, &[text]);
}

/// [`note`] of the concatenation of `parts`. Async-signal-safe.
fn note_parts(kind: u32, arg: u64, parts: &[&[u8]]) {
    let area = area();
    if !area.is_null() {
        // SAFETY: `area` is a mapped worker area (see `install`).
        unsafe { write_note_parts(area, kind, arg, parts) };
    }
}

/// Prepares the calling thread to run tests: an alternate signal stack for
/// the fault handler (an overflow leaves none on the thread's own).
pub fn enter_test_thread() {
    altstack::ensure();
    fault_trace::enter_test_thread();
}

extern "C" fn on_fault(signal: sys::c_int, info: *mut sys::siginfo_t, context: *mut sys::c_void) {
    // SAFETY: the kernel passes a valid siginfo and context to an
    // SA_SIGINFO handler.
    let (code, address, sp) = unsafe {
        let info = &*info;
        (
            info.si_code,
            info.si_addr() as usize,
            sys::context_sp(context),
        )
    };
    // Only the kernel's reports of a fault (si_code > 0) have an address.
    let fault = if code > 0 {
        stack::on_fault(signal, address, sp)
    } else {
        Fault::Other
    };
    if let Fault::Tripped(depth) | Fault::Overflow(depth) = fault {
        note_overflow(depth, fault_trace::context_pc(context));
    }
    match fault {
        Fault::Tripped(_) => {} // The faulting access is retried, now in the open tripwire.
        Fault::Overflow(_) => fault_trace::die_of(signal),
        Fault::Other => {
            fault_trace::note_signal(signal, context);
            // SAFETY: the arguments the kernel passed us.
            unsafe { chain(signal, info, context) }
        }
    }
}

/// Hands a fault that is not an overflow to the handler installed before
/// ours (a sanitizer's, std's, the target's C library's), or dies of it.
///
/// # Safety
/// The arguments must be those of a running SA_SIGINFO handler.
unsafe fn chain(signal: sys::c_int, info: *mut sys::siginfo_t, context: *mut sys::c_void) {
    let i = signal_index(signal);
    let handler = PREVIOUS_HANDLER[i].load(Ordering::Acquire);
    if handler == sys::SIG_DFL || handler == sys::SIG_IGN {
        return fault_trace::die_of(signal); // A fault cannot be ignored.
    }
    // SAFETY: `install` read `handler` from sigaction with its flags.
    unsafe {
        if PREVIOUS_SIGINFO[i].load(Ordering::Relaxed) {
            type Action = extern "C" fn(sys::c_int, *mut sys::siginfo_t, *mut sys::c_void);
            std::mem::transmute::<sys::sighandler_t, Action>(handler)(signal, info, context);
        } else {
            type Handler = extern "C" fn(sys::c_int);
            std::mem::transmute::<sys::sighandler_t, Handler>(handler)(signal);
        }
    }
}

/// Notes a stack overflow (unless the test failed otherwise first) with
/// the stack of the recursion, from the faulting instruction at `pc` of
/// its first fault, and how far past the limit its deepest fault was
/// (`depth`, one of `OVERFLOW_*`): a fault in the last guard tells the fork
/// server that the recursion was unbounded. Async-signal-safe.
fn note_overflow(depth: u64, pc: usize) {
    // A deeper fault of the same overflow only raises the depth: its stack
    // would not be noted, so it is not walked.
    if note_kind().load(Ordering::Acquire) != NOTE_STACK_OVERFLOW {
        forget_caught_panic();
        forget_handled_alloc_failure();
        fault_trace::note_stack(NOTE_STACK_OVERFLOW, depth, pc, Reach::Top);
    }
    if note_kind().load(Ordering::Acquire) == NOTE_STACK_OVERFLOW {
        // SAFETY: the area starts with a `WorkerArea` and is never unmapped.
        let status = unsafe { &*(area() as *const WorkerArea) };
        status.note_arg.fetch_max(depth, Ordering::AcqRel);
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

/// Forgets the note of the previous test; a test starts.
pub fn begin_test() {
    note_kind().store(NOTE_NONE, Ordering::Relaxed);
    hold_hook();
    stack::begin_test();
}

/// How far past the limit the last test overflowed its stack, if it did
/// (`OVERFLOW_*`): the note a test process that died left for the fork
/// server.
pub fn overflow_depth() -> Option<u64> {
    if note_kind().load(Ordering::Acquire) != NOTE_STACK_OVERFLOW {
        return None;
    }
    // SAFETY: `area()` is a mapped worker area.
    unsafe { read_note(area()) }.map(|note| note.arg)
}

/// The test ended: its note, if it panicked or overflowed its stack (and
/// lived on past the tripwire).
pub fn end_test() -> Option<Note> {
    stack::end_test();
    let kind = note_kind().load(Ordering::Acquire);
    if kind != NOTE_PANIC && kind != NOTE_STACK_OVERFLOW {
        return None;
    }
    // SAFETY: `area()` is a mapped worker area.
    unsafe { read_note(area()) }
}

#[cfg(not(any(cargo_reduce_system_alloc, cargo_reduce_companion)))]
#[global_allocator]
static ALLOCATOR: LimitedAlloc = LimitedAlloc;

/// The system allocator with libFuzzer's malloc limit.
#[cfg_attr(cargo_reduce_system_alloc, allow(dead_code))]
struct LimitedAlloc;

impl LimitedAlloc {
    #[inline]
    fn check(size: usize) {
        // libFuzzer's `(Size >> 20) >= MallocLimitMb`: an allocation of
        // exactly the limit is over it.
        if size >= MALLOC_LIMIT.load(Ordering::Relaxed) {
            forget_handled_alloc_failure();
            // With the call path of the allocation.
            fault_trace::note_stack(NOTE_MALLOC_LIMIT, size as u64, 0, Reach::Whole);
            // SAFETY: abort has no preconditions.
            unsafe { sys::abort() };
        }
    }

    /// The block `allocate` gives for `size` bytes, under the malloc limit:
    /// checked before it uninstrumented, after it under AddressSanitizer
    /// (whose allocator reports a size it refuses: allocation-size-too-big,
    /// out-of-memory).
    #[inline]
    fn limited(size: usize, allocate: impl FnOnce() -> *mut u8) -> *mut u8 {
        if !cfg!(cargo_reduce_asan) {
            Self::check(size);
        }
        let ptr = Self::checked(allocate(), size);
        if cfg!(cargo_reduce_asan) && !ptr.is_null() {
            Self::check(size);
        }
        ptr
    }

    #[inline]
    fn checked(ptr: *mut u8, size: usize) -> *mut u8 {
        if ptr.is_null() {
            // Rust aborts on an allocation failure the code does not
            // handle: say why first (the latest failure's size), with the
            // call path of the allocation.
            forget_handled_alloc_failure();
            fault_trace::note_stack(NOTE_ALLOC_FAILED, size as u64, 0, Reach::Whole);
        }
        ptr
    }
}

// SAFETY: forwards to the system allocator unchanged.
unsafe impl std::alloc::GlobalAlloc for LimitedAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        Self::limited(layout.size(), || unsafe {
            std::alloc::System.alloc(layout)
        })
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        Self::limited(layout.size(), || unsafe {
            std::alloc::System.alloc_zeroed(layout)
        })
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        Self::limited(new_size, || unsafe {
            std::alloc::System.realloc(ptr, layout, new_size)
        })
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
}
