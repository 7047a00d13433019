//! Byte-level fuzz target: decode a whole FLAC stream with claxon 0.3.0.
//!
//! Mirrors upstream's `fuzz/fuzzers/decode_full.rs`: open the bytes with
//! `FlacReader::new`, then pull every sample until the first error. FLAC is a
//! length-prefixed container (metadata blocks carry 24-bit lengths, frames carry
//! block sizes and bit depths), so the raw bytes are the natural input; not typed.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::io::Cursor;

fuzz_target!(|data: &[u8]| {
    let mut reader = match claxon::FlacReader::new(Cursor::new(data)) {
        Ok(reader) => reader,
        Err(_) => return,
    };
    for sample in reader.samples() {
        if sample.is_err() {
            return;
        }
    }
});
