//! An allocation sized by the input: a table header's entry count,
//! trusted. `cargo fuzz run` tells two bugs of this one line apart: a count
//! from 2^19 asks for 2 GiB or more, over libFuzzer's malloc limit
//! (`oom-`); one from 2^28 asks for more than ASan's allocator ever gives
//! (1 TiB: allocation-size-too-big, a `crash-`). Uninstrumented, both run
//! out of memory at the same line.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// The table a header `T<count: u32 LE>` declares, 4 KiB per entry.
#[inline(never)]
fn table(header: &[u8]) -> Option<Vec<u8>> {
    let [b'T', a, b, c, d, ..] = *header else {
        return None;
    };
    let count = u32::from_le_bytes([a, b, c, d]) as usize;
    Some(Vec::with_capacity(count << 12))
}

fuzz_target!(|data: &[u8]| {
    std::hint::black_box(table(data));
});
