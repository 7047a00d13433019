//! The typed reduction: rounds of edits to the decoded draws of an input,
//! each candidate encoded back into bytes ([`Layout::encode`]) and tested.
//!
//! The passes, in the order a round runs them:
//! - `typed-lower`: each integer, flag, tag and collection length lowered
//!   as far as it goes, by a search over its values, then the values
//!   several draws hold alike lowered together (a key inserted and then
//!   removed). It comes first because a value is often a size the target
//!   acts on (a count of elements to build), and every test of the other
//!   passes pays for it;
//! - `typed-drop`: ddmin over the draws, then every run of 2 to `window`
//!   consecutive draws: an element of a collection is its "one more" flag
//!   and its own draws, a run ddmin's aligned splits seldom hit;
//! - `typed-fields`: each byte string and `str` shrunk by ddmin over its
//!   characters (bytes, if it is not UTF-8), its length rewritten, then by
//!   every run of 2 to `window` characters removed (a record of a binary
//!   format inside a byte string, which ddmin's aligned splits seldom
//!   hit); the slack (what `take_rest` took) likewise;
//! - `typed-cut`: a flag or enum tag set to zero *and* the draws after it
//!   dropped: `Some(x)` to `None`, a variant to the first one, a collection
//!   ended early;
//! - `typed-chars`: each character of each `str` lowered, by a search over
//!   code points; last, when the fields are as short as they get.
//!
//! After every accepted candidate the input is decoded again: what the
//! decoder makes of the new bytes, not what the edit meant, is the next
//! round's starting point. A round that accepts nothing ends the
//! reduction, as does the test budget.

use std::ops::Range;

use crate::engine::ddmin::ReduceError;
use crate::engine::{ddmin, Candidate, Context, Counters, DdminOptions, Oracle, OracleError};

use super::encoded::Encoded;
use super::layout::{Layout, Piece};
use super::settled::Settled;
use super::trace::Kind;
use super::Decoder;

/// How a typed reduction runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TypedOptions {
    /// Tests it may run, plus candidates it may accept, in all (0 turns
    /// it off).
    pub budget: u64,
    /// The longest run of draws `typed-drop` and `typed-cut` remove at once.
    pub window: usize,
    /// The ddmin variant the drop and field passes use.
    pub ddmin: DdminOptions,
    /// Whether values may be lowered at equal length (not for
    /// out-of-memory failures, where lower sizes make nothing plainer).
    pub lower_values: bool,
}

/// The passes, in the order a round runs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    Lower,
    Drop,
    Fields,
    Cut,
    Chars,
}

impl Pass {
    const ALL: [Pass; 5] = [
        Pass::Lower,
        Pass::Drop,
        Pass::Fields,
        Pass::Cut,
        Pass::Chars,
    ];

    fn step(self) -> &'static str {
        match self {
            Pass::Lower => "typed-lower",
            Pass::Drop => "typed-drop",
            Pass::Fields => "typed-fields",
            Pass::Cut => "typed-cut",
            Pass::Chars => "typed-chars",
        }
    }

    /// Whether the pass lowers values at equal length.
    fn lowers(self) -> bool {
        matches!(self, Pass::Lower | Pass::Chars)
    }
}

/// Reduces `input` (known interesting) by editing what it decodes to.
/// Returns it unchanged when `decoder` cannot decode it; on an oracle
/// error, returns the best input so far with it.
pub(crate) fn reduce<O, D>(
    input: Vec<u8>,
    oracle: &O,
    decoder: &D,
    options: &TypedOptions,
    ctx: &Context<'_, u8>,
) -> Result<Vec<u8>, ReduceError<u8>>
where
    O: Oracle<u8> + ?Sized,
    D: Decoder + ?Sized,
{
    let mut run = Run {
        oracle,
        decoder,
        options,
        ctx,
        first_test: ctx.counters.tests(),
        accepted: 0,
        current: input,
        layout: Layout::default(),
        settled: Settled::default(),
        settled_together: Settled::default(),
    };
    match run.rounds() {
        Ok(()) => Ok(run.current),
        Err(source) => Err(ReduceError {
            best: run.current,
            source,
        }),
    }
}

