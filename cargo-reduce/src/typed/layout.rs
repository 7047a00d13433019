//! `arbitrary` 1.x's byte layout, as a value that can be edited and
//! written back: the decoded draws in order ([`Piece`]s) and the bytes no
//! draw took (`slack`: what `take_rest` got, or nothing read at all).
//!
//! `Unstructured` reads integers, flags and byte strings from the front of
//! the data and lengths from the back, each length in a width that depends
//! on how much data is left when it is read: one byte while at most 256
//! bytes are left, two up to 64 KiB, then four, then eight. So an input is
//! `front draws ++ slack ++ lengths (last read first)`, and removing one
//! byte anywhere can change every length's width and value. [`Layout::encode`]
//! writes a layout back so that each length keeps its value in the width
//! the new total calls for, which is what lets a reduction drop an element
//! or shorten a string without re-cutting every field after it.

use super::trace::{Draw, Kind};

/// One draw of a decoding, as it is written back.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Piece {
    /// Bytes read from the front.
    Front {
        /// Which read took them.
        kind: Kind,
        /// The bytes.
        bytes: Vec<u8>,
    },
    /// A length read from the back; its width is worked out when encoding.
    Length(u64),
}

impl Piece {
    /// The number this piece gives the decoder: a length, or the front
    /// bytes as the integer they read as (little-endian for `fill_buffer`,
    /// big-endian for `int_in_range`); byte strings count as 0.
    pub(crate) fn value(&self) -> u128 {
        match self {
            Piece::Length(v) => u128::from(*v),
            Piece::Front {
                kind: Kind::Fixed,
                bytes,
            } => bytes
                .iter()
                .take(16)
                .rev()
                .fold(0, |acc, &b| acc << 8 | u128::from(b)),
            Piece::Front {
                kind: Kind::Range,
                bytes,
            } => bytes
                .iter()
                .take(16)
                .fold(0, |acc, &b| acc << 8 | u128::from(b)),
            Piece::Front { .. } => 0,
        }
    }

    /// This piece giving `value` instead, in as many bytes (the inverse of
    /// [`Piece::value`]; a byte string is left as it is).
    pub(crate) fn with_value(&self, value: u128) -> Piece {
        match self {
            Piece::Length(_) => Piece::Length(value.min(u128::from(u64::MAX)) as u64),
            Piece::Front { kind, bytes } => {
                let n = bytes.len().min(16);
                let le = value.to_le_bytes();
                let mut out = bytes.clone();
                for (i, byte) in out[..n].iter_mut().enumerate() {
                    *byte = match kind {
                        Kind::Range => le[n - 1 - i],
                        Kind::Bytes => *byte,
                        _ => le[i],
                    };
                }
                Piece::Front {
                    kind: *kind,
                    bytes: out,
                }
            }
        }
    }
}

/// A decoded input, ready to be edited and encoded again.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub(crate) struct Layout {
    /// The draws, in the order the decoder made them.
    pub pieces: Vec<Piece>,
    /// The bytes between the last front draw and the first length: what
    /// `take_rest` took, or data the decoder never read.
    pub slack: Vec<u8>,
}

impl Layout {
    /// The layout of `input` from the draws its decoding made. Draws that
    /// do not continue the front or the back (an `Unstructured` a
    /// hand-written `Arbitrary` made over bytes it had already drawn) are
    /// left out: the draw that took those bytes covers them.
    pub(crate) fn from_trace(input: &[u8], draws: &[Draw]) -> Layout {
        let (mut front, mut back) = (0, input.len());
        let mut pieces = Vec::with_capacity(draws.len());
        for draw in draws {
            let end = draw.start + draw.len;
            match draw.kind {
                Kind::Length if end == back && draw.start >= front => {
                    pieces.push(Piece::Length(draw.value));
                    back = draw.start;
                }
                Kind::Length => {}
                kind if draw.start == front && end <= back => {
                    pieces.push(Piece::Front {
                        kind,
                        bytes: input[draw.start..end].to_vec(),
                    });
                    front = end;
                }
                _ => {}
            }
        }
        trim_str_lengths(&mut pieces);
        Layout {
            pieces,
            slack: input[front..back].to_vec(),
        }
    }

