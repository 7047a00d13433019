//! Byte-level fuzz target: decode every image of a TIFF file with tiff 0.7.0.
//!
//! Mirrors upstream's `fuzz/fuzz_targets/decode_image.rs` (added in 0.7.1 by the
//! fuzzing work of PRs #138-#141): open a `Decoder`, cap its memory limits at 1 MB,
//! then `read_image` / `next_image` until an error or the last image. TIFF is an
//! offset- and count-based container (IFD entries carry a type, a value count and an
//! offset; strips carry byte counts), so the raw bytes are the natural input; not typed.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::io::Cursor;
use tiff::decoder::{Decoder, Limits};

fuzz_target!(|data: &[u8]| {
    let decoder = match Decoder::new(Cursor::new(data)) {
        Ok(decoder) => decoder,
        Err(_) => return,
    };
    let mut limits = Limits::default();
    limits.decoding_buffer_size = 1_000_000;
    limits.ifd_value_size = 1_000_000;
    limits.intermediate_buffer_size = 1_000_000;
    let mut decoder = decoder.with_limits(limits);
    loop {
        if decoder.read_image().is_err() || !decoder.more_images() {
            break;
        }
        if decoder.next_image().is_err() {
            break;
        }
    }
});