/// One typed reduction's state.
pub(super) struct Run<'a, 'c, O: ?Sized, D: ?Sized> {
    oracle: &'a O,
    decoder: &'a D,
    options: &'a TypedOptions,
    ctx: &'a Context<'c, u8>,
    first_test: u64,
    /// Candidates accepted so far. They count against the budget too: an
    /// accepted candidate the cache answered costs no test, and a cycle of
    /// such (an edit undone by a later one after the input re-decodes
    /// differently) must still end.
    accepted: u64,
    /// The best input so far (interesting).
    current: Vec<u8>,
    /// What it decodes to.
    pub(super) layout: Layout,
    /// Where `typed-lower`'s searches ended.
    pub(super) settled: Settled,
    /// And its searches of values held alike, by the first draw.
    pub(super) settled_together: Settled,
}

impl<O: Oracle<u8> + ?Sized, D: Decoder + ?Sized> Run<'_, '_, O, D> {
    fn rounds(&mut self) -> Result<(), OracleError> {
        if self.options.budget == 0 || !self.decode()? {
            return Ok(());
        }
        loop {
            let mut found = false;
            for pass in Pass::ALL {
                if self.done() {
                    return Ok(());
                }
                if pass.lowers() && !self.options.lower_values {
                    continue;
                }
                self.ctx.step(pass.step());
                found |= match pass {
                    Pass::Lower => self.lower_values()?,
                    Pass::Drop => self.drop_draws()?,
                    Pass::Fields => self.fields()?,
                    Pass::Cut => self.cut()?,
                    Pass::Chars => self.lower_chars()?,
                };
            }
            if !found {
                return Ok(());
            }
        }
    }

    /// Decodes the current input into `layout`; false if it does not
    /// decode (then there is nothing to edit).
    fn decode(&mut self) -> Result<bool, OracleError> {
        self.layout = match self.decoder.decode(&self.current)? {
            Some(decoded) => Layout::from_trace(&self.current, &decoded.draws),
            None => Layout::default(),
        };
        Ok(!self.layout.pieces.is_empty() || !self.layout.slack.is_empty())
    }

    pub(super) fn done(&self) -> bool {
        self.ctx.limits.stop_reason().is_some() || self.tests_left() == 0
    }

    /// Makes `bytes` (interesting, and smaller) the current input.
    fn accept(&mut self, bytes: Vec<u8>) -> Result<(), OracleError> {
        self.accepted += 1;
        self.current = bytes;
        self.ctx.observer.reduced(&self.current);
        self.decode()?;
        Ok(())
    }

    /// Tests `candidates` (in order, only those shorter than the current
    /// input, or as long if `same_length` is allowed) and accepts the
    /// first interesting one. Returns its index in `candidates`.
    pub(super) fn first_of(
        &mut self,
        candidates: Vec<Vec<u8>>,
        same_length: bool,
    ) -> Result<Option<usize>, OracleError> {
        let len = self.current.len();
        let (mut at, mut kept): (Vec<usize>, Vec<Vec<u8>>) = candidates
            .into_iter()
            .enumerate()
            .filter(|(_, c)| c.len() < len || (same_length && c.len() == len && *c != self.current))
            .unzip();
        if kept.is_empty() || self.done() {
            return Ok(None);
        }
        let winner = self
            .ctx
            .first_interesting(self.oracle, kept.len(), &|i| Candidate::whole(&kept[i]))?;
        match winner {
            Some(w) => {
                self.accept(kept.swap_remove(w))?;
                Ok(Some(at.swap_remove(w)))
            }
            None => Ok(None),
        }
    }

