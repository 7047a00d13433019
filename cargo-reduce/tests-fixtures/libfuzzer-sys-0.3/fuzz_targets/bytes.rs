//! libfuzzer-sys 0.3's `|data| { … }` form: panics on input starting `BAD`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data| {
    if data.starts_with(b"BAD") {
        panic!("bad bytes");
    }
});
