#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.windows(3).any(|w| w == b"BUG") {
        panic!("found BUG");
    }
});
