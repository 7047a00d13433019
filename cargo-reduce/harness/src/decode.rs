//! The hooks both stand-ins' macros (libfuzzer-sys's `fuzz_target!`,
//! afl's `fuzz!`) call when cargo-reduce asks to see a typed input rather
//! than run it: the debug path (`RUST_LIBFUZZER_DEBUG_PATH`, as `cargo fuzz
//! fmt` sets it), and the recording of what decoding the input drew, when
//! `arbitrary` is cargo-reduce's instrumented copy
//! (`--cfg cargo_reduce_trace`). Each stand-in re-exports them under the
//! names its macros call.

use std::sync::OnceLock;

/// `RUST_LIBFUZZER_DEBUG_PATH`, read once: when set, targets write the
/// `Debug` form of their input there instead of running.
pub fn debug_path() -> &'static Option<String> {
    static PATH: OnceLock<Option<String>> = OnceLock::new();
    PATH.get_or_init(|| std::env::var("RUST_LIBFUZZER_DEBUG_PATH").ok())
}

/// Starts recording what decoding `bytes` draws, when the decoding is
/// only being shown and `arbitrary` is the instrumented copy.
pub fn decode_begin(bytes: &[u8]) {
    #[cfg(cargo_reduce_trace)]
    if debug_path().is_some() {
        arbitrary::__cargo_reduce::begin(bytes);
    }
    let _ = bytes;
}

/// Stops the recording and writes the draws beside the debug output, to
/// `<RUST_LIBFUZZER_DEBUG_PATH>.draws`, for cargo-reduce's typed reduction.
pub fn decode_end() {
    #[cfg(cargo_reduce_trace)]
    if let (Some(path), Some(draws)) = (debug_path(), arbitrary::__cargo_reduce::finish()) {
        std::fs::write(format!("{path}.draws"), draws)
            .expect("failed to write the draws beside `RUST_LIBFUZZER_DEBUG_PATH`");
    }
}
