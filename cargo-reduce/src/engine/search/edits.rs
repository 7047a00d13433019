//! The deterministic passes' edits, listed lazily in a fixed order.
//!
//! An edit is a small description ([`InputEdit`]); it becomes bytes only when
//! the search keeps it for a round. Each pass lists its edits under a
//! [`Key`] that grows along the list, so after an accepted edit the pass
//! resumes at the same key on the new input (a sweep, as ddmin's), instead
//! of starting over.

use std::ops::Range;

use super::order::parts_smaller;

/// Where an edit stands in its pass's order; compared lexicographically.
pub(super) type Key = [usize; 3];

/// The sizes the two-byte pass deletes: single bytes, then the 2–4 byte
/// sequences of a UTF-8 character.
const DELETE_SIZES: [usize; 4] = [1, 2, 3, 4];

/// The longest chunk the chunk pass deletes at every offset (ddmin only
/// tried chunks aligned to its splits, and single bytes).
pub(super) const MAX_CHUNK: usize = 8;

/// The longest repeated chunk the chunk pass looks for.
const MAX_REPEAT: usize = 256;

/// Inputs longer than this are not searched for repeats (a look at every
/// offset for every length).
const MAX_REPEAT_INPUT: usize = 1 << 16;

/// The chunk lengths the move pass moves: 1–8, then powers of two.
fn move_lengths(n: usize) -> impl Iterator<Item = usize> {
    (1..=MAX_CHUNK)
        .chain(std::iter::successors(Some(2 * MAX_CHUNK), |l| Some(l * 2)))
        .take_while(move |&l| l < n)
}

/// One change to the current input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum InputEdit {
    /// Remove `at`.
    Delete(Range<usize>),
    /// Remove `at` and give the byte at `byte` (outside `at`) the value
    /// `value`: a length field that counted the removed bytes.
    DeleteAdjust {
        /// The bytes removed.
        at: Range<usize>,
        /// The adjusted byte's index (in the input before the removal).
        byte: usize,
        /// Its new value.
        value: u8,
    },
    /// Replace `at` with a copy of `with` (before `at`, and shorter).
    Replace {
        /// The bytes replaced.
        at: Range<usize>,
        /// The bytes copied in their place.
        with: Range<usize>,
    },
    /// Move `chunk` so that it starts at `to` in the input without it.
    Move {
        /// The bytes moved.
        chunk: Range<usize>,
        /// Where they go, counted in the input without them.
        to: usize,
    },
}

impl InputEdit {
    /// True when the edit makes the input shorter (so smaller, whatever
    /// the values).
    pub(super) fn shrinks(&self) -> bool {
        !matches!(self, InputEdit::Move { .. })
    }

    /// The edited input as up to four slices (`byte` is a one-byte scratch
    /// for an adjusted value).
    fn parts<'a>(&self, b: &'a [u8], byte: &'a mut [u8; 1]) -> [&'a [u8]; 5] {
        match self {
            InputEdit::Delete(at) => [&b[..at.start], &b[at.end..], &[], &[], &[]],
            InputEdit::DeleteAdjust { at, byte: j, value } => {
                byte[0] = *value;
                let j = *j;
                let byte: &[u8] = byte;
                if j < at.start {
                    [&b[..j], byte, &b[j + 1..at.start], &b[at.end..], &[]]
                } else {
                    [&b[..at.start], &b[at.end..j], byte, &b[j + 1..], &[]]
                }
            }
            InputEdit::Replace { at, with } => {
                [&b[..at.start], &b[with.clone()], &b[at.end..], &[], &[]]
            }
            InputEdit::Move { chunk, to } => {
                let (s, e, to) = (chunk.start, chunk.end, *to);
                if to <= s {
                    [&b[..to], &b[s..e], &b[to..s], &b[e..], &[]]
                } else {
                    let d = e + (to - s);
                    [&b[..s], &b[e..d], &b[s..e], &b[d..], &[]]
                }
            }
        }
    }

    /// True when the edited input comes strictly before `b` (see
    /// [`super::order`]).
    pub(super) fn makes_smaller(&self, b: &[u8]) -> bool {
        self.shrinks() || parts_smaller(&self.parts(b, &mut [0]), b)
    }

    /// The edited input.
    #[cfg(test)]
    pub(super) fn apply(&self, b: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(b.len());
        self.apply_into(b, &mut out);
        out
    }

    /// The edited input, into `out` (cleared first), reusing its
    /// allocation.
    pub(super) fn apply_into(&self, b: &[u8], out: &mut Vec<u8>) {
        let mut scratch = [0];
        out.clear();
        for part in self.parts(b, &mut scratch) {
            out.extend_from_slice(part);
        }
    }
}

