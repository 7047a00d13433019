fn main() {
    afl::fuzz!(|data: &[u8]| {
        if data.windows(4).any(|w| w == b"bang") {
            panic!("bang in the afl.rs target");
        }
    });
}
