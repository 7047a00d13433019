//! An afl.rs target, built only with the `afl` feature (the optional `afl`
//! dependency).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        if data.ends_with(b"AFL") {
            panic!("afl_bytes found AFL at the end");
        }
    });
}
