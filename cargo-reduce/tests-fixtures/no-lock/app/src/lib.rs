//! The code under test: panics on input starting `BUG`.

/// Checks `data`.
pub fn check(data: &[u8]) {
    if data.starts_with(b"BUG") {
        panic!("bug");
    }
}
