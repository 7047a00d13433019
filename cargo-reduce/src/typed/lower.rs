//! `typed-lower`: the values of a decoding, and the characters of its
//! `str`s, each lowered to the lowest that still fails.

use crate::engine::{Oracle, OracleError};

use super::layout::Piece;
use super::reduce::Run;
use super::trace::Kind;
use super::Decoder;

/// The longest `str` (in bytes) whose characters `typed-lower` lowers one
/// by one.
const MAX_LOWERED_TEXT: usize = 256;

/// Values above this are first tested just below themselves (see
/// `search_lowest`).
const SHORTCUT_ABOVE: u128 = 1 << 16;

impl<O: Oracle<u8> + ?Sized, D: Decoder + ?Sized> Run<'_, '_, O, D> {
    /// `typed-lower`: for each value, a search for the lowest one that
    /// still fails, eight values a round; then the same for each
    /// character of each `str`.
    pub(super) fn lower(&mut self) -> Result<bool, OracleError> {
        let mut found = false;
        for at in 0..self.layout.pieces.len() {
            found |= self.lower_one(at)?;
        }
        for at in 0..self.layout.pieces.len() {
            let mut i = 0;
            while !self.done() && self.text_at(at).is_some_and(|t| i < t.len()) {
                found |= self.lower_char(at, i)?;
                i += 1;
            }
        }
        Ok(found)
    }

    /// The characters of the `str` at `at`, if that draw is one (valid
    /// UTF-8, not too long for a search per character).
    fn text_at(&self, at: usize) -> Option<Vec<char>> {
        match self.layout.pieces.get(at) {
            Some(Piece::Front {
                kind: Kind::Bytes,
                bytes,
            }) if bytes.len() <= MAX_LOWERED_TEXT => {
                std::str::from_utf8(bytes).ok().map(|t| t.chars().collect())
            }
            _ => None,
        }
    }

    /// Lowers character `i` of the `str` at `at` to the lowest code point
    /// that still fails, by [`Self::search_lowest`]; the string's length
    /// is rewritten when the character takes fewer bytes.
    fn lower_char(&mut self, at: usize, i: usize) -> Result<bool, OracleError> {
        let Some(len) = self.text_at(at).map(|t| t.len()) else {
            return Ok(false);
        };
        let current = |run: &Self| {
            let text = run.text_at(at).filter(|t| t.len() == len && i < len)?;
            Some(u128::from(u32::from(text[i])))
        };
        let encode = |run: &Self, value: u128| {
            let c = char::from_u32(u32::try_from(value).ok()?)?;
            let mut text = run.text_at(at)?;
            text[i] = c;
            let bytes = text.iter().collect::<String>().into_bytes();
            let mut layout = run.layout.clone();
            if run.governed(at) {
                layout.pieces[at - 1] = Piece::Length(bytes.len() as u64);
            }
            layout.pieces[at] = Piece::Front {
                kind: Kind::Bytes,
                bytes,
            };
            Some(layout.encode())
        };
        self.search_lowest(current, encode)
    }

    /// Lowers the value at `at` as far as it goes, by
    /// [`Self::search_lowest`], while the draw stays the same kind of
    /// value.
    fn lower_one(&mut self, at: usize) -> Result<bool, OracleError> {
        let Some(piece) = self.layout.pieces.get(at).cloned() else {
            return Ok(false);
        };
        let current = |run: &Self| {
            let now = run.layout.pieces.get(at)?;
            (same_kind(now, &piece) && run.lowerable(at)).then(|| now.value())
        };
        self.search_lowest(current, |run, value| {
            Some(run.edited(at, Some(value), 0..0))
        })
    }

    /// The search both lowerings share: tests eight values spread over
    /// `[lowest, value)` (`value`: what `current` reads from the current
    /// input, `None` once the draw is gone or no longer lowerable;
    /// `lowest`: above every value known not to fail), each encoded by
    /// `encode` (`None`: not a valid value, such as a surrogate code
    /// point). The first that fails becomes the value, and the search goes
    /// on while the decoder reads back the value written; when none fails
    /// `lowest` rises past them, until no value is left to test.
    fn search_lowest(
        &mut self,
        current: impl Fn(&Self) -> Option<u128>,
        encode: impl Fn(&Self, u128) -> Option<Vec<u8>>,
    ) -> Result<bool, OracleError> {
        let (mut found, mut lowest) = (false, 0u128);
        let mut first = true;
        while !self.done() {
            let Some(value) = current(self) else {
                break;
            };
            let span = value.saturating_sub(lowest);
            // A large value: first the lowest value, then the one just
            // below; when that one passes too, no value in between fails
            // (the search's premise), and a value already at its lowest
            // costs two tests, not a search down from zero (82 for a
            // 32-bit one). Small values are searched whole: bytes that
            // are flags (odd or even) do not keep the premise, and their
            // search is short anyway.
            let shortcut = first && value > SHORTCUT_ABOVE;
            first = false;
            let mut points: Vec<u128> = match shortcut {
                true => vec![lowest, value - 1],
                false => (0..8u128)
                    .map(|j| lowest + span / 8 * j + span % 8 * j / 8)
                    .collect(),
            };
            points.retain(|&v| v < value);
            points.dedup();
            let (points, candidates): (Vec<u128>, Vec<Vec<u8>>) = points
                .into_iter()
                .filter_map(|v| Some((v, encode(self, v)?)))
                .unzip();
            let Some(&highest) = points.last() else {
                break;
            };
            match self.first_of(candidates, true)? {
                None if shortcut && points.len() == 2 => break,
                None => lowest = highest + 1,
                Some(w) => {
                    found = true;
                    if current(self) != Some(points[w]) {
                        break;
                    }
                }
            }
        }
        Ok(found)
    }

    /// Whether the draw at `at` is a value to lower: a non-zero integer,
    /// flag or tag, or a length that does not count a byte string.
    fn lowerable(&self, at: usize) -> bool {
        let piece = &self.layout.pieces[at];
        let counts_bytes = matches!(
            self.layout.pieces.get(at + 1),
            Some(Piece::Front {
                kind: Kind::Bytes,
                ..
            })
        ) && self.governed(at + 1);
        piece.value() > 0
            && match piece {
                Piece::Length(_) => !counts_bytes,
                Piece::Front { kind, .. } => *kind != Kind::Bytes,
            }
    }
}

fn same_kind(a: &Piece, b: &Piece) -> bool {
    match (a, b) {
        (Piece::Length(_), Piece::Length(_)) => true,
        (Piece::Front { kind: x, bytes: p }, Piece::Front { kind: y, bytes: q }) => {
            x == y && p.len() == q.len()
        }
        _ => false,
    }
}
