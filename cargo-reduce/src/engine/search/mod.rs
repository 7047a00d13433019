//! Searches after ddmin and canonicalization: edits that a 1-minimal
//! ddmin cannot reach, affordable because an in-process test costs
//! microseconds.
//!
//! ddmin stops where every single deletion breaks the input. Formats that
//! count their own bytes stop it early: `arbitrary` reads lengths from the
//! *end* of the data, so deleting one byte of a string re-cuts every field
//! after it, and only a deletion *together with* a lowered length byte
//! keeps the failure. The passes, in the order a search round runs them:
//!
//! - `search-values`: delete every occurrence of one byte value that
//!   occurs more than once, rarest first: separators a format takes all
//!   or none of (a UUID's four hyphens), which ddmin deletes one at a
//!   time only;
//! - `search-splice`: a copy of the bytes just before a long run in place
//!   of the run or of a few bytes at either end of it: one nesting level
//!   more, so that the settling ddmin can delete most of a run the
//!   failure needed for its weight;
//! - `search-2byte`: delete 1–4 bytes and lower one trailing or nearby
//!   byte by as many (or by one) — a length field that counted them;
//! - `search-chunks`: delete one copy of a repeated chunk, then every chunk
//!   of 2–8 bytes at every offset (ddmin tried only its aligned splits);
//! - `search-runs`: delete a long run of one byte (a block that
//!   canonicalization filled) with a byte before it lowered: a flag or
//!   length field that announced the block;
//! - `search-move`: move a chunk elsewhere, when that makes the input
//!   smaller in the search's order;
//! - `search-mutate`: libFuzzer-style mutations that never grow the input
//!   (erase, lower or clear bits of a byte, copy a part over another,
//!   erase and adjust, shrink a binary or ASCII integer, shuffle a few
//!   bytes), drawn from a seeded generator; only in a round whose
//!   deterministic passes found nothing, as they are the cheaper way, and
//!   none once the oracle's verdicts were [`MUTATION_TIMEOUTS`] timeouts:
//!   each costs the whole timeout, and random edits of an input near an
//!   endless loop keep finding it.
//!
//! A candidate is accepted only if it is interesting *and* strictly
//! [`smaller`] (shorter, or as long and lower byte by byte, the fill
//! character counting as the lowest value), so the search ends. After a round that accepted anything, `search-settle` runs ddmin
//! over single bytes and canonicalization again, so the result is as
//! 1-minimal and canonical as ddmin's; a round that accepts nothing ends
//! the search.
//!
//! Candidates go to the oracle in rounds through
//! [`Context::first_interesting`], so a worker pool gets whole rounds and
//! the lowest interesting index wins: `-j N` gives what `-j 1` gives. The
//! budget counts *candidates considered* (up to and including a round's
//! winner), which does not depend on `jobs` or on what the cache happens
//! to hold; candidates the search already considered are not listed again.

mod edits;
mod mutate;
mod order;

#[cfg(test)]
mod tests;

use super::cache::ContentKeys;
use super::ddmin::ReduceError;
use super::values::by_rarity;
use super::{
    canonicalize, ddmin, Algorithm, Candidate, Context, DdminOptions, Oracle, OracleError, Start,
};
use edits::{InputEdit, Key, Reach};
use mutate::Rng;
pub(crate) use order::smaller;

/// How much a search may try. `candidates == 0` turns it off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Budget {
    /// Candidates considered by the search passes in all (settling not
    /// counted).
    pub candidates: u64,
    /// Bytes of those candidates in all: a large input gets fewer.
    pub bytes: u64,
    /// Candidates one deterministic pass considers per round at most (its
    /// most promising ones come first).
    pub per_pass: u64,
    /// Random mutations per round.
    pub mutations: u64,
    /// Edits a deterministic pass may look at per round, kept or not (the
    /// move pass looks at many it does not keep); fewer for a large input,
    /// as for `bytes`.
    pub scan: u64,
    /// How far the two-byte pass looks for a length byte.
    pub window: usize,
    /// The trailing bytes the two-byte pass tries as length bytes.
    pub trailing: usize,
}

impl Budget {
    /// No search.
    pub(crate) const NONE: Budget = Budget {
        candidates: 0,
        bytes: 0,
        per_pass: 0,
        mutations: 0,
        scan: 0,
        window: 0,
        trailing: 0,
    };
}

