//! The fork of a coverage test (`worker::test_in_fork`), one per input.
//!
//! The C library's `fork` runs the `pthread_atfork` handlers (its own: it
//! takes and re-initializes the `malloc` and stdio locks for a process
//! with other threads), and writes the pages they touch in both processes
//! while they share them, which a fork pays for in copied pages. The test
//! process has one thread, so `_Fork` (glibc 2.34, musl 1.2.3: the fork
//! without the handlers) is enough. It is looked up at run time, so that
//! an older C library, which has none, runs `fork`.

use crate::sys;
use std::sync::OnceLock;

type ForkFn = unsafe extern "C" fn() -> sys::pid_t;

static FORK: OnceLock<ForkFn> = OnceLock::new();

/// Looks `_Fork` up. Called on the main thread before the test thread
/// starts: `dlsym` keeps a buffer of its own on the heap of the thread that
/// first calls it, and the test thread's heap must be what it was (the
/// addresses a test's allocations get, and so its features, follow it).
pub(crate) fn resolve() {
    FORK.get_or_init(|| {
        // Not a C string literal (Rust 1.77): the user's toolchain builds this.
        #[allow(clippy::manual_c_str_literals)]
        let name = b"_Fork\0".as_ptr().cast();
        // SAFETY: looks a symbol up by its NUL-terminated name.
        let found = unsafe { sys::dlsym(sys::RTLD_DEFAULT, name) };
        match found.is_null() {
            true => sys::fork as ForkFn,
            // SAFETY: `_Fork` is `fork`'s type.
            false => unsafe { std::mem::transmute::<*mut sys::c_void, ForkFn>(found) },
        }
    });
}

/// Forks this process without the C library's fork handlers (`fork`
/// before [`resolve`]).
///
/// # Safety
///
/// As `fork`, in a process whose only thread is the caller.
pub(crate) unsafe fn single_threaded() -> sys::pid_t {
    let fork = FORK.get().copied().unwrap_or(sys::fork as ForkFn);
    // SAFETY: the caller's contract.
    unsafe { fork() }
}
