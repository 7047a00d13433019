//! `stack_overflow`: a recursive parser of nested lists (`[1,[2]]`).
//!
//! BUG: no depth limit. Each level takes a 256 KiB frame (a scratch
//! buffer), so about 32 nested `[` overflow the 8 MiB main-thread stack: the
//! process dies of SIGSEGV after Rust's "has overflowed its stack" message
//! (afl.rs's binaries run the target on the main thread). Minimal input: a
//! run of `[` just long enough; numbers, commas and `]` are not needed.

/// A parsed value.
enum Value {
    Number(u64),
    List(Vec<Value>),
}

fn parse_value(data: &[u8], pos: &mut usize) -> Option<Value> {
    let mut scratch = [0u8; 256 * 1024];
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

fn main() {
    afl::fuzz!(|data: &[u8]| {
        let mut pos = 0;
        if let Some(v) = parse_value(data, &mut pos) {
            std::hint::black_box(weight(&v));
        }
    });
}