/// Tuning of the deterministic passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Reach {
    /// Length bytes tried within this distance of a deletion.
    pub window: usize,
    /// The input's last bytes, tried as length bytes for every deletion
    /// (where `arbitrary` reads its lengths).
    pub trailing: usize,
}

/// Coordinated two-byte edits: delete 1–4 bytes and lower another byte by
/// the count (or by one), as a length field that counted them would need.
/// The candidate length bytes are ranked: the trailing ones, last first
/// (where `arbitrary` reads lengths), then the window's, nearest first;
/// every deletion offset is tried with one rank before the next rank, so
/// a budget that stops the pass early has still tried each offset with
/// the likeliest length bytes. Keys: `[size, rank, deletion offset]`.
pub(super) fn two_byte(
    b: &[u8],
    from: Key,
    reach: Reach,
) -> impl Iterator<Item = (Key, InputEdit)> + '_ {
    let n = b.len();
    let ranks = reach.trailing + 2 * reach.window;
    (from[0]..DELETE_SIZES.len()).flat_map(move |s| {
        let k = DELETE_SIZES[s];
        let first_rank = if s == from[0] { from[1] } else { 0 };
        let last = if k < n { n - k + 1 } else { 0 };
        (first_rank..ranks).flat_map(move |r| {
            let first = if [s, r] == [from[0], from[1]] {
                from[2]
            } else {
                0
            };
            (first..last)
                .filter_map(move |i| partner(n, i..i + k, r, reach).map(|j| (i, j)))
                .flat_map(move |(i, j)| {
                    let v = b[j];
                    let by_count = v.checked_sub(k as u8);
                    let by_one = (k > 1).then(|| v.checked_sub(1)).flatten();
                    [by_count, by_one].into_iter().flatten().map(move |value| {
                        let edit = InputEdit::DeleteAdjust {
                            at: i..i + k,
                            byte: j,
                            value,
                        };
                        ([s, r, i], edit)
                    })
                })
        })
    })
}

/// The length byte of rank `r` for a deletion at `at`: the `r`-th byte from
/// the end while `r < trailing`, then, alternately before and after `at`,
/// the window's bytes nearest first (those in the trailing bytes were
/// tried already); never inside `at`.
fn partner(n: usize, at: Range<usize>, r: usize, reach: Reach) -> Option<usize> {
    let tail = n.saturating_sub(reach.trailing);
    let j = if r < reach.trailing {
        n.checked_sub(1 + r)?
    } else {
        let q = r - reach.trailing;
        let d = q / 2 + 1;
        let j = if q.is_multiple_of(2) {
            at.start.checked_sub(d)?
        } else {
            at.end - 1 + d
        };
        if j >= tail {
            return None;
        }
        j
    };
    (!at.contains(&j)).then_some(j)
}

