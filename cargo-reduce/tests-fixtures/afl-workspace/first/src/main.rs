//! An afl.rs target of the first package.
fn main() {
    afl::fuzz!(|data: &[u8]| common::check(data, b"ONE"));
}
