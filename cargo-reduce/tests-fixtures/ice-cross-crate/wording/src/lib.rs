//! Words of a text.

/// The words of `text`, split at whitespace.
pub fn split(text: &str) -> impl Iterator<Item = &str> {
    text.split_whitespace()
}
