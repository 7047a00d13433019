//! A target compiled only with the `libfuzzer` feature.
#![cfg_attr(feature = "libfuzzer", no_main)]

#[cfg(feature = "libfuzzer")]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if data.windows(3).any(|w| w == b"BUG") {
        panic!("found the bug");
    }
});

#[cfg(not(feature = "libfuzzer"))]
compile_error!("build with `--features libfuzzer`");
