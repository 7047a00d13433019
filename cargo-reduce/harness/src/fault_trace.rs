//! Where a test was when it died of a signal, or when the parent was about
//! to kill it: the interrupted code's stack, noted for the parent to name
//! (see `trace`), so that two different segfaults, aborts or endless loops
//! in one target are two failures, not one.
//!
//! * SIGILL, SIGFPE and SIGABRT (a fault, Rust's abort paths, `abort()`)
//!   get a handler that notes the stack from the interrupted instruction
//!   (`NOTE_SIGNAL`), then dies of the signal as before; the SIGSEGV and
//!   SIGBUS handler (`capture`) does the same for faults that are not
//!   stack overflows, and notes an overflow's stack too.
//! * `STACK_SIGNAL`, which the parent sends before it kills a test that ran
//!   out of time or memory, gets a handler that notes the test thread's
//!   stack (`NOTE_STACK`) and returns.
//!
//! Everything here runs in signal handlers: no allocation, no lock.

use crate::protocol::{frames_text, FRAMES_TEXT_CAPACITY, NOTE_SIGNAL, NOTE_STACK, STACK_SIGNAL};
use crate::sys::{self, c_int, c_void};
use crate::trace::{self, Reach};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::OnceLock;

/// The thread tests run on (0 until it starts): a `STACK_SIGNAL` the
/// kernel hands to another thread of the process is passed on to it.
static TEST_THREAD: AtomicI32 = AtomicI32::new(0);

/// The fork running the current test (0: none, the test runs here): a
/// `STACK_SIGNAL` is passed on to it.
static TEST_FORK: AtomicI32 = AtomicI32::new(0);

type Handler = extern "C" fn(c_int, *mut sys::siginfo_t, *mut c_void);

/// How this module writes the test's note, and forgets a panic the target
/// caught: `capture`'s, handed to [`install`] so that the two modules do
/// not import each other. Read in signal handlers (`OnceLock::get` is an
/// atomic load).
struct Notes {
    note: fn(u32, u64, &[u8]),
    forget_caught_panic: fn(),
}

static NOTES: OnceLock<Notes> = OnceLock::new();

/// Installs the handlers of the fatal signals and of `STACK_SIGNAL`; notes
/// go through `note` (kind, argument, text), and `forget_caught_panic`
/// runs before a signal's note.
pub fn install(note: fn(u32, u64, &[u8]), forget_caught_panic: fn()) {
    let _ = NOTES.set(Notes {
        note,
        forget_caught_panic,
    });
    for signal in [sys::SIGILL, sys::SIGFPE, sys::SIGABRT] {
        set_handler(signal, on_fatal_signal);
    }
    set_handler(STACK_SIGNAL, on_stack_request);
}

/// Handles `signal` with `handler`, on the alternate stack. A system call
/// the signal interrupts goes on where it can (`SA_RESTART`): a test whose
/// stack the parent takes several times while it hangs must go on hanging,
/// not see `EINTR` and fail otherwise.
pub fn set_handler(signal: c_int, handler: Handler) {
    // SAFETY: a plain sigaction call with a handler that is async-signal-safe.
    unsafe {
        let mut action: sys::sigaction = std::mem::zeroed();
        action.sa_sigaction = handler as *const () as sys::sighandler_t;
        action.sa_flags = sys::SA_SIGINFO | sys::SA_ONSTACK | sys::SA_RESTART;
        sys::sigemptyset(&mut action.sa_mask);
        sys::sigaction(signal, &action, std::ptr::null_mut());
    }
}

/// The calling thread runs the tests (the test thread, or the only thread
/// of a process the fork server forked from it).
pub fn enter_test_thread() {
    TEST_THREAD.store(this_thread(), Ordering::Relaxed);
}

/// The current test runs in the fork `pid` (0: in this process again).
pub fn enter_test_fork(pid: i32) {
    TEST_FORK.store(pid, Ordering::Relaxed);
}

fn this_thread() -> i32 {
    // SAFETY: gettid has no preconditions.
    unsafe { sys::syscall(sys::SYS_gettid) as i32 }
}

/// The program counter of the code a signal interrupted, from the
/// handler's `ucontext_t` (its third argument); 0 where not known.
pub fn context_pc(ucontext: *mut c_void) -> usize {
    if ucontext.is_null() {
        return 0;
    }
    // SAFETY: the kernel passes a valid ucontext_t to an SA_SIGINFO handler.
    unsafe { sys::context_pc(ucontext) }
}

/// Notes `kind` with `arg` and the stack of the code interrupted at `pc`
/// (0: the caller's), as much of it as `reach` says, unless the test has a
/// note already.
pub fn note_stack(kind: u32, arg: u64, pc: usize, reach: Reach) {
    let frames = trace::capture_from(pc, reach);
    let mut text = [0u8; FRAMES_TEXT_CAPACITY];
    let len = frames_text(frames.as_slice(), &mut text);
    if let Some(notes) = NOTES.get() {
        (notes.note)(kind, arg, &text[..len]);
    }
}

/// Notes that the test dies of `signal`, with the interrupted stack: the
/// faulting instruction for a fault; for an abort, `raise` in the C
/// library, which the parent skips to the first frame of the user's code.
pub fn note_signal(signal: c_int, ucontext: *mut c_void) {
    if let Some(notes) = NOTES.get() {
        (notes.forget_caught_panic)();
    }
    note_stack(
        NOTE_SIGNAL,
        signal as u64,
        context_pc(ucontext),
        Reach::Whole,
    );
}

/// Dies of `signal` once the handler returns: with the default action
/// restored, the pending re-raised signal (or the re-executed faulting
/// instruction) kills the process.
pub fn die_of(signal: c_int) {
    // SAFETY: signal and raise are async-signal-safe.
    unsafe {
        sys::signal(signal, sys::SIG_DFL);
        sys::raise(signal);
    }
}

extern "C" fn on_fatal_signal(signal: c_int, _: *mut sys::siginfo_t, ucontext: *mut c_void) {
    note_signal(signal, ucontext);
    die_of(signal);
}

/// Notes the test thread's stack for the parent, which kills the test
/// next; on another thread, passes the signal on to the test thread, and
/// while the test runs in a fork, to the fork.
extern "C" fn on_stack_request(signal: c_int, _: *mut sys::siginfo_t, ucontext: *mut c_void) {
    // SAFETY: errno is thread-local; the interrupted code gets it back.
    let errno = unsafe { *sys::__errno_location() };
    let test = TEST_THREAD.load(Ordering::Relaxed);
    let fork = TEST_FORK.load(Ordering::Relaxed);
    if fork != 0 {
        // SAFETY: signals our own child; kill is async-signal-safe.
        unsafe { sys::kill(fork, signal) };
    } else if test != 0 && test != this_thread() {
        // SAFETY: signals a thread of this process; both calls are
        // async-signal-safe.
        unsafe { sys::syscall(sys::SYS_tgkill, sys::getpid(), test, signal) };
    } else {
        note_stack(NOTE_STACK, 0, context_pc(ucontext), Reach::Whole);
    }
    // SAFETY: see above.
    unsafe { *sys::__errno_location() = errno };
}