/// How a search runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SearchOptions {
    /// How much it may try.
    pub budget: Budget,
    /// The ddmin variant settling uses (from single atoms).
    pub ddmin: DdminOptions,
    /// Whether same-length candidates (lower values, moves) are tried, and
    /// canonicalization lowers values when settling; false where lower
    /// values make nothing plainer (out-of-memory failures).
    pub lower_values: bool,
    /// The mutations' seed.
    pub seed: u64,
}

/// The seed of every search unless told otherwise, so that results are
/// reproducible.
pub(crate) const SEED: u64 = 0x5eed_cafe_f00d_d00d;

/// The candidates a round holds at once at most, in bytes: a round is cut
/// into batches of this size.
const BATCH_BYTES: usize = 4 << 20;

/// The first batch of a sweep's list: a winner is often among the first
/// edits, and a batch's candidates are all made (and the cheap ones run)
/// before its winner is known. Each batch without one is twice as large,
/// up to the pass's room.
const FIRST_BATCH: u64 = 32;

/// Random candidates drawn per batch of the mutation pass.
const MUTATION_BATCH: u64 = 64;

/// Tries to draw a kept mutant per mutation wanted before giving up.
const MUTATION_TRIES: u64 = 8;

/// The oracle's timeouts ([`Oracle::timeouts`]) after which no batch of
/// mutations is drawn: a count of verdicts, so that the search does not
/// depend on the machine's speed or on `jobs`.
const MUTATION_TIMEOUTS: u64 = 16;

/// The search passes, in the order a round runs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    Values,
    Splices,
    TwoByte,
    Chunks,
    Runs,
    Moves,
    Mutate,
}

impl Pass {
    const ALL: [Pass; 7] = [
        Pass::Values,
        Pass::Splices,
        Pass::TwoByte,
        Pass::Chunks,
        Pass::Runs,
        Pass::Moves,
        Pass::Mutate,
    ];

    fn step(self) -> &'static str {
        match self {
            Pass::Values => "search-values",
            Pass::Splices => "search-splice",
            Pass::TwoByte => "search-2byte",
            Pass::Chunks => "search-chunks",
            Pass::Runs => "search-runs",
            Pass::Moves => "search-move",
            Pass::Mutate => "search-mutate",
        }
    }
}

/// Searches from `input` (known interesting, and best already reduced by
/// ddmin and canonicalized) for a smaller interesting input. Stops early,
/// keeping what it has, when a limit is reached; on an oracle error,
/// returns the best input so far with it.
pub(crate) fn search<O>(
    input: Vec<u8>,
    oracle: &O,
    options: &SearchOptions,
    ctx: &Context<'_, u8>,
) -> Result<Vec<u8>, ReduceError<u8>>
where
    O: Oracle<u8> + ?Sized,
{
    if options.budget.candidates == 0 {
        return Ok(input);
    }
    let mut search = SearchState {
        oracle,
        options,
        ctx,
        current: input,
        seen: ContentKeys::default(),
        spent: 0,
        spent_bytes: 0,
        rng: Rng::new(options.seed),
    };
    match search.run() {
        Ok(()) => Ok(search.current),
        Err(source) => Err(ReduceError {
            best: search.current,
            source,
        }),
    }
}

/// One search's state.
struct SearchState<'a, 'c, O: ?Sized> {
    oracle: &'a O,
    options: &'a SearchOptions,
    ctx: &'a Context<'c, u8>,
    /// The best input so far (interesting).
    current: Vec<u8>,
    /// Hashes of the candidates considered so far: an input's outcome
    /// does not change, so none is listed twice.
    seen: ContentKeys,
    /// Candidates considered so far.
    spent: u64,
    /// Their bytes.
    spent_bytes: u64,
    rng: Rng,
}

/// The candidates of one batch, end to end.
#[derive(Default)]
struct Batch {
    bytes: Vec<u8>,
    ends: Vec<usize>,
    hashes: Vec<u128>,
    /// `hashes` as a set: a batch holds hundreds of candidates.
    held: ContentKeys,
    keys: Vec<Key>,
}

impl Batch {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn get(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[start..self.ends[i]]
    }

    /// Adds `candidate` unless this batch has it already.
    fn push(&mut self, key: Key, candidate: &[u8], hash: u128) {
        if !self.held.insert(hash) {
            return;
        }
        self.bytes.extend_from_slice(candidate);
        self.ends.push(self.bytes.len());
        self.hashes.push(hash);
        self.keys.push(key);
    }
}

