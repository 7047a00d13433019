#![no_main]
// Custom mutator and cross-over: they must compile; reduction never calls them.
use libfuzzer_sys::{fuzz_crossover, fuzz_mutator, fuzz_target, fuzzer_mutate};

fuzz_target!(|data: &[u8]| {
    if data == b"mut" {
        panic!("mutated");
    }
});

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, _seed: u32| {
    fuzzer_mutate(data, size, max_size)
});

fuzz_crossover!(|data1: &[u8], data2: &[u8], out: &mut [u8], _seed: u32| {
    let n = out.len().min(data1.len() + data2.len());
    for (o, b) in out.iter_mut().zip(data1.iter().chain(data2)) {
        *o = *b;
    }
    n
});
