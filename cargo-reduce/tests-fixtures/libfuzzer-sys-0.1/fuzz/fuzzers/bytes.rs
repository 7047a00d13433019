//! libfuzzer-sys 0.1's `|data| { … }` form: panics on input ending `END`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data| {
    if data.ends_with(b"END") {
        panic!("bad end");
    }
});