    /// ddmin over `atoms`, each candidate encoded by `encode`; accepts the
    /// result if it encodes shorter than the current input and passed the
    /// oracle. ddmin's result with atoms removed did; with none removed it
    /// is the whole layout encoded again, which need not give back the
    /// current bytes (the encoding picks the smallest consistent lengths)
    /// and never ran: it is tested first.
    fn ddmin_encoded<A, F>(&mut self, atoms: Vec<A>, encode: F) -> Result<bool, OracleError>
    where
        A: Clone + std::hash::Hash + Eq + Sync + Send,
        F: Fn(&[A]) -> Vec<u8> + Sync,
    {
        let counters = Counters::default();
        let encoded = Encoded::new(self.oracle, self.ctx, &encode);
        let all = atoms.len();
        let reduced = ddmin(
            atoms,
            &encoded,
            &self.options.ddmin,
            &encoded.context(&counters),
        );
        let (atoms, error) = match reduced {
            Ok(reduction) => (reduction.atoms, None),
            Err(ReduceError { best, source }) => (best, Some(source)),
        };
        let bytes = encode(&atoms);
        let tested = atoms.len() < all;
        let shorter = match (tested, &error) {
            _ if bytes.len() >= self.current.len() => false,
            (true, _) => {
                self.accept(bytes)?;
                true
            }
            (false, None) => self.first_of(vec![bytes], false)?.is_some(),
            (false, Some(_)) => false,
        };
        match error {
            Some(source) => Err(source),
            None => Ok(shorter),
        }
    }

    /// `typed-drop`.
    fn drop_draws(&mut self) -> Result<bool, OracleError> {
        let pieces = self.layout.pieces.clone();
        let slack = self.layout.slack.clone();
        let encode = |kept: &[usize]| {
            Layout {
                pieces: kept.iter().map(|&i| pieces[i].clone()).collect(),
                slack: slack.clone(),
            }
            .encode()
        };
        let found = self.ddmin_encoded((0..pieces.len()).collect(), encode)?;
        let draws = |run: &Self| Some(run.layout.pieces.len());
        let without = |run: &Self, drop: Range<usize>| run.edited(drop.start, None, drop);
        Ok(self.drop_runs(draws, without)? || found)
    }

    /// Every run of 2 to `window` consecutive units removed, longest
    /// first, each length a sweep from the first offset on that resumes
    /// where a removal was kept. `units` counts the units of the current
    /// input (`None`: nothing to remove from any more), `without` encodes
    /// it without some; a round holds no more candidates than the budget
    /// has tests left.
    fn drop_runs(
        &mut self,
        units: impl Fn(&Self) -> Option<usize>,
        without: impl Fn(&Self, Range<usize>) -> Vec<u8>,
    ) -> Result<bool, OracleError> {
        let mut found = false;
        for run in (2..=self.options.window).rev() {
            let mut from = 0;
            while !self.done() {
                let Some(n) = units(self).filter(|&n| from + run <= n) else {
                    break;
                };
                let candidates = (from..=n - run)
                    .take(self.tests_left())
                    .map(|i| without(self, i..i + run))
                    .collect();
                match self.first_of(candidates, false)? {
                    // The next run to try starts where the removed one did.
                    Some(w) => from += w,
                    None => break,
                }
                found = true;
            }
        }
        Ok(found)
    }

    /// The current layout with draw `at` set to `value` (if one is
    /// given) and the draws `drop` removed, encoded.
    pub(super) fn edited(
        &self,
        at: usize,
        value: Option<u128>,
        drop: std::ops::Range<usize>,
    ) -> Vec<u8> {
        let mut layout = self.layout.clone();
        if let Some(value) = value {
            layout.pieces[at] = layout.pieces[at].with_value(value);
        }
        layout.pieces.drain(drop);
        layout.encode()
    }

    /// `typed-fields`.
    fn fields(&mut self) -> Result<bool, OracleError> {
        let mut found = false;
        let mut at = 0;
        while !self.done() && at < self.layout.pieces.len() {
            if let Piece::Front {
                kind: Kind::Bytes,
                bytes,
            } = &self.layout.pieces[at]
            {
                if bytes.len() > 1 || (bytes.len() == 1 && self.governed(at)) {
                    found |= self.shrink_field(Some(at))?;
                }
            }
            at += 1;
        }
        if !self.done() && !self.layout.slack.is_empty() {
            found |= self.shrink_field(None)?;
        }
        Ok(found)
    }

