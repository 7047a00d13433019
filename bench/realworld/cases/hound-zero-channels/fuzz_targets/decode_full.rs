//! Byte-level fuzz target: read a whole WAV file with hound 3.0.0.
//!
//! Mirrors upstream's `fuzz/fuzzers/decode_full.rs`: open the bytes with
//! `WavReader::new`, then read every sample (as `i32` for integer files, as `f32`
//! for float files) until the first error. WAV is a RIFF container of chunks with
//! 32-bit length fields plus a `fmt ` header of counts and sizes, so the raw bytes are
//! the natural input; not typed.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::io::Cursor;

fuzz_target!(|data: &[u8]| {
    let mut reader = match hound::WavReader::new(Cursor::new(data)) {
        Ok(reader) => reader,
        Err(_) => return,
    };
    match reader.spec().sample_format {
        hound::SampleFormat::Int => {
            for sample in reader.samples::<i32>() {
                if sample.is_err() {
                    return;
                }
            }
        }
        hound::SampleFormat::Float => {
            for sample in reader.samples::<f32>() {
                if sample.is_err() {
                    return;
                }
            }
        }
    }
});
