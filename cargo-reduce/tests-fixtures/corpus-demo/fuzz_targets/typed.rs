#![no_main]
// A typed input: decoding its `Vec` draws a length from the data.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: (u8, Vec<u8>)| {
    if data.0 > 128 && data.1.len() > 2 {
        std::hint::black_box(data.1.iter().map(|&b| u32::from(b)).sum::<u32>());
    }
});