    /// The input this layout decodes from: the front draws, the slack, then
    /// the lengths from the back, each in the width and with the value the
    /// decoder reads when it gets to it.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let widths = self.widths();
        let front: usize = self.front_len();
        let back: usize = widths.iter().sum();
        let total = front + self.slack.len() + back;
        let mut out = Vec::with_capacity(total);
        for piece in &self.pieces {
            if let Piece::Front { bytes, .. } = piece {
                out.extend_from_slice(bytes);
            }
        }
        out.extend_from_slice(&self.slack);
        out.resize(total, 0);
        let (mut left, mut end) = (total, total);
        let mut widths = widths.into_iter();
        for piece in &self.pieces {
            match piece {
                Piece::Front { bytes, .. } => left -= bytes.len(),
                Piece::Length(value) => {
                    let width = widths.next().expect("a width per length");
                    write_length(&mut out[end - width..end], *value, left - width);
                    end -= width;
                    left -= width;
                }
            }
        }
        out
    }

    /// The encoded length.
    #[cfg(test)]
    pub(crate) fn encoded_len(&self) -> usize {
        self.front_len() + self.slack.len() + self.widths().iter().sum::<usize>()
    }

    fn front_len(&self) -> usize {
        self.pieces
            .iter()
            .map(|p| match p {
                Piece::Front { bytes, .. } => bytes.len(),
                Piece::Length(_) => 0,
            })
            .sum()
    }

    /// Each length's width. The widths depend on the total, which depends
    /// on the widths: start from one byte each and recompute until the
    /// total stays put (widths only grow with the total, so this settles
    /// in a few steps).
    fn widths(&self) -> Vec<usize> {
        let fixed = self.front_len() + self.slack.len();
        let lengths = self
            .pieces
            .iter()
            .filter(|p| matches!(p, Piece::Length(_)))
            .count();
        let mut total = fixed + lengths;
        let mut widths = Vec::new();
        for _ in 0..8 {
            widths = self.widths_for(total);
            let next = fixed + widths.iter().sum::<usize>();
            if next == total {
                break;
            }
            total = next;
        }
        widths
    }

    /// The widths the decoder reads the lengths in, for an input of `total`
    /// bytes.
    fn widths_for(&self, total: usize) -> Vec<usize> {
        let mut left = total;
        let mut widths = Vec::new();
        for piece in &self.pieces {
            match piece {
                Piece::Front { bytes, .. } => left = left.saturating_sub(bytes.len()),
                Piece::Length(_) => {
                    let width = length_width(left);
                    widths.push(width);
                    left -= width;
                }
            }
        }
        widths
    }
}

/// A `str` whose bytes are not all UTF-8 takes only its valid prefix
/// (maybe nothing), so its length counts more than the next draw took, and
/// the decoder *peeked* at bytes no draw took: an edit of those bytes
/// (they belong to later fields) could make the prefix valid and change
/// the `str`. A length that counts exactly what was taken gives the same
/// value (the decoder peeks at fewer bytes, all valid, and takes them) and
/// depends on nothing else.
fn trim_str_lengths(pieces: &mut [Piece]) {
    for i in 1..pieces.len() {
        if let (
            Piece::Length(count),
            Piece::Front {
                kind: Kind::Bytes,
                bytes,
            },
        ) = (&pieces[i - 1], &pieces[i])
        {
            if *count > bytes.len() as u64 {
                pieces[i - 1] = Piece::Length(bytes.len() as u64);
            }
        }
    }
}

/// How many bytes `arbitrary_byte_size` takes from the back when `left`
/// bytes are left.
pub(crate) fn length_width(left: usize) -> usize {
    let left = left as u64;
    match left {
        0 => 0,
        1..=256 => 1,
        257..=65_537 => 2,
        _ if left <= u64::from(u32::MAX) + 4 => 4,
        _ => 8,
    }
}

