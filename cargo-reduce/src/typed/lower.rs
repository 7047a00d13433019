//! `typed-lower` and `typed-chars`: the values of a decoding, and the
//! characters of its `str`s, each lowered to the lowest that still fails.

use std::collections::{BTreeMap, HashMap};

use crate::engine::{Oracle, OracleError};

use super::layout::Piece;
use super::reduce::Run;
use super::settled::Settled;
use super::trace::Kind;
use super::Decoder;

/// The longest `str` (in bytes) whose characters `typed-chars` lowers one
/// by one.
const MAX_LOWERED_TEXT: usize = 256;

/// Values above this are first tested just below themselves (see
/// `search_lowest`).
const SHORTCUT_ABOVE: u128 = 1 << 16;

impl<O: Oracle<u8> + ?Sized, D: Decoder + ?Sized> Run<'_, '_, O, D> {
    /// `typed-lower`: for each value, a search for the lowest one that
    /// still fails; then the values that several draws hold alike, each
    /// such set lowered together.
    pub(super) fn lower_values(&mut self) -> Result<bool, OracleError> {
        let mut found = false;
        for at in 0..self.layout.pieces.len() {
            found |= self.lower_one(at)?;
        }
        for group in self.equal_values() {
            found |= self.lower_together(&group)?;
        }
        Ok(found)
    }

    /// The draws that hold one value alike (lowerable, of the same kind
    /// and width), two or more, by where the first is.
    fn equal_values(&self) -> Vec<Vec<usize>> {
        let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        let mut first: HashMap<(Piece, u128), usize> = HashMap::new();
        for (at, piece) in self.layout.pieces.iter().enumerate() {
            if self.lowerable(at) {
                let shape = piece.with_value(0);
                let lead = *first.entry((shape, piece.value())).or_insert(at);
                groups.entry(lead).or_default().push(at);
            }
        }
        groups.into_values().filter(|g| g.len() > 1).collect()
    }

    /// Lowers the draws `group` (as [`Self::equal_values`] found them)
    /// together, by [`Self::search_lowest`], while they hold one value:
    /// values that must stay equal for the input to fail (a key inserted
    /// and then removed) cannot be lowered one at a time.
    fn lower_together(&mut self, group: &[usize]) -> Result<bool, OracleError> {
        let shapes: Vec<Piece> = group
            .iter()
            .map(|&at| self.layout.pieces[at].with_value(0))
            .collect();
        let current = |run: &Self| {
            let pieces = &run.layout.pieces;
            let value = pieces.get(group[0])?.value();
            let alike = group.iter().zip(&shapes).all(|(&at, shape)| {
                pieces.get(at).is_some_and(|p| {
                    p.with_value(0) == *shape && p.value() == value && run.lowerable(at)
                })
            });
            alike.then_some(value)
        };
        let encode = |run: &Self, value: u128| {
            let mut layout = run.layout.clone();
            for &at in group {
                layout.pieces[at] = layout.pieces[at].with_value(value);
            }
            Some(layout.encode())
        };
        self.search_recorded(|run| &mut run.settled_together, group[0], current, encode)
    }

    /// `typed-chars`: the same for each character of each `str`.
    pub(super) fn lower_chars(&mut self) -> Result<bool, OracleError> {
        let mut found = false;
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
        self.search_lowest(current, encode, false)
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
        let encode = |run: &Self, value: u128| Some(run.edited(at, Some(value), 0..0));
        self.search_recorded(|run| &mut run.settled, at, current, encode)
    }

    /// [`Self::search_lowest`] of the value that `record` keeps at `at`:
    /// settled when it is where the last search recorded there ended, and
    /// where this one ends recorded.
    fn search_recorded(
        &mut self,
        record: fn(&mut Self) -> &mut Settled,
        at: usize,
        current: impl Fn(&Self) -> Option<u128>,
        encode: impl Fn(&Self, u128) -> Option<Vec<u8>>,
    ) -> Result<bool, OracleError> {
        let pieces = self.layout.pieces.len();
        let recorded = record(self).get(pieces, at);
        let settled = current(self).is_some_and(|v| recorded == Some(v));
        let found = self.search_lowest(&current, encode, settled)?;
        let (pieces, ended) = (self.layout.pieces.len(), current(self));
        record(self).set(pieces, at, ended);
        Ok(found)
    }