fn hash(bytes: &[u8]) -> u128 {
    Candidate::whole(bytes).content_hash()
}

impl<O: Oracle<u8> + ?Sized> SearchState<'_, '_, O> {
    fn run(&mut self) -> Result<(), OracleError> {
        loop {
            let mut found = false;
            for pass in Pass::ALL {
                if self.done() || (pass == Pass::Mutate && found) {
                    break;
                }
                if pass == Pass::Moves && !self.options.lower_values {
                    continue;
                }
                self.ctx.step(pass.step());
                found |= match pass {
                    Pass::Values => self.drop_values()?,
                    Pass::Mutate => self.mutate()?,
                    _ => self.sweep(pass)?,
                };
            }
            if found && !self.stopped() {
                self.settle()?;
            }
            if !found || self.done() {
                return Ok(());
            }
        }
    }

    /// A limit stopped the reduction.
    fn stopped(&self) -> bool {
        self.ctx.limits.stop_reason().is_some()
    }

    /// Stopped, or the budget is spent.
    fn done(&self) -> bool {
        self.stopped() || self.room() == 0
    }

    /// Candidates of the current input's size the budget still allows.
    fn room(&self) -> u64 {
        let budget = &self.options.budget;
        let count = budget.candidates.saturating_sub(self.spent);
        let bytes = budget.bytes.saturating_sub(self.spent_bytes);
        count.min(bytes / self.current.len().max(1) as u64)
    }

