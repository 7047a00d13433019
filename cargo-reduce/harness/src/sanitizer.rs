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

/// Installs the report callback (nothing without AddressSanitizer): each
/// report goes to `note`.
#[cfg_attr(not(cargo_reduce_asan), allow(unused_variables))]
pub fn install(note: fn(&[u8])) {
    #[cfg(cargo_reduce_asan)]
    asan::install(note);
}

#[cfg(cargo_reduce_asan)]
mod asan {
    use std::os::raw::c_char;
    use std::sync::OnceLock;

    extern "C" {
        /// In the ASan runtime that `-Zsanitizer=address` links in.
        fn __asan_set_error_report_callback(callback: Option<extern "C" fn(*const c_char)>);
    }

    /// Where reports go.
    static NOTE: OnceLock<fn(&[u8])> = OnceLock::new();

    pub fn install(note: fn(&[u8])) {
        let _ = NOTE.set(note);
        // SAFETY: registers a callback that only copies the report.
        unsafe { __asan_set_error_report_callback(Some(on_report)) };
    }

    extern "C" fn on_report(report: *const c_char) {
        if let (false, Some(note)) = (report.is_null(), NOTE.get()) {
            // SAFETY: ASan passes its NUL-terminated report buffer.
            let text = unsafe { std::ffi::CStr::from_ptr(report) };
            note(text.to_bytes());
        }
    }
}
