//! `fuzz!` with a panic the target catches (input `C…`): with afl.rs's
//! hook it is a crash all the same.
fn main() {
    afl::fuzz!(|data: &[u8]| {
        if data.first() == Some(&b'C') {
            let caught = std::panic::catch_unwind(|| panic!("caught inside"));
            assert!(caught.is_err());
        }
    });
}
