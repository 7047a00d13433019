//! AddressSanitizer in the stand-in (built with `-Zsanitizer=address
//! --cfg cargo_reduce_asan` when an artifact needs it): its report becomes
//! the test's note, so the parent reads the bug type, the access and the
//! stack of a test process that died of it, as it reads a panic's.
//!
//! ASan calls the callback with the whole report just before it ends the
//! process (`abort_on_error=1`, set by the parent with the rest of
//! `ASAN_OPTIONS`), so the note is in shared memory before the death. The
//! report's frames are `(binary+offset)` (`symbolize=0`): the parent names
//! them from the binary's debug information, as it does a panic's.

/// Installs the report callback (nothing without AddressSanitizer).
pub fn install() {
    #[cfg(cargo_reduce_asan)]
    asan::install();
}

#[cfg(cargo_reduce_asan)]
mod asan {
    use std::os::raw::c_char;

    extern "C" {
        /// In the ASan runtime that `-Zsanitizer=address` links in.
        fn __asan_set_error_report_callback(callback: Option<extern "C" fn(*const c_char)>);
    }

    pub fn install() {
        // SAFETY: registers a callback that only copies the report.
        unsafe { __asan_set_error_report_callback(Some(on_report)) };
    }

    extern "C" fn on_report(report: *const c_char) {
        if report.is_null() {
            return;
        }
        // SAFETY: ASan passes its NUL-terminated report buffer.
        let text = unsafe { std::ffi::CStr::from_ptr(report) };
        crate::capture::note_sanitizer_report(text.to_bytes());
    }
}
