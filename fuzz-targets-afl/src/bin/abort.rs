//! `abort`: a tiny stack-machine interpreter with a kill switch, fuzzed with
//! `#[macro_use] extern crate afl;` and `fuzz!`.
//!
//! BUG: an input starting with `ZAP` calls `std::process::abort()`: a
//! SIGABRT with no panic message. Minimal input: `ZAP`.
#[macro_use]
extern crate afl;

fn interpret(data: &[u8]) -> u64 {
    if data.first() == Some(&b'Z') && data.get(1) == Some(&b'A') && data.get(2) == Some(&b'P') {
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

fn main() {
    fuzz!(|data: &[u8]| {
        std::hint::black_box(interpret(data));
    });
}
