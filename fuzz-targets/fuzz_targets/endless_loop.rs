//! `endless_loop`: counts the chunks of a chunked stream.
//!
//! Format: the magic `b"LP"`, then chunks; each chunk starts with a length
//! byte giving the chunk's size in bytes, the length byte included.
//!
//! PLANTED BUG: a chunk length byte of `0` is not rejected, so the cursor
//! never advances and `count_chunks` loops forever. libFuzzer reports it as
//! `ERROR: libFuzzer: timeout after N seconds` and writes `timeout-*` when run
//! with `-timeout=1` (the default timeout is 1200 s).
//!
//! Minimal hanging input: `b"LP\x00"` (3 bytes).
#![no_main]

use libfuzzer_sys::fuzz_target;

fn count_chunks(data: &[u8]) -> u64 {
    let Some(body) = data.strip_prefix(b"LP") else {
        return 0;
    };
    let mut pos = 0usize;
    let mut chunks = 0u64;
    while pos < body.len() {
        // BUG: `step == 0` leaves `pos` where it is.
        let step = usize::from(std::hint::black_box(body[pos]));
        pos += step;
        chunks = chunks.wrapping_add(1);
    }
    chunks
}

fuzz_target!(|data: &[u8]| {
    std::hint::black_box(count_chunks(data));
});
