//! A libFuzzer target that only builds with the `strict` feature.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[cfg(not(feature = "strict"))]
compile_error!("lf_strict needs the `strict` feature");

fuzz_target!(|data: &[u8]| {
    if data.first() == Some(&b'S') && data.contains(&b'!') {
        panic!("lf_strict rejects a shout");
    }
});
