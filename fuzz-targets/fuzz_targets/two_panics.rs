//! `two_panics`: a request handler with an optional authentication header.
//!
//! Format: an optional `b"AB"` header (authenticated request), then the body.
//!
//! This target has TWO planted bugs at different source locations, and an
//! input that triggers bug A contains a sub-input that triggers bug B, so a
//! reducer that only checks "it still crashes" drifts from A to B:
//!
//! - PANIC A (the target bug; the artifact in corpus/ triggers it):
//!   an authenticated body starting with `b"XYZ"` panics with
//!   `bug A: authenticated XYZ request` (the `panic!` in the `authenticated`
//!   branch of `handle`). Minimal input: `b"ABXYZ"` (5 bytes).
//! - PANIC B (the decoy): an unauthenticated body starting with `b"XY"`
//!   panics with `bug B: unauthenticated XY request` (the `panic!` in the
//!   `else` branch of `handle`). Minimal input: `b"XY"` (2 bytes). Deleting
//!   the `AB` header from any input crashing with A, e.g. `b"ABXYZ"` ->
//!   `b"XYZ"`, gives an input that crashes with B.
#![no_main]

use libfuzzer_sys::fuzz_target;

fn handle(data: &[u8]) -> usize {
    let (authenticated, body) = match data.strip_prefix(b"AB") {
        Some(body) => (true, body),
        None => (false, data),
    };
    if body.starts_with(b"XY") {
        if authenticated {
            if body.get(2) == Some(&b'Z') {
                panic!("bug A: authenticated XYZ request");
            }
        } else {
            panic!("bug B: unauthenticated XY request");
        }
    }
    body.iter().filter(|b| b.is_ascii_alphanumeric()).count()
}

fuzz_target!(|data: &[u8]| {
    std::hint::black_box(handle(data));
});
