//! A target that does not compile.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _: u32 = data;
});
