//! Byte-level fuzz target: parse any object file with goblin 0.5.4.
//!
//! Mirrors upstream's `fuzz/fuzz_targets/parse.rs`: hand the bytes to
//! `goblin::Object::parse`, which sniffs the magic and parses an ELF, PE, Mach-O or
//! `ar` archive. The `ar` format is a sequence of member headers whose size fields
//! (decimal ASCII) and BSD `#1/<len>` name lengths say how many bytes follow, and the
//! other formats are offset/size tables too, so the raw bytes are the natural input;
//! not typed.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = goblin::Object::parse(data);
});
