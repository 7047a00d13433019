//! `abort`: a one-letter command interpreter.
//!
//! PLANTED BUG: an input that starts with the 3 bytes `b"ZAP"` reaches
//! `std::process::abort()` (SIGABRT; libFuzzer reports `deadly signal`), with
//! no panic message.
//!
//! Minimal crashing input: `b"ZAP"` (3 bytes).
#![no_main]

use libfuzzer_sys::fuzz_target;

fn interpret(data: &[u8]) -> u64 {
    if data.len() >= 3 && data[0] == b'Z' && data[1] == b'A' && data[2] == b'P' {
        // BUG: a "debug kill switch" left in the interpreter.
        std::process::abort();
    }
    let mut acc = 0u64;
    for &b in data {
        acc = match b {
            b'+' => acc.wrapping_add(1),
            b'-' => acc.wrapping_sub(1),
            b'*' => acc.wrapping_mul(2),
            b'Z' => 0,
            _ => acc,
        };
    }
    acc
}

fuzz_target!(|data: &[u8]| {
    std::hint::black_box(interpret(data));
});
