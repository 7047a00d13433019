//! Cutting an input into atoms: bytes, characters, lines or tokens.
//!
//! Atoms are [`Span`]s borrowed from the input, so cutting copies nothing.
//! A [`Unit`] list such as `line+char` runs one ddmin pass per unit, each
//! on the previous pass's result (picire's "both").

use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

/// A run of input bytes. Its `Hash` writes the bytes and nothing else, so a
/// sequence of spans hashes like the concatenated bytes: the cache key of a
/// candidate is a hash of its content, whatever the unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span<'a>(pub &'a [u8]);

impl Hash for Span<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write(self.0);
    }
}

/// Atoms that are bytes on the wire, so any byte-consuming oracle can test
/// a candidate made of them.
pub trait ByteAtom {
    /// The atom's bytes.
    fn bytes(&self) -> &[u8];
}

impl ByteAtom for Span<'_> {
    fn bytes(&self) -> &[u8] {
        self.0
    }
}

impl ByteAtom for u8 {
    fn bytes(&self) -> &[u8] {
        std::slice::from_ref(self)
    }
}

/// Concatenates atoms' bytes into `out` (cleared first).
pub(crate) fn concat_into<'a, A: ByteAtom + 'a>(
    atoms: impl IntoIterator<Item = &'a A>,
    out: &mut Vec<u8>,
) {
    out.clear();
    for a in atoms {
        out.extend_from_slice(a.bytes());
    }
}

/// What one ddmin pass removes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unit {
    /// Single bytes.
    Byte,
    /// UTF-8 characters (an invalid byte is an atom of its own).
    Char,
    /// Lines, each with its `\n`.
    Line,
    /// Language-agnostic tokens: identifiers, numbers, string literals,
    /// punctuation; whitespace stays attached to the token before it.
    Token,
}

impl Unit {
    /// The unit's name on the command line.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Unit::Byte => "byte",
            Unit::Char => "char",
            Unit::Line => "line",
            Unit::Token => "token",
        }
    }

    /// Cuts `input` into atoms of this unit; they concatenate to `input`.
    pub(crate) fn split(self, input: &[u8]) -> Vec<Span<'_>> {
        match self {
            Unit::Byte => input.chunks(1).map(Span).collect(),
            Unit::Char => chars(input),
            Unit::Line => input.split_inclusive(|&b| b == b'\n').map(Span).collect(),
            Unit::Token => tokens(input),
        }
    }
}

/// The units of a reduction, one pass each, in order (`line+char`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Units(pub Vec<Unit>);

impl Units {
    /// The default for `input`: lines then characters for UTF-8 text, bytes
    /// for anything else.
    pub(crate) fn default_for(input: &[u8]) -> Self {
        if std::str::from_utf8(input).is_ok() {
            Units(vec![Unit::Line, Unit::Char])
        } else {
            Units(vec![Unit::Byte])
        }
    }
}

