//! A heap-buffer-overflow READ of 4 bytes: a record's word count comes
//! from the input and is trusted one word too far. Uninstrumented, the read
//! past the vector lands in the allocator's slack and returns garbage.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// Sums the first `count` words of `words`, trusting `count`.
#[inline(never)]
fn sum_words(words: &[u32], count: usize) -> u32 {
    let mut sum = 0u32;
    for i in 0..count {
        // The planted bug: `count` may exceed `words.len()` by one.
        sum = sum.wrapping_add(unsafe { *words.as_ptr().add(i) });
    }
    sum
}

/// A record: `S`, a word count, then little-endian words.
#[inline(never)]
fn checksum(record: &[u8]) -> u32 {
    let [b'S', count, body @ ..] = record else {
        return 0;
    };
    let words: Vec<u32> = body
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let count = usize::from(*count);
    if count > words.len() + 1 {
        return 0;
    }
    sum_words(&words, count)
}

fuzz_target!(|data: &[u8]| {
    let mut total = 0u32;
    for record in data.split(|&b| b == b'\n') {
        total = total.wrapping_add(checksum(record));
    }
    std::hint::black_box(total);
});
