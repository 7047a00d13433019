//! Panics on input that starts with `BAD`.

/// Under `cfg(fuzzing)`, items of both fuzz engines' crates (rav1e's
/// `fuzzing` module uses libfuzzer-sys's `arbitrary` alike).
#[cfg(fuzzing)]
pub mod fuzzing {
    pub use afl::fuzz as afl_fuzz;
    use libfuzzer_sys::arbitrary::{Arbitrary, Result, Unstructured};

    /// A byte string.
    #[derive(Debug)]
    pub struct Input(pub Vec<u8>);

    impl<'a> Arbitrary<'a> for Input {
        fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
            Ok(Input(u.arbitrary()?))
        }
    }
}

/// Panics on `BAD…`.
pub fn check(data: &[u8]) {
    if data.starts_with(b"BAD") {
        panic!("bad input");
    }
}
