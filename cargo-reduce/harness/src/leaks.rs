//! Memory leaks found in-process, as libFuzzer's `-detect_leaks=1` finds
//! them on its AddressSanitizer build: the allocator's hooks count each
//! test's mallocs and frees, and after a test that freed less than it
//! allocated, LeakSanitizer looks for memory nothing points to any more
//! (`__lsan_do_recoverable_leak_check`). Its report, written to this
//! process's stderr, becomes the test's note (`NOTE_SANITIZER`), which the
//! parent reads as it reads an ASan report.
//!
//! Only in the ASan build (`cfg(cargo_reduce_asan)`), and only when the
//! parent asks (`CARGO_REDUCE_DETECT_LEAKS=1`, with LeakSanitizer's own
//! `detect_leaks=1` and allocation stacks in `ASAN_OPTIONS`): it costs a
//! stack trace per allocation. As libFuzzer does, a test with more mallocs
//! than frees runs a second time, its allocations hidden from
//! LeakSanitizer, before the check: LeakSanitizer scans the stack and the
//! registers for pointers, and the first run's last pointers to its leaked
//! memory are still there right after it (the check then misses the leak);
//! the second run overwrites them, and a test that freed all it allocated
//! the second time (a one-time allocation, such as a lazy static's) is not
//! checked at all.

/// Whether the parent asked for leak detection (always `false` without
/// AddressSanitizer).
pub fn enabled() -> bool {
    imp::enabled()
}

/// Installs the allocator hooks when leaks are to be detected.
pub fn install() {
    imp::install();
}

/// Runs `init` (the target's init code), whose allocations are never
/// reported as leaked: the check after a test looks for the test's leaks,
/// and an allocation made once before any test is not one of them.
pub fn hidden<T>(init: impl FnOnce() -> T) -> T {
    imp::hide(true);
    let result = init();
    imp::hide(false);
    result
}

/// A test starts: count its mallocs and frees.
pub fn begin_test() {
    imp::begin_test();
}

/// The test that [`begin_test`] started passed: LeakSanitizer's report if
/// it leaked memory, written into the test's note. `rerun` runs the test
/// again.
// Off the test's stack: see the worker's module note.
#[inline(never)]
pub fn leaked(rerun: &mut dyn FnMut()) -> Option<crate::protocol::Note> {
    let report = imp::leak_report(rerun)?;
    // No stack of the stand-in's: the report has the leaked blocks'.
    let text = crate::protocol::panic_text("", &String::from_utf8_lossy(&report), &[]);
    crate::capture::note(crate::protocol::NOTE_SANITIZER, 0, &text);
    Some(crate::protocol::Note {
        kind: crate::protocol::NOTE_SANITIZER,
        arg: 0,
        text,
    })
}

#[cfg(not(cargo_reduce_asan))]
mod imp {
    pub fn enabled() -> bool {
        false
    }
    pub fn install() {}
    pub fn hide(_: bool) {}
    pub fn begin_test() {}
    pub fn leak_report(_: &mut dyn FnMut()) -> Option<Vec<u8>> {
        None
    }
}

#[cfg(cargo_reduce_asan)]
mod imp {
    use std::os::raw::{c_int, c_void};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    extern "C" {
        /// In the sanitizer runtimes (`sanitizer/allocator_interface.h`).
        fn __sanitizer_install_malloc_and_free_hooks(
            malloc_hook: Option<extern "C" fn(*const c_void, usize)>,
            free_hook: Option<extern "C" fn(*const c_void)>,
        ) -> c_int;
        /// `sanitizer/lsan_interface.h`: nonzero when leaks were found.
        fn __lsan_do_recoverable_leak_check() -> c_int;
        /// Allocations of this thread until `__lsan_enable` are not leaks.
        fn __lsan_disable();
        fn __lsan_enable();
    }

