//! afl.rs 0.5–0.7's `fuzz_nohook!`: a panic the closure catches is no
//! crash; one that escapes it (input ending `END`) is.
#[macro_use]
extern crate afl;

fn main() {
    fuzz_nohook!(|data: &[u8]| {
        let _ = std::panic::catch_unwind(|| {
            if data.starts_with(b"CAUGHT") {
                panic!("caught");
            }
        });
        if data.ends_with(b"END") {
            panic!("bad end");
        }
    });
}
