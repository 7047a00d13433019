//! `two_panics`: a request handler with an optional authentication header,
//! fuzzed with `use afl::fuzz;` and `fuzz!(|data| …)` (no type).
//!
//! Format: an optional `AB` header (authenticated request), then the body.
//!
//! Two planted bugs at different locations, and every input that triggers
//! bug A contains a sub-input that triggers bug B, so a reducer that only
//! checks "it still crashes" drifts from A to B:
//!
//! - PANIC A (the bug AFL finds): an authenticated body starting with
//!   `XYZ` panics with `bug A: authenticated XYZ request`. Minimal input:
//!   `ABXYZ` (5 bytes).
//! - PANIC B (the decoy): an unauthenticated body starting with `XYZ`
//!   panics with `bug B: unauthenticated XYZ request`. Minimal input: `XYZ`
//!   (3 bytes). Deleting the `AB` header of an input that crashes with A
//!   gives an input that crashes with B.
//!
//! The authenticated check compares byte by byte (each matching byte is new
//! coverage), the unauthenticated one is a single 3-byte comparison that
//! coverage cannot guide, so AFL finds A first although B's input is
//! shorter.
use afl::fuzz;

fn handle(data: &[u8]) -> usize {
    let authenticated = data.first() == Some(&b'A') && data.get(1) == Some(&b'B');
    let body = if authenticated { &data[2..] } else { data };
    if authenticated {
        if body.first() == Some(&b'X') && body.get(1) == Some(&b'Y') && body.get(2) == Some(&b'Z') {
            panic!("bug A: authenticated XYZ request");
        }
    } else if body.starts_with(b"XYZ") {
        panic!("bug B: unauthenticated XYZ request");
    }
    body.iter().filter(|b| b.is_ascii_alphanumeric()).count()
}

fn main() {
    fuzz!(|data| {
        std::hint::black_box(handle(data));
    });
}
