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
    /// that still fails, as [`Self::lower_one`] lowers a value; the
    /// string's length is rewritten when the character takes fewer bytes.
    fn lower_char(&mut self, at: usize, i: usize) -> Result<bool, OracleError> {
        let (mut found, mut lowest) = (false, 0u32);
        while let Some(text) = self.text_at(at).filter(|t| i < t.len()) {
            let value = u32::from(text[i]);
            let span = value - lowest;
            let mut points: Vec<char> = (0..8u32)
                .filter_map(|j| char::from_u32(lowest + span / 8 * j + span % 8 * j / 8))
                .filter(|&c| u32::from(c) < value)
                .collect();
            points.dedup();
            let Some(&highest) = points.last() else {
                break;
            };
            let governed = self.governed(at);
            let candidates = points
                .iter()
                .map(|&c| {
                    let mut text = text.clone();
                    text[i] = c;
                    let bytes = text.iter().collect::<String>().into_bytes();
                    let mut layout = self.layout.clone();
                    if governed {
                        layout.pieces[at - 1] = Piece::Length(bytes.len() as u64);
                    }
                    layout.pieces[at] = Piece::Front {
                        kind: Kind::Bytes,
                        bytes,
                    };
                    layout.encode()
                })
                .collect();
            match self.first_of(candidates, true)? {
                Some(w) => {
                    found = true;
                    let now = self.text_at(at);
                    if now.is_none_or(|t| t.len() != text.len() || t[i] != points[w]) {
                        break;
                    }
                }
                None => lowest = u32::from(highest) + 1,
            }
        }
        Ok(found)
    }

    /// Lowers the value at `at` as far as it goes: tests eight values
    /// spread over `[lowest, value)` (`lowest`: above every value known
    /// not to fail), the first that fails becoming the value, until none
    /// is left to test or the draw is no longer the same kind of value.
    fn lower_one(&mut self, at: usize) -> Result<bool, OracleError> {
        let mut found = false;
        let mut lowest = 0u128;
        while !self.done() && at < self.layout.pieces.len() && self.lowerable(at) {
            let piece = self.layout.pieces[at].clone();
            let value = piece.value();
            let span = value.saturating_sub(lowest);
            let mut points: Vec<u128> = (0..8u128)
                .map(|j| lowest + span / 8 * j + span % 8 * j / 8)
                .filter(|&v| v < value)
                .collect();
            points.dedup();
            let Some(&highest) = points.last() else {
                break;
            };
            let candidates = points
                .iter()
                .map(|&v| self.edited(at, Some(v), 0..0))
                .collect();
            if self.first_of(candidates, true)?.is_none() {
                lowest = highest + 1;
                continue;
            }
            found = true;
            let now = self.layout.pieces.get(at);
            if now.is_none_or(|p| !same_kind(p, &piece) || p.value() >= value) {
                break;
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
