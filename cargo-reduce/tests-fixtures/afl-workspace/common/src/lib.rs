//! The library both fuzz packages test.

/// Fails on inputs that end with `tag`.
pub fn check(data: &[u8], tag: &[u8]) {
    if data.ends_with(tag) {
        panic!("input ends with {}", String::from_utf8_lossy(tag));
    }
}