impl FromStr for Units {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let units = s
            .split('+')
            .map(|name| {
                [Unit::Byte, Unit::Char, Unit::Line, Unit::Token]
                    .into_iter()
                    .find(|u| u.name() == name)
                    .ok_or_else(|| format!("unknown unit `{name}` (expected byte, char, line, token, or a `+` list such as line+char)"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Units(units))
    }
}

impl fmt::Display for Units {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<_> = self.0.iter().map(|u| u.name()).collect();
        f.write_str(&names.join("+"))
    }
}

fn chars(input: &[u8]) -> Vec<Span<'_>> {
    let mut out = Vec::with_capacity(input.len());
    let mut rest = input;
    for chunk in input.utf8_chunks() {
        for c in chunk.valid().chars() {
            let (atom, tail) = rest.split_at(c.len_utf8());
            out.push(Span(atom));
            rest = tail;
        }
        for _ in chunk.invalid() {
            let (atom, tail) = rest.split_at(1);
            out.push(Span(atom));
            rest = tail;
        }
    }
    out
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// The length of the token that starts `s` (not counting whitespace).
fn token_len(s: &[u8]) -> usize {
    let first = s[0];
    if is_word(first) {
        // Identifiers and numbers alike: `foo_1`, `0x1F`, `1_000u32`; a dot
        // continues a number (`1.5`) but not an identifier (`a.b`).
        let number = first.is_ascii_digit();
        s.iter()
            .position(|&b| !(is_word(b) || (number && b == b'.')))
            .unwrap_or(s.len())
    } else if matches!(first, b'"' | b'\'' | b'`') {
        string_len(s).unwrap_or(1)
    } else {
        // One punctuation character, UTF-8 aware.
        std::str::from_utf8(&s[..s.len().min(4)])
            .ok()
            .and_then(|t| t.chars().next())
            .map_or(1, char::len_utf8)
    }
}

/// The length of a quoted literal with `\` escapes, if it closes; `'` and
/// `"` literals must close on their line (so a Rust lifetime `'a` stays
/// punctuation), template literals may span lines.
fn string_len(s: &[u8]) -> Option<usize> {
    let quote = s[0];
    let mut i = 1;
    while i < s.len() {
        match s[i] {
            b'\\' => i += 2,
            b'\n' if quote != b'`' => return None,
            b if b == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

fn tokens(input: &[u8]) -> Vec<Span<'_>> {
    let ws = |s: &[u8]| {
        s.iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(s.len())
    };
    let mut out = Vec::new();
    let mut start = 0;
    // Leading whitespace belongs to the first token.
    let mut i = ws(input);
    while i < input.len() {
        i += token_len(&input[i..]);
        i += ws(&input[i..]);
        out.push(Span(&input[start..i]));
        start = i;
    }
    if start < input.len() {
        out.push(Span(&input[start..]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(unit: Unit, s: &str) -> Vec<String> {
        unit.split(s.as_bytes())
            .iter()
            .map(|a| String::from_utf8_lossy(a.0).into_owned())
            .collect()
    }

    #[test]
    fn every_unit_concatenates_back_to_the_input() {
        let samples: [&[u8]; 5] = [
            b"",
            b"a",
            b"fn main() {\n  let x = 1.5e3;\n}\n",
            "h\u{e9}llo w\u{f6}rld \u{1f600}".as_bytes(),
            b"\xff\xfebad \"utf8\xc3",
        ];
        for unit in [Unit::Byte, Unit::Char, Unit::Line, Unit::Token] {
            for s in samples {
                let atoms = unit.split(s);
                let mut out = Vec::new();
                concat_into(&atoms, &mut out);
                assert_eq!(out, s, "{unit:?}");
                assert!(atoms.iter().all(|a| !a.0.is_empty()));
            }
        }
    }

    #[test]
    fn chars_keep_multibyte_characters_whole() {
        assert_eq!(
            texts(Unit::Char, "a\u{e9}\u{1f600}"),
            vec!["a", "\u{e9}", "\u{1f600}"]
        );
        assert_eq!(Unit::Char.split(b"a\xffb").len(), 3);
    }

    #[test]
    fn lines_keep_their_newlines() {
        assert_eq!(
            texts(Unit::Line, "a\nb\n\nc"),
            vec!["a\n", "b\n", "\n", "c"]
        );
    }

    #[test]
    fn tokens_are_words_numbers_strings_and_punctuation() {
        assert_eq!(
            texts(
                Unit::Token,
                "  let x1 = 0x1F + 1.5;\n s = \"a \\\" b\" 'c' `t\nu` 'a;"
            ),
            vec![
                "  let ",
                "x1 ",
                "= ",
                "0x1F ",
                "+ ",
                "1.5",
                ";\n ",
                "s ",
                "= ",
                "\"a \\\" b\" ",
                "'c' ",
                "`t\nu` ",
                "'",
                "a",
                ";"
            ]
        );
    }

    #[test]
    fn units_parse_as_plus_lists() {
        assert_eq!(
            "line+char".parse::<Units>().unwrap(),
            Units(vec![Unit::Line, Unit::Char])
        );
        assert_eq!("token".parse::<Units>().unwrap().to_string(), "token");
        assert!("lines"
            .parse::<Units>()
            .unwrap_err()
            .contains("unknown unit `lines`"));
    }

    #[test]
    fn default_units_depend_on_utf8() {
        assert_eq!(
            Units::default_for(b"text\n"),
            Units(vec![Unit::Line, Unit::Char])
        );
        assert_eq!(Units::default_for(b"\xff\x00"), Units(vec![Unit::Byte]));
    }

    #[test]
    fn span_hash_is_the_hash_of_the_bytes() {
        use crate::engine::Candidate;
        let split = [Span(b"ab"), Span(b"c")];
        let whole = [Span(b"abc")];
        assert_eq!(
            Candidate::whole(&split).content_hash(),
            Candidate::whole(&whole).content_hash()
        );
        assert_eq!(
            Candidate::whole(&split).content_hash(),
            Candidate::whole(b"abc").content_hash()
        );
    }
}
