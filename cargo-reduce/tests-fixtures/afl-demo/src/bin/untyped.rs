//! `#[macro_use] extern crate afl;` and `fuzz!(|data| …)` without a type:
//! aborts on `AB`.
#[macro_use]
extern crate afl;

fn main() {
    fuzz!(|data| {
        if data.starts_with(b"AB") {
            std::process::abort();
        }
    });
}
