#![no_main]
// A typed target that never fails, with a draw of every kind: strings and
// byte strings (lengths read from the back), collections ("one more"
// flags), enum tags with payloads, an `Option`, integers, a `char`, and a
// last field that takes the rest. The property tests of the typed
// reduction's encoder decode random inputs with it.
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
pub enum Shape {
    Empty,
    Named(String),
    Pair(u16, bool),
    Blob(Vec<u8>),
}

#[derive(Arbitrary, Debug)]
pub struct Doc {
    title: String,
    tags: Vec<String>,
    shapes: Vec<Shape>,
    size: Option<u32>,
    letter: char,
    raw: Vec<u8>,
    weights: Vec<u16>,
    rest: String,
}

fuzz_target!(|doc: Doc| {
    let _ = doc;
});