/// Chunk deletions ddmin's splits did not try: one copy of a repeated
/// chunk (longest first, up to [`MAX_REPEAT`] bytes; adjacent copies; not
/// in inputs over [`MAX_REPEAT_INPUT`] bytes),
/// then every chunk of [`MAX_CHUNK`] down to 2 bytes at every offset.
/// Keys: `[0, MAX_REPEAT - length, offset]`, then `[1, MAX_CHUNK - length,
/// offset]`.
pub(super) fn chunks(b: &[u8], from: Key) -> impl Iterator<Item = (Key, InputEdit)> + '_ {
    let n = b.len();
    let longest = if n <= MAX_REPEAT_INPUT {
        (n / 2).min(MAX_REPEAT)
    } else {
        0
    };
    let repeats = (from[0] == 0)
        .then(|| (from[1]..MAX_REPEAT).map(|r| MAX_REPEAT - r))
        .into_iter()
        .flatten()
        .filter(move |&k| k <= longest && k > MAX_CHUNK)
        .flat_map(move |k| {
            let first = if MAX_REPEAT - k == from[1] && from[0] == 0 {
                from[2]
            } else {
                0
            };
            (first..=n - 2 * k)
                .filter(move |&i| b[i..i + k] == b[i + k..i + 2 * k])
                .map(move |i| ([0, MAX_REPEAT - k, i], InputEdit::Delete(i + k..i + 2 * k)))
        });
    let (start, at) = if from[0] == 1 {
        (from[1], from[2])
    } else {
        (0, 0)
    };
    let spans = (start..MAX_CHUNK - 1)
        .map(|r| (r, MAX_CHUNK - r))
        .filter(move |&(_, k)| k < n)
        .flat_map(move |(r, k)| {
            let first = if r == start { at } else { 0 };
            (first..=n - k).map(move |i| ([1, r, i], InputEdit::Delete(i..i + k)))
        });
    repeats.chain(spans)
}

/// The shortest run of one repeated byte the run pass deletes: shorter
/// ones are the chunk pass's.
const MIN_RUN: usize = MAX_CHUNK + 1;

/// How many bytes of its run a run deletion may leave: a run may begin
/// with bytes of the field before it that hold the fill value too.
const RUN_SLACK: usize = 3;

/// Long runs of one repeated byte deleted whole (or all but up to
/// [`RUN_SLACK`] bytes of them: the run's tail goes), alone, then with a
/// byte before the run lowered: each of its set bits cleared, highest
/// first, less by the count, or zero. Canonicalization fills every byte
/// a failure does not need with one value, so a block the format must
/// still hold (a GIF's colour table) ends up as such a run; the flag or
/// length field that announced it stops ddmin, which deletes one or the
/// other. The lowered byte is the window's, nearest first. Keys: `[run
/// start, distance · (RUN_SLACK + 1) + slack, value index]` (distance 0
/// adjusts no byte).
pub(super) fn runs(
    b: &[u8],
    from: Key,
    reach: Reach,
) -> impl Iterator<Item = (Key, InputEdit)> + '_ {
    let tries = (reach.window + 1) * (RUN_SLACK + 1);
    long_runs(b)
        .filter(move |run| run.start >= from[0])
        .flat_map(move |run| (0..tries).flat_map(move |t| run_edits(b, run.clone(), t)))
        .filter(move |(key, _)| *key >= from)
}

/// The edits of try `t` on `run` (see [`runs`]' keys).
fn run_edits(b: &[u8], run: Range<usize>, t: usize) -> Vec<(Key, InputEdit)> {
    let (distance, slack) = (t / (RUN_SLACK + 1), t % (RUN_SLACK + 1));
    let at = run.start + slack..run.end;
    let key = |vi| [run.start, t, vi];
    if distance == 0 {
        return vec![(key(0), InputEdit::Delete(at))];
    }
    let Some(byte) = run.start.checked_sub(distance) else {
        return Vec::new();
    };
    lowered(b[byte], at.len())
        .into_iter()
        .enumerate()
        .map(|(vi, value)| {
            let at = at.clone();
            (key(vi), InputEdit::DeleteAdjust { at, byte, value })
        })
        .collect()
}

/// Splices: a copy of the 1–4 bytes just before a long run (the opening
/// that introduced the block: an embedding or nesting character, a
/// count) in place of the whole run, or of as many bytes and one more at
/// either end of it. Nested once more, the run's bytes (or those after
/// it) may weigh more, so that the settling ddmin then deletes most of
/// them. Keys: `[run start, opening length, cut]`.
pub(super) fn splices(b: &[u8], from: Key) -> impl Iterator<Item = (Key, InputEdit)> + '_ {
    long_runs(b)
        .filter(move |run| run.start >= from[0])
        .flat_map(move |run| {
            (1..=MAX_OPENING.min(run.start)).flat_map(move |k| {
                let with = run.start - k..run.start;
                let cuts = [
                    run.clone(),
                    run.start..run.start + k + 1,
                    run.end - k - 1..run.end,
                ];
                cuts.into_iter().enumerate().map(move |(i, at)| {
                    let key = [with.end, k, i];
                    (
                        key,
                        InputEdit::Replace {
                            at,
                            with: with.clone(),
                        },
                    )
                })
            })
        })
        .filter(move |(key, _)| *key >= from)
}

