//! ttf-parser's form: `#[macro_use] extern crate afl;` and
//! `afl::fuzz!(|data: &[u8]| { … })`: panics on input starting `BAD`.
#[macro_use]
extern crate afl;

fn main() {
    afl::fuzz!(|data: &[u8]| {
        if data.starts_with(b"BAD") {
            panic!("bad glyph");
        }
    });
}
