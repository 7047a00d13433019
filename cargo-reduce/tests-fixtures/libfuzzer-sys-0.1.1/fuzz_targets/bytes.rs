//! libfuzzer-sys 0.1's `|data: &[u8]|` form: panics on input that contains `BUG`.
#![no_main]
#[macro_use]
extern crate libfuzzer_sys;

fuzz_target!(|data: &[u8]| {
    if data.windows(3).any(|w| w == b"BUG") {
        panic!("bug");
    }
});
