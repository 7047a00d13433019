//! `nohook`: a config reader that recovers from its own panics, fuzzed with
//! `fuzz_nohook!`: only a panic that escapes the closure is a crash.
//!
//! - A value starting with `C` makes a helper panic, which the reader
//!   catches (`catch_unwind`) and treats as a bad value: no crash under
//!   `fuzz_nohook!` (under `fuzz!`, whose hook aborts on every panic, it
//!   would be one).
//! - BUG: a line starting with `ESC` panics outside the `catch_unwind`
//!   (`escaped config line`): a crash. Minimal input: `ESC`.

fn helper(value: &[u8]) -> u8 {
    if value.first() == Some(&b'C') {
        panic!("bad value");
    }
    value.iter().fold(0, |a, b| a ^ b)
}

fn read(data: &[u8]) -> u32 {
    let mut sum = 0u32;
    for line in data.split(|&b| b == b'\n') {
        if line.first() == Some(&b'E') && line.get(1) == Some(&b'S') && line.get(2) == Some(&b'C') {
            panic!("escaped config line");
        }
        let value = line.to_vec();
        if let Ok(v) = std::panic::catch_unwind(|| helper(&value)) {
            sum += u32::from(v);
        }
    }
    sum
}

fn main() {
    afl::fuzz_nohook!(|data: &[u8]| {
        std::hint::black_box(read(data));
    });
}
