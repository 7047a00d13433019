#![no_main]
//! A setting fixed by the first input a process runs (as targets that
//! configure a global from their first input do): an input starting with
//! `F` fails when it is the first. `cargo fuzz run` runs an artifact in a
//! process of its own, so there it fails whatever ran before it elsewhere.
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

static MODE: OnceLock<u8> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let mode = *MODE.get_or_init(|| data.first().copied().unwrap_or(0));
    if mode == b'F' && data.first() == Some(&b'F') {
        panic!("strict mode rejects F");
    }
});
