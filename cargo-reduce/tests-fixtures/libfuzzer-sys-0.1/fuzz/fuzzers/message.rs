//! rustls's form: `#[macro_use] extern crate libfuzzer_sys;` and
//! `fuzz_target!(|data: &[u8]| { … })`: panics on input starting `BAD`.
#![no_main]
#[macro_use]
extern crate libfuzzer_sys;

fuzz_target!(|data: &[u8]| {
    if data.starts_with(b"BAD") {
        panic!("bad message");
    }
});
