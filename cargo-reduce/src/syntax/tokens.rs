//! The lexical rules both layers need: when two pieces of text written
//! side by side would fuse into one token (Φ, [`super::grammar`], puts a
//! space between a sequence's members where they would, and rendering,
//! [`super::tree`], between the pieces of the output), and how many
//! tokens a text is.

/// True when byte `a` followed by byte `b` could read as one token:
/// two word characters, two operator characters, or a digit and a dot.
pub(super) fn fuses(a: u8, b: u8) -> bool {
    let number_dot = (a.is_ascii_digit() && b == b'.') || (a == b'.' && b.is_ascii_digit());
    (word(a) && word(b)) || (operator(a) && operator(b)) || number_dot
}

/// The tokens of `text` as the benchmarks count them (`\w+|[^\s\w]`):
/// runs of word bytes, and every other byte that is not white space.
pub(crate) fn count(text: &[u8]) -> usize {
    let mut n = 0;
    let mut in_word = false;
    for &c in text {
        let w = word(c);
        if (w && !in_word) || (!w && !c.is_ascii_whitespace()) {
            n += 1;
        }
        in_word = w;
    }
    n
}

/// A byte of a name, keyword or number (any non-ASCII byte counts).
pub(super) fn word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// A byte that operators are made of.
pub(super) fn operator(c: u8) -> bool {
    b"!#$%&*+-./:<=>?@^|~".contains(&c)
}
