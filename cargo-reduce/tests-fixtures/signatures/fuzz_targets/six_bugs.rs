#![no_main]
//! A record reader with six bugs (see `bugs.rs`).
use libfuzzer_sys::fuzz_target;

#[path = "../bugs.rs"]
mod bugs;

fuzz_target!(|data: &[u8]| bugs::run(data));