    /// Whether the byte string at `at` follows the length that counts it.
    pub(super) fn governed(&self, at: usize) -> bool {
        let Piece::Front { bytes, .. } = &self.layout.pieces[at] else {
            return false;
        };
        at > 0 && matches!(self.layout.pieces[at - 1], Piece::Length(v) if v >= bytes.len() as u64)
    }

    /// ddmin over the characters of the byte string at `at` (the slack
    /// for `None`), its length rewritten with every candidate; then runs
    /// of its characters removed ([`Self::drop_field_runs`]).
    fn shrink_field(&mut self, at: Option<usize>) -> Result<bool, OracleError> {
        let Some(bytes) = self.field(at) else {
            return Ok(false);
        };
        let layout = self.layout.clone();
        let governed = at.is_some_and(|at| self.governed(at));
        let with = move |field: Vec<u8>| with_field(&layout, at, governed, field);
        let found = match std::str::from_utf8(&bytes) {
            Ok(text) => self.ddmin_encoded(text.chars().collect(), |chars: &[char]| {
                with(chars.iter().collect::<String>().into_bytes())
            }),
            Err(_) => self.ddmin_encoded(bytes, |b: &[u8]| with(b.to_vec())),
        }?;
        Ok(self.drop_field_runs(at)? || found)
    }

    /// The byte string at `at` (the slack for `None`), if `at` holds one.
    fn field(&self, at: Option<usize>) -> Option<Vec<u8>> {
        match at {
            Some(at) => match self.layout.pieces.get(at)? {
                Piece::Front {
                    kind: Kind::Bytes,
                    bytes,
                } => Some(bytes.clone()),
                _ => None,
            },
            None => Some(self.layout.slack.clone()),
        }
    }

    /// Every run of 2 to `window` characters of the byte string at `at`
    /// (the slack for `None`) removed ([`Self::drop_runs`]).
    fn drop_field_runs(&mut self, at: Option<usize>) -> Result<bool, OracleError> {
        let chars = |run: &Self| run.field(at).map(|field| starts(&field).len() - 1);
        let without = |run: &Self, drop: Range<usize>| {
            let field = run.field(at).unwrap_or_default();
            let starts = starts(&field);
            let kept = [&field[..starts[drop.start]], &field[starts[drop.end]..]].concat();
            let governed = at.is_some_and(|at| run.governed(at));
            with_field(&run.layout, at, governed, kept)
        };
        self.drop_runs(chars, without)
    }

    /// Tests the budget allows from now on.
    fn tests_left(&self) -> usize {
        let spent = self.ctx.counters.tests() - self.first_test + self.accepted;
        usize::try_from(self.options.budget.saturating_sub(spent)).unwrap_or(usize::MAX)
    }

    /// `typed-cut`.
    fn cut(&mut self) -> Result<bool, OracleError> {
        let mut found = false;
        let mut at = 0;
        while !self.done() && at + 1 < self.layout.pieces.len() {
            if is_switch(&self.layout.pieces[at]) {
                let last = (at + self.options.window).min(self.layout.pieces.len() - 1);
                let candidates = (at + 1..=last)
                    .rev()
                    .map(|end| self.edited(at, Some(0), at + 1..end + 1))
                    .collect();
                if self.first_of(candidates, false)?.is_some() {
                    found = true;
                    continue;
                }
            }
            at += 1;
        }
        Ok(found)
    }
}

/// `layout` with `field` as the byte string at `at` (the slack for
/// `None`), and as the length that counts it when it is `governed`,
/// encoded.
fn with_field(layout: &Layout, at: Option<usize>, governed: bool, field: Vec<u8>) -> Vec<u8> {
    let mut layout = layout.clone();
    match at {
        Some(at) => {
            if governed {
                layout.pieces[at - 1] = Piece::Length(field.len() as u64);
            }
            layout.pieces[at] = Piece::Front {
                kind: Kind::Bytes,
                bytes: field,
            };
        }
        None => layout.slack = field,
    }
    layout.encode()
}

/// Where the characters of `field` start, and its end: its UTF-8
/// characters if it is text (so a `str` stays one), else its bytes.
fn starts(field: &[u8]) -> Vec<usize> {
    match std::str::from_utf8(field) {
        Ok(text) => text
            .char_indices()
            .map(|(i, _)| i)
            .chain([field.len()])
            .collect(),
        Err(_) => (0..=field.len()).collect(),
    }
}

