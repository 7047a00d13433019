//! `byte_parser`: a type-length-value record parser, fuzzed with
//! `fuzz!(|data: &[u8]| …)`.
//!
//! Format: `RX`, a version byte (1), then records of a tag byte, a length
//! byte and that many value bytes.
//!
//! BUG: a record whose length runs past the end of the input slices out of
//! bounds: `range end index N out of range for slice of length M`, with N
//! and M taken from the input, so the message changes as the input
//! shrinks. Minimal input: `RX\x01\x00\x01` (5 bytes): one record whose
//! length 1 runs past the end.
use afl::fuzz;

/// One decoded record.
struct Record<'a> {
    tag: u8,
    value: &'a [u8],
}

fn parse(data: &[u8]) -> Option<Vec<Record<'_>>> {
    // Byte by byte, so that AFL's edge coverage climbs to the header.
    if data.first() != Some(&b'R') || data.get(1) != Some(&b'X') || data.get(2) != Some(&1) {
        return None;
    }
    let mut rest = &data[3..];
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

fn main() {
    fuzz!(|data: &[u8]| {
        if let Some(records) = parse(data) {
            let total: usize = records
                .iter()
                .map(|r| usize::from(r.tag) + r.value.len())
                .sum();
            std::hint::black_box(total);
        }
    });
}
