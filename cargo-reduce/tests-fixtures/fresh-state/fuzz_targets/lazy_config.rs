#![no_main]
//! A setting read once, from a variable the user has not set: its
//! initializer panics on the first input that starts with `L`. Under
//! libFuzzer that ends the process; a process that went on would see the
//! static poisoned on the next such input, and fail differently.
use libfuzzer_sys::fuzz_target;
use std::sync::LazyLock;

static VERBOSE: LazyLock<bool> =
    LazyLock::new(|| std::env::var("FRESH_STATE_DEMO_VERBOSE").unwrap() == "1");

fuzz_target!(|data: &[u8]| {
    if data.first() == Some(&b'L') && *VERBOSE {
        println!("{data:?}");
    }
});
