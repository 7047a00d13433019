//! `fuzz!(|cmd: Command| …)`: decoded with `Arbitrary::arbitrary`, as
//! afl.rs does; panics when a `Scale` overflows.
use arbitrary::Arbitrary;

#[derive(Arbitrary, Debug)]
enum Op {
    Add(u8),
    Scale { factor: u8 },
}

#[derive(Arbitrary, Debug)]
struct Command {
    name: String,
    ops: Vec<Op>,
}

fn main() {
    afl::fuzz!(|cmd: Command| {
        let mut value: u8 = 1;
        for op in &cmd.ops {
            match op {
                Op::Add(n) => value = value.wrapping_add(*n),
                Op::Scale { factor } => {
                    if *factor > 100 && !cmd.name.is_empty() {
                        panic!("scale by {factor} overflows");
                    }
                    value = value.wrapping_mul(*factor);
                }
            }
        }
        std::hint::black_box(value);
    });
}
