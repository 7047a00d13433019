//! A target that panics on inputs holding `BUG`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if data.windows(3).any(|w| w == b"BUG") {
        panic!("found the bug");
    }
});