    /// The search both lowerings share: tests eight values spread over
    /// `[lowest, value)` (`value`: what `current` reads from the current
    /// input, `None` once the draw is gone or no longer lowerable;
    /// `lowest`: above every value known not to fail), each encoded by
    /// `encode` (`None`: not a valid value, such as a surrogate code
    /// point). The first that fails becomes the value, and the search goes
    /// on while the decoder reads back the value written; when none fails
    /// `lowest` rises past them, until no value is left to test.
    /// `settled`: the value is where an earlier search ended.
    fn search_lowest(
        &mut self,
        current: impl Fn(&Self) -> Option<u128>,
        encode: impl Fn(&Self, u128) -> Option<Vec<u8>>,
        settled: bool,
    ) -> Result<bool, OracleError> {
        let (mut found, mut lowest) = (false, 0u128);
        let mut first = true;
        while !self.done() {
            let Some(value) = current(self) else {
                break;
            };
            // A large or settled value: first the lowest value, then the
            // one just below; when that one passes too, no value in
            // between fails (the search's premise), and a value already at
            // its lowest costs two tests, not a search down from zero (82
            // for a 32-bit one). Small values are searched whole the first
            // time: bytes that are flags (odd or even) do not keep the
            // premise, and their search is short anyway.
            let shortcut = first && (settled || value > SHORTCUT_ABOVE);
            first = false;
            let mut points = match shortcut {
                true => vec![lowest, value - 1],
                false => spread(lowest, value, 8),
            };
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
                    // The points below the winner were tested first and
                    // passed.
                    if w > 0 {
                        lowest = points[w - 1] + 1;
                    }
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

/// `n` values spread evenly over `[lowest, value)`, from `lowest` up
/// (fewer when the span is narrower than `n`).
fn spread(lowest: u128, value: u128, n: u128) -> Vec<u128> {
    let span = value.saturating_sub(lowest);
    let mut points: Vec<u128> = (0..n)
        .map(|j| lowest + span / n * j + span % n * j / n)
        .filter(|&v| v < value)
        .collect();
    points.dedup();
    points
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Cancel, Candidate, DdminOptions, Outcome, Reducer};
    use crate::typed::{reduce, Decoded, Draw, TypedOptions};

    /// Reads its input as little-endian `u16`s, each a `fill_buffer` draw;
    /// an odd last byte is slack.
    struct U16s;

    impl Decoder for U16s {
        fn decode(&self, input: &[u8]) -> Result<Option<Decoded>, OracleError> {
            let draws = (0..input.len() / 2)
                .map(|i| Draw {
                    kind: Kind::Fixed,
                    start: 2 * i,
                    len: 2,
                    value: 0,
                })
                .collect();
            Ok(Some(Decoded { draws, debug: None }))
        }
    }

    /// Fails when its function says so of the input's `u16`s (`None`
    /// past the end).
    struct Fails<F>(F);

    impl<F: Fn(&dyn Fn(usize) -> Option<u16>) -> bool + Sync> Oracle<u8> for Fails<F> {
        fn test(
            &self,
            candidate: &Candidate<'_, u8>,
            _cancel: &Cancel<'_>,
        ) -> Result<Option<Outcome>, OracleError> {
            let bytes = candidate.to_vec();
            let value = |i: usize| {
                let b = bytes.get(2 * i..2 * i + 2)?;
                Some(u16::from_le_bytes([b[0], b[1]]))
            };
            Ok(Some(Outcome::from_bool((self.0)(&value))))
        }
    }

    /// `input` reduced under `oracle`, and the tests it took.
    fn reduced(input: &[u8], oracle: &dyn Oracle<u8>) -> (Vec<u8>, u64) {
        let run = Reducer::new();
        let options = TypedOptions {
            budget: 5_000,
            window: 8,
            ddmin: DdminOptions::default(),
            lower_values: true,
        };
        let out = reduce(input.to_vec(), oracle, &U16s, &options, &run.context()).unwrap();
        (out, run.tests())
    }

    /// Reduced where each `u16` must be at least its threshold (a missing
    /// one reads as 0), as counts of elements a bug needs.
    fn lowered(input: &[u8], thresholds: &'static [u16]) -> (Vec<u8>, u64) {
        let at_least = |value: &dyn Fn(usize) -> Option<u16>| {
            (thresholds.iter().enumerate()).all(|(i, &t)| value(i).unwrap_or(0) >= t)
        };
        reduced(input, &Fails(at_least))
    }

    /// A count is lowered to exactly the lowest that fails, the other
    /// value dropped, and the points each step tested below its winner
    /// are not searched again (64 tests when they were).
    #[test]
    fn a_count_is_lowered_to_its_threshold() {
        let (out, tests) = lowered(b"0000", &[4161]);
        assert_eq!(out, 4161u16.to_le_bytes());
        assert!(tests <= 60, "{tests} tests");
    }

    /// The round that confirms two lowered values tries each at 0 and
    /// just below itself, as settled, instead of searching it again (63
    /// tests in all when it did).
    #[test]
    fn a_settled_value_is_confirmed_cheaply() {
        let (out, tests) = lowered(b"0000", &[4161, 1]);
        assert_eq!(out, [4161u16.to_le_bytes(), 1u16.to_le_bytes()].concat());
        assert!(tests <= 40, "{tests} tests");
    }

    /// Two values that must stay equal (a key inserted, then removed:
    /// neither can be lowered alone) are lowered together, to the lowest
    /// pair that fails; a third value, unequal, is dropped.
    #[test]
    fn values_held_alike_are_lowered_together() {
        let input = [47408u16, 47408, 9].map(u16::to_le_bytes).concat();
        let equal_pair = |value: &dyn Fn(usize) -> Option<u16>| matches!((value(0), value(1)), (Some(a), Some(b)) if a == b && a >= 3);
        let (out, _) = reduced(&input, &Fails(equal_pair));
        assert_eq!(out, [3u16, 3].map(u16::to_le_bytes).concat());
    }

    #[test]
    fn spread_covers_the_span_from_its_floor() {
        assert_eq!(spread(0, 8, 8), (0..8).collect::<Vec<_>>());
        assert_eq!(spread(10, 13, 8), vec![10, 11, 12]);
        assert_eq!(spread(0, 4161, 8)[..2], [0, 520]);
        assert!(spread(5, 5, 8).is_empty());
    }
}
