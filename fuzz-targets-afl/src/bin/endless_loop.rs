//! `endless_loop`: a chunk counter that never ends on a zero step; AFL saves
//! such inputs as hangs.
//!
//! Format: `LP`, then step bytes: each moves the cursor that far.
//!
//! BUG: a step of 0 leaves the cursor where it is, forever. Minimal input:
//! `LP\x00`.

fn count_chunks(data: &[u8]) -> u64 {
    if data.first() != Some(&b'L') || data.get(1) != Some(&b'P') {
        return 0;
    }
    let body = &data[2..];
    let mut pos = 0usize;
    let mut chunks = 0u64;
    while pos < body.len() {
        // BUG: `step == 0` leaves `pos` where it is.
        let step = usize::from(std::hint::black_box(body[pos]));
        pos += step;
        chunks = chunks.wrapping_add(1);
    }
    chunks
}

fn main() {
    afl::fuzz!(|data: &[u8]| {
        std::hint::black_box(count_chunks(data));
    });
}
