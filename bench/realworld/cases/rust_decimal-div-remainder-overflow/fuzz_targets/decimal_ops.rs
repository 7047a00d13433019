//! Typed fuzz target for `rust_decimal` checked arithmetic.
//!
//! Mirrors upstream `fuzz/fuzz_targets/arithmetic.rs` (rust_decimal 1.14.x), which
//! derives `Arbitrary` for a struct holding two `Decimal`s and calls `checked_add`
//! and `checked_div` on them.  Here the operands are built from their raw parts
//! (`Decimal::from_parts`) and the input is a *sequence* of checked operations
//! applied to an accumulator, so the input is a structured value (a start number
//! plus a `Vec` of `(enum, struct)` steps) rather than a flat byte string.
//! Checked operations must never panic: they return `None` on overflow.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use rust_decimal::Decimal;

#[derive(Arbitrary, Debug, Clone, Copy)]
struct Num {
    lo: u32,
    mid: u32,
    hi: u32,
    negative: bool,
    scale: u8,
}

impl Num {
    fn to_decimal(self) -> Decimal {
        Decimal::from_parts(self.lo, self.mid, self.hi, self.negative, u32::from(self.scale) % 29)
    }
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Op {
    Add,
    Sub,
    Div,
    Rem,
}

#[derive(Arbitrary, Debug)]
struct Input {
    start: Num,
    steps: Vec<(Op, Num)>,
}

fuzz_target!(|input: Input| {
    let mut acc = input.start.to_decimal();
    for (op, n) in input.steps {
        let rhs = n.to_decimal();
        let next = match op {
            Op::Add => acc.checked_add(rhs),
            Op::Sub => acc.checked_sub(rhs),
            Op::Div => acc.checked_div(rhs),
            Op::Rem => acc.checked_rem(rhs),
        };
        if let Some(v) = next {
            acc = v;
        }
    }
});