/// A flag or enum tag: a one-byte or four-byte `fill_buffer` (`bool`,
/// the "one more element" flag, a derived enum's `u32` tag) or a choice
/// (`int_in_range`), when it is not zero already.
fn is_switch(piece: &Piece) -> bool {
    match piece {
        Piece::Front {
            kind: Kind::Fixed,
            bytes,
        } => matches!(bytes.len(), 1 | 4) && piece.value() > 0,
        Piece::Front {
            kind: Kind::Range, ..
        } => piece.value() > 0,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Reducer;
    use crate::typed::Decoded;

    /// Decodes every input as one `take_rest` of bytes: all slack.
    struct AllSlack;

    impl Decoder for AllSlack {
        fn decode(&self, _: &[u8]) -> Result<Option<Decoded>, OracleError> {
            Ok(Some(Decoded {
                draws: Vec::new(),
                debug: None,
            }))
        }
    }

    fn options(window: usize) -> TypedOptions {
        TypedOptions {
            budget: 5_000,
            window,
            ddmin: DdminOptions::default(),
            lower_values: true,
        }
    }

    /// Decodes an input as `arbitrary` decodes a `Vec<u8>`: a length from
    /// the back, one byte wide with up to 256 bytes left, else two
    /// ([`length_width`]), then that many bytes.
    ///
    /// [`length_width`]: crate::typed::layout::length_width
    struct LengthThenBytes;

    impl Decoder for LengthThenBytes {
        fn decode(&self, input: &[u8]) -> Result<Option<Decoded>, OracleError> {
            use crate::typed::trace::Draw;
            let width = crate::typed::layout::length_width(input.len());
            let Some(rest) = input.len().checked_sub(width) else {
                return Ok(None);
            };
            let draw = |kind, start, len, value| Draw {
                kind,
                start,
                len,
                value,
            };
            let draws = vec![
                draw(Kind::Length, rest, width, rest as u64),
                draw(Kind::Bytes, 0, rest, 0),
            ];
            Ok(Some(Decoded { draws, debug: None }))
        }
    }

    /// Dropping no draw re-encodes the whole input, with its length one
    /// byte narrower: shorter, but another input, which must pass the
    /// oracle before it is taken (it reads its length with 256 bytes left
    /// where the original had 257: another branch of the decoding).
    #[test]
    fn an_input_encoded_anew_is_taken_only_if_it_is_interesting() {
        let test = |c: &Candidate<'_, u8>| c.to_vec().len() >= 257;
        let run = Reducer::new();
        let input = vec![7u8; 257];
        let reduced = reduce(
            input.clone(),
            &test,
            &LengthThenBytes,
            &options(8),
            &run.context(),
        )
        .unwrap();
        assert_eq!(reduced, input);
    }

    #[test]
    fn a_str_is_cut_between_characters_and_bytes_anywhere() {
        assert_eq!(starts("aé😀".as_bytes()), [0, 1, 3, 7]);
        assert_eq!(starts(&[0xff, 0x61]), [0, 1, 2]);
        assert_eq!(starts(b""), [0]);
    }

    /// A byte string of 5-byte records around the bug's: only whole
    /// records may go, which ddmin's aligned splits of 13 bytes never
    /// cut; a run of 5 at every offset does.
    #[test]
    fn a_record_inside_a_byte_string_is_dropped_whole() {
        let records =
            |b: &[u8]| b.windows(3).any(|w| w == b"BUG") && (b.len() - 3).is_multiple_of(5);
        let test = |c: &Candidate<'_, u8>| records(&c.to_vec());
        let reduce_with = |window| {
            let run = Reducer::new();
            reduce(
                b"AAAAABUGCCCCC".to_vec(),
                &test,
                &AllSlack,
                &options(window),
                &run.context(),
            )
            .unwrap()
        };
        assert_eq!(reduce_with(8), b"BUG");
        assert_eq!(
            reduce_with(4),
            b"AAAAABUGCCCCC",
            "runs up to the window only"
        );
    }
}