/// Writes `value` (at most `max`) into `slot` the way `int_in_range`
/// reads it back: big-endian over the bytes the range `0..=max` needs, the
/// rest of the slot zero.
fn write_length(slot: &mut [u8], value: u64, max: usize) {
    slot.fill(0);
    let max = max as u64;
    let value = value.min(max);
    let used = (0..slot.len())
        .take_while(|&i| i < 8 && max >> (8 * i) > 0)
        .count();
    for (i, byte) in slot[..used].iter_mut().enumerate() {
        *byte = (value >> (8 * (used - 1 - i))) as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn front(kind: Kind, bytes: &[u8]) -> Piece {
        Piece::Front {
            kind,
            bytes: bytes.to_vec(),
        }
    }

    fn draw(kind: Kind, start: usize, len: usize, value: u64) -> Draw {
        Draw {
            kind,
            start,
            len,
            value,
        }
    }

    /// `String` then `bool`: length from the back, bytes, flag.
    #[test]
    fn a_string_and_a_flag_round_trip() {
        let input = b"abc\x01\x03";
        let draws = [
            draw(Kind::Length, 4, 1, 3),
            draw(Kind::Bytes, 0, 3, 0),
            draw(Kind::Fixed, 3, 1, 0),
        ];
        let layout = Layout::from_trace(input, &draws);
        assert_eq!(
            layout.pieces,
            [
                Piece::Length(3),
                front(Kind::Bytes, b"abc"),
                front(Kind::Fixed, b"\x01")
            ]
        );
        assert!(layout.slack.is_empty());
        assert_eq!(layout.encode(), input);
    }

    /// Every kind of draw in one input: a `Vec<u8>` taken with a length
    /// from the back (`L` + `B`), a `u16` (`F`, little-endian), a choice
    /// (`R`, big-endian), a `bool` and the rest, as slack.
    #[test]
    fn every_draw_kind_round_trips() {
        let input = b"hi\x34\x12\x00\x07\x01tail\x02";
        let draws = [
            draw(Kind::Length, 11, 1, 2),
            draw(Kind::Bytes, 0, 2, 0),
            draw(Kind::Fixed, 2, 2, 0),
            draw(Kind::Range, 4, 2, 0),
            draw(Kind::Fixed, 6, 1, 0),
        ];
        let layout = Layout::from_trace(input, &draws);
        assert_eq!(
            layout.pieces,
            [
                Piece::Length(2),
                front(Kind::Bytes, b"hi"),
                front(Kind::Fixed, b"\x34\x12"),
                front(Kind::Range, b"\x00\x07"),
                front(Kind::Fixed, b"\x01"),
            ]
        );
        assert_eq!(layout.slack, b"tail");
        assert_eq!(layout.pieces[2].value(), 0x1234);
        assert_eq!(layout.pieces[3].value(), 7);
        assert_eq!(layout.encode(), input);
    }

    #[test]
    fn a_shortened_string_gets_its_length_rewritten() {
        let layout = Layout {
            pieces: vec![
                Piece::Length(1),
                front(Kind::Bytes, b"a"),
                front(Kind::Fixed, b"\x01"),
            ],
            slack: Vec::new(),
        };
        assert_eq!(layout.encode(), b"a\x01\x01");
    }

    /// Two lengths: the first read is the last byte, the second the one
    /// before it.
    #[test]
    fn lengths_stack_up_from_the_back() {
        let layout = Layout {
            pieces: vec![
                Piece::Length(2),
                front(Kind::Bytes, b"ab"),
                Piece::Length(1),
                front(Kind::Bytes, b"c"),
            ],
            slack: Vec::new(),
        };
        assert_eq!(layout.encode(), b"abc\x01\x02");
    }

    /// At 257 bytes left a length takes two bytes, at 256 one: dropping a
    /// byte across the boundary narrows the length and moves every byte
    /// after the string.
    #[test]
    fn the_width_changes_at_the_256_byte_boundary() {
        let text = vec![b'x'; 255];
        let mut layout = Layout {
            pieces: vec![Piece::Length(255), front(Kind::Bytes, &text)],
            slack: vec![7],
        };
        // 255 + 1 slack + a 2-byte length = 258 bytes; 258 left at the read.
        let wide = layout.encode();
        assert_eq!(wide.len(), 258);
        assert_eq!(&wide[256..], [0, 255], "big-endian in two bytes");
        layout.pieces[1] = front(Kind::Bytes, &text[..254]);
        layout.pieces[0] = Piece::Length(254);
        let narrow = layout.encode();
        assert_eq!(narrow.len(), 256, "254 + slack + one byte");
        assert_eq!(narrow[255], 254);
        assert_eq!(narrow[254], 7, "the slack moved with the string");
    }

    #[test]
    fn the_width_follows_the_data_left_at_the_read() {
        assert_eq!(length_width(0), 0);
        assert_eq!(length_width(1), 1);
        assert_eq!(length_width(256), 1);
        assert_eq!(length_width(257), 2);
        assert_eq!(length_width(65_537), 2);
        assert_eq!(length_width(65_538), 4);
    }

    #[test]
    fn a_length_is_capped_by_the_data_left() {
        let layout = Layout {
            pieces: vec![Piece::Length(200)],
            slack: b"ab".to_vec(),
        };
        assert_eq!(layout.encode(), b"ab\x02");
    }

    #[test]
    fn a_length_read_from_one_byte_left_is_zero() {
        let layout = Layout {
            pieces: vec![Piece::Length(5)],
            slack: Vec::new(),
        };
        assert_eq!(layout.encode(), b"\x00");
    }

    #[test]
    fn draws_inside_other_draws_are_left_out() {
        let input = b"abcd";
        let draws = [
            draw(Kind::Bytes, 0, 3, 0),
            draw(Kind::Fixed, 1, 1, 0), // an Unstructured over "abc"
            draw(Kind::Fixed, 3, 1, 0),
        ];
        let layout = Layout::from_trace(input, &draws);
        assert_eq!(layout.pieces.len(), 2);
        assert_eq!(layout.encode(), input);
    }

    /// `"ab\xff…"` as a `&str` with a length of 4: only `ab` is taken.
    #[test]
    fn a_str_length_counts_what_the_str_took() {
        let input = b"ab\xffz\x04";
        let draws = [draw(Kind::Length, 4, 1, 4), draw(Kind::Bytes, 0, 2, 0)];
        let layout = Layout::from_trace(input, &draws);
        assert_eq!(layout.pieces[0], Piece::Length(2));
        assert_eq!(layout.slack, b"\xffz");
    }

    #[test]
    fn values_read_as_the_decoder_reads_them() {
        assert_eq!(
            front(Kind::Fixed, &[0, 0]).with_value(0x0201),
            front(Kind::Fixed, &[1, 2])
        );
        assert_eq!(
            front(Kind::Range, &[0, 0]).with_value(0x0102),
            front(Kind::Range, &[1, 2])
        );
        assert_eq!(front(Kind::Fixed, &[1, 2]).value(), 0x0201);
        assert_eq!(front(Kind::Range, &[1, 2]).value(), 0x0102);
        assert_eq!(front(Kind::Bytes, &[1, 2]).value(), 0);
        assert_eq!(Piece::Length(9).value(), 9);
    }
}