    /// The edits of a deterministic pass from `from` on.
    fn edits<'b>(
        &self,
        pass: Pass,
        b: &'b [u8],
        from: Key,
    ) -> Box<dyn Iterator<Item = (Key, InputEdit)> + 'b> {
        let budget = &self.options.budget;
        let reach = Reach {
            window: budget.window,
            trailing: budget.trailing,
        };
        match pass {
            Pass::Splices => Box::new(edits::splices(b, from)),
            Pass::TwoByte => Box::new(edits::two_byte(b, from, reach)),
            Pass::Chunks => Box::new(edits::chunks(b, from)),
            Pass::Runs => Box::new(edits::runs(b, from, reach)),
            Pass::Moves => Box::new(edits::moves(b, from)),
            Pass::Values | Pass::Mutate => Box::new(std::iter::empty()),
        }
    }

    /// Whether an edit of `b` may be accepted: it makes `b` smaller
    /// (shorter, when values must not be lowered).
    fn wanted(&self, edit: &InputEdit, b: &[u8]) -> bool {
        if self.options.lower_values {
            edit.makes_smaller(b)
        } else {
            edit.shrinks()
        }
    }

    /// One deterministic pass as a sweep: rounds of its edits in order;
    /// after an accepted one, the next round resumes at its key on the new
    /// input. Returns whether anything was accepted.
    fn sweep(&mut self, pass: Pass) -> Result<bool, OracleError> {
        let budget = self.options.budget;
        let mut from: Key = [0; 3];
        let mut considered = 0u64;
        let mut scanned = 0u64;
        // Looking at an edit may cost a pass over the input (a move's
        // comparison): a large input gets fewer looks.
        let scan = budget
            .scan
            .min(budget.bytes / self.current.len().max(1) as u64);
        let mut found = false;
        let mut candidate = Vec::new();
        'list: loop {
            let current = self.current.clone();
            let mut edits = self.edits(pass, &current, from);
            let mut size = FIRST_BATCH;
            loop {
                let room = self
                    .room()
                    .min(budget.per_pass.saturating_sub(considered))
                    .min(size);
                size = size.saturating_mul(2);
                let mut batch = Batch::default();
                while (batch.len() as u64) < room && batch.bytes.len() < BATCH_BYTES {
                    if scanned >= scan {
                        break;
                    }
                    let Some((key, edit)) = edits.next() else {
                        break;
                    };
                    scanned += 1;
                    if !self.wanted(&edit, &current) {
                        continue;
                    }
                    edit.apply_into(&current, &mut candidate);
                    let h = hash(&candidate);
                    if !self.seen.contains(&h) {
                        batch.push(key, &candidate, h);
                    }
                }
                if batch.len() == 0 {
                    return Ok(found);
                }
                let winner = self.try_batch(&batch)?;
                considered += winner.map_or(batch.len(), |w| w + 1) as u64;
                if let Some(w) = winner {
                    self.accept(batch.get(w).to_vec());
                    from = batch.keys[w];
                    found = true;
                    continue 'list;
                }
                if self.stopped() {
                    return Ok(found);
                }
            }
        }
    }

    /// The value pass: the current input without every occurrence of one
    /// byte value that occurs more than once (a value that occurs once is
    /// a single deletion, which ddmin tried), rarest value first, in
    /// batches; after an accepted one, the list starts again on the new
    /// input.
    fn drop_values(&mut self) -> Result<bool, OracleError> {
        let mut found = false;
        'list: loop {
            let current = self.current.clone();
            let mut values = by_rarity(&current)
                .into_iter()
                .filter(|(count, _)| *count > 1)
                .map(|(_, value)| value)
                .peekable();
            while values.peek().is_some() {
                let room = self.room();
                let mut batch = Batch::default();
                while (batch.len() as u64) < room && batch.bytes.len() < BATCH_BYTES {
                    let Some(value) = values.next() else {
                        break;
                    };
                    let candidate: Vec<u8> =
                        current.iter().copied().filter(|&b| b != value).collect();
                    let h = hash(&candidate);
                    if !candidate.is_empty() && !self.seen.contains(&h) {
                        batch.push([0; 3], &candidate, h);
                    }
                }
                if batch.len() == 0 {
                    break;
                }
                if let Some(w) = self.try_batch(&batch)? {
                    self.accept(batch.get(w).to_vec());
                    found = true;
                    continue 'list;
                }
                if self.done() {
                    break;
                }
            }
            return Ok(found);
        }
    }

    /// The mutation pass: batches of seeded random mutants of the current
    /// input, up to the round's number of mutations.
    fn mutate(&mut self) -> Result<bool, OracleError> {
        let mut left = self.options.budget.mutations;
        let mut found = false;
        while left > 0 && !self.done() && self.oracle.timeouts() < MUTATION_TIMEOUTS {
            let want = left.min(MUTATION_BATCH).min(self.room());
            let mut batch = Batch::default();
            let mut tries = 0;
            while (batch.len() as u64) < want && tries < want * MUTATION_TRIES {
                tries += 1;
                let Some(candidate) =
                    mutate::mutant(&self.current, &mut self.rng, self.options.lower_values)
                else {
                    continue;
                };
                let h = hash(&candidate);
                if !self.seen.contains(&h) {
                    batch.push([0; 3], &candidate, h);
                }
            }
            if batch.len() == 0 {
                break;
            }
            let winner = self.try_batch(&batch)?;
            left = left.saturating_sub(winner.map_or(batch.len(), |w| w + 1) as u64);
            if let Some(w) = winner {
                self.accept(batch.get(w).to_vec());
                found = true;
            }
        }
        Ok(found)
    }

    /// Tests `batch` as one round; charges the budget for the candidates
    /// up to the winner (all of them, without one) and remembers them.
    fn try_batch(&mut self, batch: &Batch) -> Result<Option<usize>, OracleError> {
        let winner = self.ctx.first_interesting(self.oracle, batch.len(), &|i| {
            Candidate::whole(batch.get(i))
        })?;
        let considered = winner.map_or(batch.len(), |w| w + 1);
        self.spent += considered as u64;
        self.spent_bytes += batch.ends[considered - 1] as u64;
        self.seen.extend(&batch.hashes[..considered]);
        Ok(winner)
    }

    fn accept(&mut self, candidate: Vec<u8>) {
        debug_assert!(smaller(&candidate, &self.current));
        self.current = candidate;
        self.ctx.observer.reduced(&self.current);
    }

    /// ddmin over single bytes, then canonicalization, on the current
    /// input: what the passes changed may have made bytes removable or
    /// lower values possible.
    fn settle(&mut self) -> Result<(), OracleError> {
        self.ctx.step("search-settle");
        // A single-atom sweep is ddmin's: the settling it is for is 1-minimality.
        let options = DdminOptions {
            start: Start::Atoms,
            algorithm: Algorithm::Ddmin,
            ..self.options.ddmin
        };
        let input = std::mem::take(&mut self.current);
        match ddmin(input, self.oracle, &options, self.ctx) {
            Ok(reduced) => self.current = reduced.atoms,
            Err(ReduceError { best, source }) => {
                self.current = best;
                return Err(source);
            }
        }
        if self.stopped() {
            return Ok(());
        }
        self.current = canonicalize(
            self.current.clone(),
            self.oracle,
            self.options.lower_values,
            self.ctx,
        )?;
        self.ctx.observer.reduced(&self.current);
        Ok(())
    }
}
