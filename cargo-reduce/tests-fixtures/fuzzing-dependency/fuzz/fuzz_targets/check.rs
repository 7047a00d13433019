#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzzing_dependency::check(data));