    /// The parent's request.
    static ENABLED: AtomicBool = AtomicBool::new(false);
    /// Whether a test runs (the hooks count only then).
    static COUNTING: AtomicBool = AtomicBool::new(false);
    static MALLOCS: AtomicUsize = AtomicUsize::new(0);
    static FREES: AtomicUsize = AtomicUsize::new(0);

    pub fn enabled() -> bool {
        ENABLED.load(Ordering::Relaxed)
    }

    pub fn install() {
        if std::env::var_os("CARGO_REDUCE_DETECT_LEAKS").is_some_and(|v| v == "1") {
            // SAFETY: registers hooks that only count.
            let installed = unsafe {
                __sanitizer_install_malloc_and_free_hooks(Some(on_malloc), Some(on_free))
            };
            ENABLED.store(installed != 0, Ordering::Relaxed);
        }
    }

    pub fn hide(hidden: bool) {
        if enabled() {
            // SAFETY: plain calls into the LeakSanitizer runtime, paired by
            // `super::hidden`.
            match hidden {
                true => unsafe { __lsan_disable() },
                false => unsafe { __lsan_enable() },
            }
        }
    }

    extern "C" fn on_malloc(_: *const c_void, _: usize) {
        if COUNTING.load(Ordering::Relaxed) {
            MALLOCS.fetch_add(1, Ordering::Relaxed);
        }
    }

    extern "C" fn on_free(_: *const c_void) {
        if COUNTING.load(Ordering::Relaxed) {
            FREES.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Stops counting: whether the test allocated more than it freed.
    fn more_mallocs_than_frees() -> bool {
        COUNTING.store(false, Ordering::Release);
        MALLOCS.load(Ordering::Acquire) > FREES.load(Ordering::Acquire)
    }

    pub fn begin_test() {
        if enabled() {
            MALLOCS.store(0, Ordering::Relaxed);
            FREES.store(0, Ordering::Relaxed);
            COUNTING.store(true, Ordering::Release);
        }
    }

    pub fn leak_report(rerun: &mut dyn FnMut()) -> Option<Vec<u8>> {
        if !enabled() || !more_mallocs_than_frees() {
            return None;
        }
        begin_test();
        hide(true);
        rerun();
        hide(false);
        if !more_mallocs_than_frees() {
            return None;
        }
        let stderr = Stderr::now();
        // SAFETY: a plain call into the LeakSanitizer runtime.
        let found = unsafe { __lsan_do_recoverable_leak_check() } != 0;
        found.then(|| stderr.since())
    }

    /// This process's stderr from a point on: LeakSanitizer writes its
    /// report there. The pool's workers write to a regular file (which
    /// the parent reads after deaths); elsewhere the report is not kept
    /// and only its first line stands for it.
    struct Stderr {
        from: Option<u64>,
    }

    /// Stands for a report that could not be read back.
    const UNREAD: &[u8] = b"ERROR: LeakSanitizer: detected memory leaks\n";

    /// At most this much of a report is kept (the note's own cap is lower).
    const MAX_REPORT: usize = 1 << 16;

    impl Stderr {
        fn now() -> Stderr {
            Stderr {
                from: with_stderr(|file| file.metadata().ok().map(|m| m.len())),
            }
        }

        fn since(self) -> Vec<u8> {
            use std::os::unix::fs::FileExt;
            let read = |file: &std::fs::File| {
                let from = self.from?;
                let mut report = vec![0u8; MAX_REPORT];
                let len = file.read_at(&mut report, from).ok()?;
                report.truncate(len);
                Some(report).filter(|r| r.windows(13).any(|w| w == b"LeakSanitizer"))
            };
            with_stderr(read).unwrap_or_else(|| UNREAD.to_vec())
        }
    }

    /// `f` of fd 2 as a file, which stays open.
    fn with_stderr<T>(f: impl FnOnce(&std::fs::File) -> Option<T>) -> Option<T> {
        use std::os::unix::io::FromRawFd;
        // SAFETY: fd 2 is open for the process's life; ManuallyDrop keeps
        // it open after this borrow.
        let file = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(2) });
        f(&file)
    }
}