/// The longest opening [`splices`] copies.
const MAX_OPENING: usize = 4;

/// The runs of one repeated byte in `b` of [`MIN_RUN`] bytes or more, in
/// order.
fn long_runs(b: &[u8]) -> impl Iterator<Item = Range<usize>> + '_ {
    b.chunk_by(|x, y| x == y)
        .scan(0, |start, run| {
            let at = *start..*start + run.len();
            *start = at.end;
            Some(at)
        })
        .filter(|run| run.len() >= MIN_RUN)
}

/// The values a flag or length byte `v` announcing `count` bytes may be
/// lowered to, likeliest first and each once: each set bit cleared
/// (a presence flag), highest first; less by the count (a length); zero.
fn lowered(v: u8, count: usize) -> Vec<u8> {
    let bits = (0..8)
        .rev()
        .filter(|bit| v & (1 << bit) != 0)
        .map(|bit| v & !(1 << bit));
    let by_count = u8::try_from(count).ok().and_then(|k| v.checked_sub(k));
    let mut values: Vec<u8> = Vec::new();
    for value in bits.chain(by_count).chain((v != 0).then_some(0)) {
        if !values.contains(&value) {
            values.push(value);
        }
    }
    values
}

/// Block moves: each chunk of [`move_lengths`] to every other offset.
/// Only the moves that make the input smaller are kept by the search.
/// Keys: `[length index, from, to]`.
pub(super) fn moves(b: &[u8], from: Key) -> impl Iterator<Item = (Key, InputEdit)> + '_ {
    let n = b.len();
    move_lengths(n)
        .enumerate()
        .skip(from[0])
        .flat_map(move |(li, len)| {
            let first = if li == from[0] { from[1] } else { 0 };
            (first..=n - len).flat_map(move |s| {
                (0..=n - len).filter(move |&to| to != s).map(move |to| {
                    let edit = InputEdit::Move {
                        chunk: s..s + len,
                        to,
                    };
                    ([li, s, to], edit)
                })
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_apply_as_described() {
        let b = b"abcdef";
        assert_eq!(InputEdit::Delete(1..3).apply(b), b"adef");
        let adjust = |at: Range<usize>, byte, value| InputEdit::DeleteAdjust { at, byte, value };
        assert_eq!(adjust(1..2, 5, b'x').apply(b), b"acdex");
        assert_eq!(adjust(3..5, 0, b'x').apply(b), b"xbcf");
        let mv = |chunk: Range<usize>, to| InputEdit::Move { chunk, to };
        assert_eq!(mv(3..5, 0).apply(b), b"deabcf");
        assert_eq!(mv(0..2, 3).apply(b), b"cdeabf");
        assert_eq!(mv(0..2, 4).apply(b), b"cdefab");
        assert!(mv(3..4, 0).makes_smaller(b"bca\x00"));
        assert!(!mv(0..1, 1).makes_smaller(b"abc"));
    }

    #[test]
    fn two_byte_edits_try_every_offset_with_the_last_byte_first() {
        let b = [b'a', b'b', 3, b'c', 2];
        let reach = Reach {
            window: 1,
            trailing: 1,
        };
        let all: Vec<_> = two_byte(&b, [0, 0, 0], reach).collect();
        let edit = |at: Range<usize>, byte, value| InputEdit::DeleteAdjust { at, byte, value };
        // Single bytes with the last byte (rank 0) at every offset but its own.
        assert_eq!(all[0], ([0, 0, 0], edit(0..1, 4, 1)));
        assert_eq!(all[3], ([0, 0, 3], edit(3..4, 4, 1)));
        // Then the byte before each deletion (rank 1), then after (rank 2).
        assert_eq!(all[4], ([0, 1, 1], edit(1..2, 0, b'a' - 1)));
        assert_eq!(all[7], ([0, 1, 4], edit(4..5, 3, b'c' - 1)));
        assert_eq!(all[8], ([0, 2, 0], edit(0..1, 1, b'b' - 1)));
        assert!(all.windows(2).all(|w| w[0].0 <= w[1].0), "keys grow");
        // Resuming at a key skips what lies before it.
        let resumed = two_byte(&b, [1, 0, 2], reach).next().unwrap();
        assert_eq!(resumed, ([1, 0, 2], edit(2..4, 4, 0)));
    }

    #[test]
    fn chunks_delete_repeats_then_every_short_span() {
        let b: Vec<u8> = [&[b'x'; 3][..], &[b'a'; 20], b"bc"].concat();
        let all: Vec<_> = chunks(&b, [0, 0, 0]).collect();
        assert_eq!(all[0], ([0, MAX_REPEAT - 10, 3], InputEdit::Delete(13..23)));
        let spans = all.iter().filter(|(k, _)| k[0] == 1).count();
        assert_eq!(
            spans,
            (2..=MAX_CHUNK).map(|k| b.len() - k + 1).sum::<usize>()
        );
        let resumed = chunks(&b, [1, MAX_CHUNK - 2, 5]).next().unwrap();
        assert_eq!(resumed, ([1, MAX_CHUNK - 2, 5], InputEdit::Delete(5..7)));
    }

    #[test]
    fn runs_go_whole_then_with_a_lowered_byte_before_them() {
        let b: Vec<u8> = [&b"a"[..], &[0x81], &[b'0'; 10], b"z"].concat();
        let reach = Reach {
            window: 2,
            trailing: 0,
        };
        let all: Vec<_> = runs(&b, [0, 0, 0], reach).collect();
        // The run 2..12 whole, then all but 1–3 of its bytes.
        assert_eq!(all[0], ([2, 0, 0], InputEdit::Delete(2..12)));
        assert_eq!(all[3], ([2, 3, 0], InputEdit::Delete(5..12)));
        // Then with the byte before it (0x81) lowered: its top bit cleared,
        // its low bit, less by the count (0x77), zero.
        let adjust = |at: Range<usize>, byte, value| InputEdit::DeleteAdjust { at, byte, value };
        let values: Vec<u8> = all
            .iter()
            .filter(|(k, _)| k[1] == 4)
            .map(|(_, e)| match e {
                InputEdit::DeleteAdjust { value, .. } => *value,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(values, [0x01, 0x80, 0x77, 0]);
        assert_eq!(all[4], ([2, 4, 0], adjust(2..12, 1, 0x01)));
        // Distance 2 is `a`; nothing before it.
        assert!(all
            .iter()
            .any(|(k, e)| k[1] == 8 && *e == adjust(2..12, 0, 0)));
        assert!(all.iter().all(|(k, _)| k[1] < 12));
        assert!(all.windows(2).all(|w| w[0].0 < w[1].0), "keys grow");
        // Resuming at a key skips what lies before it.
        let resumed: Vec<_> = runs(&b, [2, 4, 2], reach).collect();
        assert_eq!(resumed[0], ([2, 4, 2], adjust(2..12, 1, 0x77)));
        // Short runs are the chunk pass's.
        assert_eq!(runs(b"a00000000z", [0, 0, 0], reach).count(), 0);
    }

    #[test]
    fn moves_cover_every_chunk_and_destination() {
        let b = b"abcd";
        let all: Vec<_> = moves(b, [0, 0, 0]).collect();
        // Lengths 1..=3: 4·3 + 3·2 + 2·1 moves.
        assert_eq!(all.len(), 12 + 6 + 2);
        assert!(all.windows(2).all(|w| w[0].0 < w[1].0), "keys grow");
        let resumed: Vec<_> = moves(b, [1, 2, 0]).collect();
        assert_eq!(resumed.len(), 2 + 2);
    }
}
