//! xmlparser's form (afl.rs 0.5, edition 2015): `extern crate afl;` and
//! `use afl::fuzz;`: panics on input that is `<x>` in UTF-8.
extern crate afl;

use std::str;

use afl::fuzz;

fn main() {
    fuzz!(|data: &[u8]| {
        if let Ok(text) = str::from_utf8(data) {
            if text.contains("<x>") {
                panic!("x tag");
            }
        }
    });
}
