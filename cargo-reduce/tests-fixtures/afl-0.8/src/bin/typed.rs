//! afl.rs 0.8: `fuzz!` over an arbitrary 0.4 type (decoded from a `RingBuffer`): panics when both fields are above 100.
#[macro_use]
extern crate afl;
use arbitrary::Arbitrary;
#[derive(Arbitrary, Debug)]
struct Pair {
    a: u8,
    b: u8,
}
fn main() {
    fuzz!(|p: Pair| {
        if p.a > 100 && p.b > 100 {
            panic!("both big: {}", p.a);
        }
    });
}
