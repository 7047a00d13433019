#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.windows(4).any(|w| w == b"boom") {
        panic!("boom in the libFuzzer target");
    }
});
