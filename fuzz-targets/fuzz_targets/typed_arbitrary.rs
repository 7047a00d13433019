//! `typed_arbitrary`: a typed target; libFuzzer's bytes are turned into a
//! `Command` by `#[derive(Arbitrary)]`, and the command is run on a tiny stack
//! machine.
//!
//! PLANTED BUG: `Op::Scale` with `factor > 200` and `saturate == false` hits
//! an explicit `panic!("unsaturated scale by {factor} overflows the register")`
//! in `execute` (the message contains the factor, 201..=255).
//!
//! Minimal crashing input (arbitrary 1.5: integers are little-endian, a
//! field that runs out of bytes reads as zero/false, and an enum variant is
//! `(u32 * number_of_variants) >> 32`): `b"\x00\x00\x00\x00\x00\x9a\xc9"`,
//! 7 bytes: `id = 0` (2 bytes), variant `0x9a000000 * 5 >> 32 = 3` (`Scale`,
//! 4 bytes), `factor = 0xc9 = 201`, then `saturate = false` and `repeat = 0`
//! from the missing bytes. It panics with
//! `unsaturated scale by 201 overflows the register`.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

/// One operation of the stack machine.
#[derive(Arbitrary, Debug)]
enum Op {
    Nop,
    Push(u8),
    Pop,
    Scale { factor: u8, saturate: bool },
    Reset,
}

/// The fuzzer's input, decoded with `Arbitrary`.
#[derive(Arbitrary, Debug)]
struct Command {
    id: u16,
    op: Op,
    repeat: u8,
}

fn execute(cmd: &Command) -> u32 {
    let mut stack: Vec<u32> = vec![u32::from(cmd.id)];
    for _ in 0..=cmd.repeat.min(3) {
        match cmd.op {
            Op::Nop => {}
            Op::Push(v) => stack.push(u32::from(v)),
            Op::Pop => {
                stack.pop();
            }
            Op::Scale { factor, saturate } => {
                if factor > 200 && !saturate {
                    panic!("unsaturated scale by {factor} overflows the register");
                }
                if let Some(top) = stack.last_mut() {
                    *top = top.saturating_mul(u32::from(factor));
                }
            }
            Op::Reset => stack.clear(),
        }
    }
    stack.iter().copied().fold(0, u32::wrapping_add)
}

fuzz_target!(|cmd: Command| {
    std::hint::black_box(execute(&cmd));
});
