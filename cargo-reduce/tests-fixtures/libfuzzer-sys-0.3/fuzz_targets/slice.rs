//! libfuzzer-sys 0.3's `|data: &[u8]| { … }` form: panics on input ending
//! `END`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.ends_with(b"END") {
        panic!("bad end");
    }
});
