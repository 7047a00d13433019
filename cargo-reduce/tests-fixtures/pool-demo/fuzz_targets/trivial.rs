#![no_main]
// Next to nothing per input: measures the pool's own cost per test.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data == b"FAIL" {
        panic!("trivial failure");
    }
});
