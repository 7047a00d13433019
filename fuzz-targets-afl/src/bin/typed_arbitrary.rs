//! `typed_arbitrary`: a stack machine whose input is an `Arbitrary` type,
//! fuzzed with `fuzz!(|cmd: Command| …)`: afl.rs decodes it with
//! `Arbitrary::arbitrary` on an `Unstructured` (lengths from the end, as
//! libfuzzer-sys, but no `take_rest` for the last field).
//!
//! BUG: `Scale` with a factor above 200 and no saturation panics with
//! `unsaturated scale by {factor} overflows the register`, the message
//! quoting a decoded value. The smallest failing value: `Command { id: 0,
//! op: Scale { factor: 201, saturate: false }, repeat: 0 }`.
use arbitrary::Arbitrary;

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

fn main() {
    afl::fuzz!(|cmd: Command| {
        std::hint::black_box(execute(&cmd));
    });
}
