//! What decoding one input drew from it: the record cargo-reduce's
//! instrumented copy of `arbitrary` keeps while a typed fuzz target decodes
//! its input (`Unstructured`'s reads, in order), and its text form.
//!
//! The text form is one draw per line, `<kind> <start> <len>` and, for a
//! length, ` <value>`: `L 30 1 7` is a length of 7 read from the byte at
//! offset 30. The instrumented `arbitrary` writes it; this side parses it.

/// Which of `Unstructured`'s reads took a draw's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    /// A collection or string length (`arbitrary_len`), read from the
    /// *back* of the data in a width that depends on how much data is left.
    Length,
    /// `int_in_range` (choices, `ratio`, ranges): big-endian from the front.
    Range,
    /// `fill_buffer`: integers, bools, chars, floats, enum tags, the
    /// "one more element" flags of collections; little-endian from the front.
    Fixed,
    /// `bytes`: the contents of a byte string or `str`.
    Bytes,
}

impl Kind {
    fn from_letter(letter: &str) -> Option<Kind> {
        match letter {
            "L" => Some(Kind::Length),
            "R" => Some(Kind::Range),
            "F" => Some(Kind::Fixed),
            "B" => Some(Kind::Bytes),
            _ => None,
        }
    }
}

/// One read of the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Draw {
    /// Which read it was.
    pub kind: Kind,
    /// Offset of its first byte in the input.
    pub start: usize,
    /// Bytes it took (0 for a length of empty data).
    pub len: usize,
    /// The length it gave (lengths only; 0 otherwise).
    pub value: u64,
}

/// Parses the text form; `None` if a line is not a draw.
pub(crate) fn parse(text: &str) -> Option<Vec<Draw>> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(parse_line)
        .collect()
}

fn parse_line(line: &str) -> Option<Draw> {
    let mut fields = line.split_ascii_whitespace();
    let kind = Kind::from_letter(fields.next()?)?;
    let start = fields.next()?.parse().ok()?;
    let len = fields.next()?.parse().ok()?;
    let value = match (kind, fields.next()) {
        (Kind::Length, Some(value)) => value.parse().ok()?,
        (Kind::Length, None) => return None,
        (_, Some(_)) => return None,
        (_, None) => 0,
    };
    Some(Draw {
        kind,
        start,
        len,
        value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_form_parses() {
        let draws = parse("F 0 1\nL 9 1 3\nB 1 3\nR 4 2\n").unwrap();
        assert_eq!(draws.len(), 4);
        assert_eq!(
            draws[1],
            Draw {
                kind: Kind::Length,
                start: 9,
                len: 1,
                value: 3
            }
        );
        assert_eq!(draws[3].kind, Kind::Range);
    }

    #[test]
    fn bad_lines_are_refused() {
        assert!(parse("L 1 1").is_none(), "a length needs its value");
        assert!(parse("F 0 1 5").is_none(), "only lengths have values");
        assert!(parse("X 0 1").is_none());
        assert!(parse("F zero 1").is_none());
    }
}
