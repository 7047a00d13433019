//! `--shrink`: each kept input reduced while it keeps the features it is
//! kept for (afl-tmin's non-crash mode, in the persistent coverage pool):
//! bytes by ddmin, then a typed target's values by the typed reduction,
//! whose draws come from the plain build's decoder (the coverage build has
//! no recording `arbitrary`). Cover and shrink alternate until a round
//! changes nothing, so a second run on the output changes nothing either.

use std::collections::HashMap;

use crate::engine::{
    ddmin, Cancel, Candidate, Context, Counters, DdminOptions, Limits, Oracle, OracleError,
    Outcome as Verdict, OutcomeCache, RoundOracle, StopReason,
};
use crate::fuzz::pool::{CoveragePool, DecodeCrew, Outcome, PoolError, Replayed};
use crate::fuzz::project::sha1_hex;
use crate::job::View;
use crate::typed::{self, TypedOptions};

use super::cover::{self, Item};

/// The typed reduction's budget per input (tests plus accepted
/// candidates), as `--effort default` gives a crash input.
const TYPED_BUDGET: u64 = 5_000;

/// One input of the set being shrunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    pub bytes: Vec<u8>,
    pub sha1: String,
    pub features: Vec<u32>,
}

impl Entry {
    pub(super) fn new(bytes: Vec<u8>, features: Vec<u32>) -> Self {
        let sha1 = sha1_hex(&bytes);
        Entry {
            bytes,
            sha1,
            features,
        }
    }
}

/// What every shrink of one target runs with.
pub(super) struct Shrinker<'a> {
    pub pool: &'a CoveragePool,
    /// A typed target's decoder (from its plain build).
    pub decoder: Option<&'a DecodeCrew>,
    /// Every feature of the whole corpus: no shrunk input may have another.
    pub allowed: &'a [u32],
    pub jobs: usize,
    pub ddmin: DdminOptions,
    pub limits: &'a Limits,
    /// Where the inputs shrunk so far are counted (a progress bar).
    pub view: &'a dyn View,
    /// Told of each round as it ends.
    pub round_ended: &'a dyn Fn(&Round),
}

/// What one round did to the set.
pub(super) struct Round {
    /// From 1.
    pub number: usize,
    /// Inputs of the set after it.
    pub files: usize,
    /// The set's bytes before it.
    pub bytes_before: usize,
    /// And after.
    pub bytes_after: usize,
}

/// The set at its fixed point, or where the limits stopped it, and how
/// many rounds it took.
pub(super) struct Converged {
    pub set: Vec<Entry>,
    pub rounds: usize,
    /// What stopped the rounds short of the fixed point.
    pub stopped: Option<StopReason>,
}

impl Shrinker<'_> {
    /// Shrinks `set` (a cover of the corpus) to a fixed point: each input
    /// shrunk under the features [`cover::assign`] gives it, the result
    /// replayed and covered again, until a round neither shrinks an input
    /// nor drops one. A shrink's result is remembered by (input, features
    /// kept), so a round redoes only inputs whose bytes or assignment
    /// changed. The limits (`--max-time`, Ctrl-C) stop it at the round's
    /// end with a set that keeps every feature.
    ///
    /// No cap on rounds: a round that goes on to another has shrunk an
    /// input (the set's bytes fall) or dropped one (its files fall, its
    /// bytes do not grow), so the rounds end. A cap had stopped a set that
    /// needed more rounds short of its fixed point, and a second run went
    /// on shrinking it.
    pub(super) fn converge(&self, mut set: Vec<Entry>) -> Result<Converged, OracleError> {
        let mut memo: HashMap<(String, Vec<u32>), Vec<u8>> = HashMap::new();
        for round in 1.. {
            let assigned = cover::assign(&items(&set), &(0..set.len()).collect::<Vec<_>>());
            let mut shrunk = Vec::with_capacity(set.len());
            for (done, (entry, keep)) in set.iter().zip(assigned).enumerate() {
                self.view.counted("shrink", done, set.len());
                let key = (entry.sha1.clone(), keep);
                let bytes = match memo.get(&key) {
                    Some(bytes) => bytes.clone(),
                    None => {
                        let bytes = self.shrink_one(&entry.bytes, &key.1)?;
                        memo.insert(key.clone(), bytes.clone());
                        bytes
                    }
                };
                shrunk.push((bytes, key.1));
            }
            let changed = shrunk.iter().zip(&set).any(|(s, e)| s.0 != e.bytes);
            // Two inputs shrunk to the same bytes are one file.
            let mut seen = std::collections::HashSet::new();
            shrunk.retain(|(bytes, _)| seen.insert(bytes.clone()));
            let Some(next) = self.replayed(&shrunk)? else {
                return Ok(unreplayed(shrunk, round, self.stopped()));
            };
            let kept = cover::minimize(&items(&next), self.jobs);
            let dropped = kept.len() < next.len();
            let bytes_before = bytes(&set);
            set = kept.into_iter().map(|i| next[i].clone()).collect();
            (self.round_ended)(&Round {
                number: round,
                files: set.len(),
                bytes_before,
                bytes_after: bytes(&set),
            });
            let fixed = !changed && !dropped;
            if fixed || self.limits.should_stop() {
                return Ok(Converged {
                    set,
                    rounds: round,
                    stopped: (!fixed).then(|| self.stopped()),
                });
            }
        }
        unreachable!("the rounds end: each one that goes on makes the set smaller")
    }

    /// `bytes` reduced while it passes with every feature of `keep` and
    /// none outside the corpus's; `bytes` itself unless the result is
    /// shorter.
    fn shrink_one(&self, bytes: &[u8], keep: &[u32]) -> Result<Vec<u8>, OracleError> {
        let oracle = KeepsFeatures {
            pool: self.pool,
            keep,
            allowed: self.allowed,
            longest: bytes.len(),
        };
        let cache = OutcomeCache::new();
        let counters = Counters::default();
        let ctx = Context {
            jobs: self.jobs,
            limits: self.limits,
            cache: Some(&cache),
            counters: &counters,
            observer: &(),
        };
        let reduced = ddmin(bytes.to_vec(), &oracle, &self.ddmin, &ctx).map_err(|e| e.source)?;
        let mut best = reduced.atoms;
        if let Some(decoder) = self.decoder.filter(|_| self.limits.stop_reason().is_none()) {
            let options = TypedOptions {
                budget: TYPED_BUDGET,
                window: 8,
                ddmin: self.ddmin,
                // Only shorter: a lowered value is no smaller a corpus.
                lower_values: false,
            };
            best = typed::reduce(best, &oracle, decoder, &options, &ctx).map_err(|e| e.source)?;
        }
        Ok(match best.len() < bytes.len() {
            true => best,
            false => bytes.to_vec(),
        })
    }

    /// What stopped the limits (Ctrl-C when the pool was stopped first).
    fn stopped(&self) -> StopReason {
        self.limits.stop_reason().unwrap_or(StopReason::Interrupted)
    }

    /// The shrunk inputs replayed, with their features (a superset of
    /// what each keeps; its others may have gone); `None` once the limits
    /// stopped the shrink, or Ctrl-C the replay.
    fn replayed(&self, shrunk: &[(Vec<u8>, Vec<u32>)]) -> Result<Option<Vec<Entry>>, PoolError> {
        if self.limits.should_stop() {
            return Ok(None);
        }
        let refs: Vec<&[u8]> = shrunk.iter().map(|(bytes, _)| bytes.as_slice()).collect();
        let replayed = match self.pool.replay(&refs) {
            Err(PoolError::Interrupted) => return Ok(None),
            replayed => replayed?,
        };
        Ok(Some(
            shrunk
                .iter()
                .zip(replayed)
                .map(|((bytes, _), r)| Entry::new(bytes.clone(), r.features))
                .collect(),
        ))
    }
}

