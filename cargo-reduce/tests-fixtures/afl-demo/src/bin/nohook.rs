//! `fuzz_nohook!`: a panic the target catches (input `C…`) is no crash; one
//! that escapes (an `E` anywhere) is. Under `fuzz!` both would be crashes.
fn main() {
    afl::fuzz_nohook!(|data: &[u8]| {
        if data.first() == Some(&b'C') {
            let caught = std::panic::catch_unwind(|| panic!("caught inside"));
            assert!(caught.is_err());
        }
        if data.contains(&b'E') {
            panic!("escaped");
        }
    });
}
