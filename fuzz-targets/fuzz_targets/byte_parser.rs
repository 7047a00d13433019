//! `byte_parser`: a tiny TLV ("tag, length, value") container parser.
//!
//! Format: the magic `b"RX"`, a version byte that must be `1`, then records
//! `tag: u8, len: u8, value: [u8; len]` up to the end of the input.
//!
//! PLANTED BUG: the record loop trusts the length byte and never checks that
//! `len` bytes remain, so a record whose length is larger than the rest of the
//! input slices out of bounds and panics with
//! `range end index {2 + len} out of range for slice of length {remaining}`
//! at the `&rest[2..2 + len]` line in `parse`.
//!
//! Minimal crashing input: `b"RX\x01\x00\x01"` (magic, version 1, tag 0,
//! length 1, no value byte): 5 bytes, panics with
//! `range end index 3 out of range for slice of length 2`.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// One decoded record.
struct Record<'a> {
    tag: u8,
    value: &'a [u8],
}

fn parse(data: &[u8]) -> Option<Vec<Record<'_>>> {
    let rest = data.strip_prefix(b"RX")?;
    let (&version, mut rest) = rest.split_first()?;
    if version != 1 {
        return None;
    }
    let mut records = Vec::new();
    while !rest.is_empty() {
        let tag = rest[0];
        let len = *rest.get(1)? as usize;
        // BUG: no `if rest.len() < 2 + len { return None; }` here.
        let value = &rest[2..2 + len];
        records.push(Record { tag, value });
        rest = &rest[2 + len..];
    }
    Some(records)
}

fuzz_target!(|data: &[u8]| {
    if let Some(records) = parse(data) {
        let total: usize = records
            .iter()
            .map(|r| usize::from(r.tag) + r.value.len())
            .sum();
        std::hint::black_box(total);
    }
});
