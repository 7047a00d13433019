//! `two_panics`: a request handler with an optional authentication header.
//!
//! Format: an optional `b"AB"` header (authenticated request), then the body.
//!
//! This target has TWO planted bugs at different source locations, and every
//! input that triggers bug A contains a sub-input that triggers bug B, so a
//! reducer that only checks "it still crashes" drifts from A to B:
//!
//! - PANIC A (the bug the corpus artifact triggers): an authenticated body
//!   starting with `b"XYZ"` panics with `bug A: authenticated XYZ request`
//!   (the first `panic!` in `handle`). Minimal input: `b"ABXYZ"` (5 bytes).
//! - PANIC B (the decoy): an unauthenticated body starting with `b"XYZ"`
//!   panics with `bug B: unauthenticated XYZ request` (the second `panic!` in
//!   `handle`). Minimal input: `b"XYZ"` (3 bytes). Deleting the `AB` header
//!   from an input that crashes with A (`b"ABXYZ..."` -> `b"XYZ..."`) gives an
//!   input that crashes with B.
//!
//! The authenticated check compares byte by byte (each matching byte is new
//! coverage, so libFuzzer climbs to A within seconds), while the
//! unauthenticated check is a single 3-byte comparison that coverage cannot
//! guide, so libFuzzer finds A first even though B's input is shorter.
#![no_main]

use libfuzzer_sys::fuzz_target;

fn handle(data: &[u8]) -> usize {
    let (authenticated, body) = match data.strip_prefix(b"AB") {
        Some(body) => (true, body),
        None => (false, data),
    };
    if authenticated {
        // Authenticated commands are parsed byte by byte.
        if body.first() == Some(&b'X') && body.get(1) == Some(&b'Y') && body.get(2) == Some(&b'Z') {
            panic!("bug A: authenticated XYZ request");
        }
    } else if body.starts_with(b"XYZ") {
        panic!("bug B: unauthenticated XYZ request");
    }
    body.iter().filter(|b| b.is_ascii_alphanumeric()).count()
}

fuzz_target!(|data: &[u8]| {
    std::hint::black_box(handle(data));
});
