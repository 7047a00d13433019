//! `stack_overflow`: a recursive-descent parser of nested lists such as
//! `[1,[2,3],[]]`.
//!
//! PLANTED BUG: `parse_value` recurses once per `[` with no depth limit, and
//! each level keeps a 4 KiB scratch buffer on the stack, so deeply nested
//! input overflows the stack. With an 8 MiB stack (`ulimit -s 8192`) that
//! takes 1,969 nested `[` in the `-s none` build and 1,843 in the
//! AddressSanitizer build (cargo-fuzz 0.13.2, rustc 1.95.0 / nightly
//! 2026-05-19); the exact number depends on the stack limit and the build.
//!
//! How it fails: with `-s none` the process dies of SIGSEGV, and libFuzzer
//! prints nothing about it and writes no artifact (it has no alternate signal
//! stack to run its handler on); with `-s address` (nightly) ASan reports
//! `ERROR: AddressSanitizer: stack-overflow` in `parse_value`.
//!
//! Minimal crashing input: `[` repeated N times, N = the threshold above
//! (unclosed brackets are fine: the recursion happens before the parser
//! notices the missing `]`).
#![no_main]

use libfuzzer_sys::fuzz_target;

/// A parsed value.
enum Value {
    Number(u64),
    List(Vec<Value>),
}

fn parse_value(data: &[u8], pos: &mut usize) -> Option<Value> {
    // A large per-level frame (e.g. a token buffer) that makes each level of
    // recursion cost ~4 KiB of stack.
    let mut scratch = [0u8; 4096];
    std::hint::black_box(&mut scratch);
    match *data.get(*pos)? {
        b'[' => {
            *pos += 1;
            let mut items = Vec::new();
            loop {
                match *data.get(*pos)? {
                    b']' => {
                        *pos += 1;
                        break;
                    }
                    b',' => *pos += 1,
                    // BUG: no depth limit.
                    _ => items.push(parse_value(data, pos)?),
                }
            }
            scratch[0] = items.len() as u8;
            std::hint::black_box(&scratch);
            Some(Value::List(items))
        }
        b'0'..=b'9' => {
            let mut n = 0u64;
            while let Some(&d @ b'0'..=b'9') = data.get(*pos) {
                n = n.wrapping_mul(10).wrapping_add(u64::from(d - b'0'));
                *pos += 1;
            }
            Some(Value::Number(n))
        }
        _ => None,
    }
}

fn weight(v: &Value) -> u64 {
    match v {
        Value::Number(n) => *n,
        Value::List(items) => items.iter().map(weight).fold(1, u64::wrapping_add),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut pos = 0;
    if let Some(v) = parse_value(data, &mut pos) {
        std::hint::black_box(weight(&v));
    }
});
