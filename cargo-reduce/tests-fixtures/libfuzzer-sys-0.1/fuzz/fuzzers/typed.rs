//! libfuzzer-sys 0.1's typed form: arbitrary 0.2's `Arbitrary` (generic
//! over an `Unstructured` trait), decoded from a `RingBuffer` over the
//! whole input, and no `Debug` needed: panics on red.
#![no_main]
use libfuzzer_sys::arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;

pub struct Rgb {
    r: u8,
    g: u8,
}

impl Arbitrary for Rgb {
    fn arbitrary<U>(raw: &mut U) -> Result<Self, U::Error>
    where
        U: Unstructured + ?Sized,
    {
        let mut buf = [0; 2];
        raw.fill_buffer(&mut buf)?;
        Ok(Rgb {
            r: buf[0],
            g: buf[1],
        })
    }
}

fuzz_target!(|color: Rgb| {
    if color.r == 0xff && color.g == 0 {
        panic!("red");
    }
});
