//! Byte-level fuzz target: decode a JPEG with jpeg-decoder 0.1.11.
//!
//! Mirrors the decode harness upstream later added under `fuzz/` (the bug itself was
//! found with rust-fuzz/targets' `image/read_jpeg.rs`, issue #69): build a `Decoder`
//! over the bytes and call `decode`. JPEG is a sequence of marker segments, each with a 16-bit
//! length field (DQT, DHT, SOF, SOS, ...), so the raw bytes are the natural input;
//! not typed. Built without the default `rayon` feature.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut decoder = jpeg_decoder::Decoder::new(data);
    let _ = decoder.decode();
});
