//! An example that is an afl.rs target: panics on `X`.
fn main() {
    afl::fuzz!(|data: &[u8]| {
        if data == b"X" {
            panic!("example");
        }
    });
}
