// `never_type` is unstable: this target builds only on a nightly toolchain.
#![feature(never_type)]
#![no_main]
use libfuzzer_sys::fuzz_target;

/// Never returns normally: the `!` type needs the feature.
fn fail(what: &str) -> ! {
    panic!("featured: found {what}")
}

fuzz_target!(|data: &[u8]| {
    if data.windows(3).any(|w| w == b"BUG") {
        let never: ! = fail("BUG");
        never
    }
});
