//! Byte-level fuzz target: parse a `.debug_aranges` section with gimli 0.21.0.
//!
//! Mirrors upstream's `fuzz/fuzz_targets/debug_aranges.rs` (added with the CI fuzz
//! targets of gimli PR #512): treat the bytes as a little-endian `.debug_aranges`
//! section and pull every address range. The section is a sequence of sets, each with
//! an initial length field, a version, a `.debug_info` offset, address and segment
//! sizes, padding and fixed-size tuples, so the raw bytes are the natural input;
//! not typed.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let aranges = gimli::DebugAranges::new(data, gimli::LittleEndian);
    let mut items = aranges.items();
    while let Ok(Some(_entry)) = items.next() {}
});