/// The set where the limits stopped it, not replayed: each input has the
/// features it was shrunk for, so together they keep every one.
fn unreplayed(shrunk: Vec<(Vec<u8>, Vec<u32>)>, rounds: usize, why: StopReason) -> Converged {
    let set = shrunk
        .into_iter()
        .map(|(bytes, kept)| Entry::new(bytes, kept));
    Converged {
        set: set.collect(),
        rounds,
        stopped: Some(why),
    }
}

/// The bytes of `set`'s inputs.
fn bytes(set: &[Entry]) -> usize {
    set.iter().map(|e| e.bytes.len()).sum()
}

/// The cover's view of `set`.
pub(super) fn items(set: &[Entry]) -> Vec<Item<'_>> {
    set.iter()
        .map(|e| Item {
            size: e.bytes.len(),
            key: &e.sha1,
            features: &e.features,
        })
        .collect()
}

/// Interesting when a candidate passes, no longer than the input, with
/// every feature of `keep` and none outside `allowed` (a shrunk input
/// never crashes, grows, or brings a feature the corpus did not have).
struct KeepsFeatures<'a> {
    pool: &'a CoveragePool,
    keep: &'a [u32],
    allowed: &'a [u32],
    longest: usize,
}

impl KeepsFeatures<'_> {
    fn verdict(&self, len: usize, replayed: &Replayed) -> Verdict {
        let passes = replayed.outcome == Outcome::Passed;
        let has = |f: &u32| replayed.features.binary_search(f).is_ok();
        let known = |f: &u32| self.allowed.binary_search(f).is_ok();
        Verdict::from_bool(
            passes
                && len <= self.longest
                && self.keep.iter().all(has)
                && replayed.features.iter().all(known),
        )
    }
}

impl Oracle<u8> for KeepsFeatures<'_> {
    fn test(
        &self,
        candidate: &Candidate<'_, u8>,
        _cancel: &Cancel<'_>,
    ) -> Result<Option<Verdict>, OracleError> {
        Ok(self
            .test_round(std::slice::from_ref(candidate))?
            .pop()
            .flatten())
    }

    fn rounds(&self) -> Option<&dyn RoundOracle<u8>> {
        Some(self)
    }
}

impl RoundOracle<u8> for KeepsFeatures<'_> {
    /// The whole round is replayed (features are read after a round, so
    /// the pool cannot stop at the first interesting candidate).
    fn test_round(
        &self,
        candidates: &[Candidate<'_, u8>],
    ) -> Result<Vec<Option<Verdict>>, OracleError> {
        let inputs: Vec<Vec<u8>> = candidates.iter().map(|c| c.to_vec()).collect();
        let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
        let replayed = match self.pool.replay(&refs) {
            // Ctrl-C: none known; the shrink's limits stop it.
            Err(PoolError::Interrupted) => return Ok(vec![None; candidates.len()]),
            replayed => replayed?,
        };
        Ok(inputs
            .iter()
            .zip(&replayed)
            .map(|(input, r)| Some(self.verdict(input.len(), r)))
            .collect())
    }
}
