//! Built only with the `gated` feature: panics on `G`.
fn main() {
    afl::fuzz!(|data: &[u8]| {
        if data == b"G" {
            panic!("gated");
        }
    });
}
