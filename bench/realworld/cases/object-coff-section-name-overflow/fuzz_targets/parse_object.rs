//! Byte-level fuzz target for the `object` crate's unified reader (ELF, Mach-O,
//! PE/COFF, Wasm... chosen from the magic bytes; all are headers and tables
//! located by offsets and counts read from the file itself).
//!
//! object 0.26 has no in-tree fuzz target; this one does what its `objdump`
//! example does: parse the bytes with `object::File::parse`, then walk the
//! sections (name, data), symbols (name) and segments.  Not typed: the input
//! is the file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use object::{Object, ObjectSection, ObjectSegment, ObjectSymbol};

fuzz_target!(|data: &[u8]| {
    let Ok(file) = object::File::parse(data) else { return };
    for section in file.sections() {
        let _ = section.name();
        let _ = section.data();
        let _ = section.relocations().count();
    }
    for symbol in file.symbols() {
        let _ = symbol.name();
        let _ = symbol.section();
    }
    for segment in file.segments() {
        let _ = segment.name();
        let _ = segment.data();
    }
});
