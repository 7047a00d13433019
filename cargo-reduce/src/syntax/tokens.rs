//! The one lexical rule both layers need: when two pieces of text written
//! side by side would fuse into one token. Φ ([`super::grammar`]) puts a
//! space between a sequence's members where they would, and rendering
//! ([`super::tree`]) between the pieces of the output.

/// True when byte `a` followed by byte `b` could read as one token:
/// two word characters, two operator characters, or a digit and a dot.
pub(super) fn fuses(a: u8, b: u8) -> bool {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
    let op = |c: u8| b"!#$%&*+-./:<=>?@^|~".contains(&c);
    let number_dot = (a.is_ascii_digit() && b == b'.') || (a == b'.' && b.is_ascii_digit());
    (word(a) && word(b)) || (op(a) && op(b)) || number_dot
}
