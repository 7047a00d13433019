//! libfuzzer-sys 0.3's typed form, with arbitrary 0.4's `Arbitrary` (no
//! lifetime) as `libfuzzer_sys::arbitrary` re-exports it: panics on red.
//! The size hint of 3 makes libfuzzer-sys 0.3.1 and later reject shorter
//! inputs, which 0.3.0 decodes (zero-padded).
#![no_main]
use libfuzzer_sys::arbitrary::{Arbitrary, Result, Unstructured};
use libfuzzer_sys::fuzz_target;

#[derive(Debug)]
pub struct Rgb {
    r: u8,
    g: u8,
    b: u8,
}

impl Arbitrary for Rgb {
    fn arbitrary(u: &mut Unstructured<'_>) -> Result<Self> {
        let mut buf = [0; 3];
        u.fill_buffer(&mut buf)?;
        Ok(Rgb {
            r: buf[0],
            g: buf[1],
            b: buf[2],
        })
    }

    fn size_hint(_depth: usize) -> (usize, Option<usize>) {
        (3, Some(3))
    }
}

fuzz_target!(|color: Rgb| {
    if color.r == 0xff && color.g == 0 {
        panic!("red: {:?}", color);
    }
});
