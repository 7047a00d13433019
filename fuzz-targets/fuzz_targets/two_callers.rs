//! `two_callers`: a settings parser whose one number helper is reached from
//! two callers, and whose panic message quotes the input.
//!
//! Format: lines of numbers; a line starting with `!` is a timeout (read by
//! `timeout`), any other a port (read by `port`). Both call `number`,
//! which panics with `expected a number, found "<value>"` on a value that
//! is not one.
//!
//! - The message quotes the value, so it changes with every smaller input:
//!   a reducer that compares messages cannot shrink `!abc` at all, while
//!   the smallest input that fails the same way is `!`.
//! - BUG A (through `timeout`) and BUG B (through `port`) panic at the same
//!   location with the same message pattern; only the call path tells them
//!   apart, and deleting the `!` of an input with bug A gives one with bug
//!   B.
#![no_main]

use libfuzzer_sys::fuzz_target;

fn number(value: &str) -> u64 {
    match value.trim().parse() {
        Ok(n) => n,
        Err(_) => panic!("expected a number, found {value:?}"),
    }
}

fn timeout(value: &str) -> u64 {
    number(value).saturating_mul(1000)
}

fn port(value: &str) -> u64 {
    number(value) % 65536
}

fn settings(text: &str) -> u64 {
    text.lines()
        .map(|line| match line.strip_prefix('!') {
            Some(value) => timeout(value),
            None => port(line),
        })
        .sum()
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        std::hint::black_box(settings(text));
    }
});
