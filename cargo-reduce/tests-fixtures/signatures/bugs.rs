//! The six bugs of the `six_bugs` targets (the cargo-fuzz one here, the
//! afl.rs one in `../signatures-afl`), two of each kind: `SEGV` and `SV`
//! crash on a null pointer in different functions, `ABORT` and `AT` abort
//! from different places, `LOOP` and `LP` never end, in different loops.
//! Each first one's marker holds its twin's as a subsequence (`SEGV` →
//! `SV`), so a reduction that compares kinds alone slips to the twin.

use std::alloc::Layout;
use std::hint::black_box;

/// Stores a record's length through its table pointer, which a `SEGV`
/// record leaves null.
#[inline(never)]
fn store_length(table: *mut u64, length: u64) {
    unsafe { std::ptr::write_volatile(table.wrapping_add(2), length) };
}

/// Reads a record's checksum through a pointer an `SV` record leaves null.
#[inline(never)]
fn load_checksum(table: *const u64) -> u64 {
    unsafe { std::ptr::read_volatile(table.wrapping_add(1)) }
}

/// An `ABORT` record stops everything.
#[inline(never)]
fn check_header(data: &[u8]) {
    if contains(data, b"ABORT") {
        std::process::abort();
    }
}

/// An `AT` record asks for a table the allocator cannot give (Rust's
/// allocation-failure path aborts).
#[inline(never)]
fn reserve_table(entries: usize) {
    let layout = Layout::from_size_align(entries, 8).unwrap();
    std::alloc::handle_alloc_error(black_box(layout));
}

/// Waits for padding to end; a `LOOP` record has no end.
#[inline(never)]
fn skip_padding(data: &[u8]) -> u64 {
    let mut skipped = 0u64;
    while black_box(true) {
        skipped = skipped.wrapping_add(black_box(data.len() as u64));
    }
    skipped
}

/// Polls for a ready flag an `LP` record never sets.
#[inline(never)]
fn wait_ready(data: &[u8]) -> u64 {
    let mut polls = 1u64;
    while black_box(polls) != 0 {
        polls = polls.wrapping_mul(3) | black_box(data.first().map_or(1, |&b| u64::from(b) | 1));
    }
    polls
}

fn contains(data: &[u8], marker: &[u8]) -> bool {
    data.windows(marker.len()).any(|w| w == marker)
}

/// Runs the record in `data`: the first marker found decides.
pub fn run(data: &[u8]) {
    let null = black_box(std::ptr::null_mut::<u64>());
    if contains(data, b"SEGV") {
        store_length(null, data.len() as u64);
    } else if contains(data, b"SV") {
        black_box(load_checksum(null));
    } else if contains(data, b"ABORT") {
        check_header(data);
    } else if contains(data, b"AT") {
        reserve_table(data.len());
    } else if contains(data, b"LOOP") {
        black_box(skip_padding(data));
    } else if contains(data, b"LP") {
        black_box(wait_ready(data));
    }
}
