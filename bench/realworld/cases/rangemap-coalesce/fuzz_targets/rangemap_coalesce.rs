//! Typed fuzz target: a sequence of insert/remove operations on a `rangemap::RangeMap`
//! (rangemap 0.1.8), then a check that the map is fully coalesced.
//!
//! Mirrors upstream's `fuzz/fuzz_targets/rangemap_coalesce.rs` (PR #25, which found
//! issue #24): apply arbitrary operations with small `u8` bounds and values, then
//! panic if two stored ranges touch (`end == next.start`) and carry the same value,
//! which the map promises never to leave behind. It is typed because the input is a
//! program of map operations, built directly by `Arbitrary` (a `Vec` of an enum with
//! integer fields); the failure is this invariant check, as upstream.
#![no_main]
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use rangemap::RangeMap;

#[derive(Arbitrary, Debug)]
enum Op {
    Insert { start: u8, end: u8, value: u8 },
    Remove { start: u8, end: u8 },
}

#[derive(Arbitrary, Debug)]
struct Input {
    ops: Vec<Op>,
}

fuzz_target!(|input: Input| {
    let mut map: RangeMap<u8, u8> = RangeMap::new();
    for op in input.ops {
        match op {
            Op::Insert { start, end, value } if start < end => map.insert(start..end, value),
            Op::Remove { start, end } if start < end => map.remove(start..end),
            _ => {}
        }
    }
    let entries: Vec<_> = map.iter().collect();
    for pair in entries.windows(2) {
        let ((range, value), (next_range, next_value)) = (pair[0], pair[1]);
        assert!(
            !(range.end == next_range.start && value == next_value),
            "ranges {:?} and {:?} touch and share value {} but were not coalesced",
            range,
            next_range,
            value
        );
    }
});
