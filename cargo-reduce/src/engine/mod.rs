//! The reduction engine: delta debugging over a sequence of atoms.
//!
//! The engine is pure and generic. It knows nothing about processes, files,
//! cargo or syntax trees: it sees a `Vec<A>` of atoms and an [`Oracle`] that
//! says whether a candidate (a sub-sequence of the atoms) is still
//! interesting. Everything that runs tests for real — external commands,
//! in-process fuzz workers — implements [`Oracle`] outside this module.
//!
//! Module map (one concern each, after picire's layout):
//! - [`mod@ddmin`]: the minimizing delta debugging loop and its variants.
//! - [`ddrmin`]: recursive delta debugging, the alternative algorithm
//!   `DdminOptions::algorithm` selects.
//! - [`sweep`]: which subsets and complements a round tests, in which order.
//! - [`split`]: cutting a configuration into chunks.
//! - [`parallel`]: running one round's candidates on `jobs` threads, picking the
//!   lowest-index interesting one so parallel runs equal sequential ones.
//! - [`cache`]: outcomes keyed by candidate content.
//! - [`limit`]: test-count, time and interrupt limits.
//! - `reducer`: [`Reducer`], the settings of a reduction with a builder,
//!   owning the limits, counters and cache it runs with.
//! - [`candidate`]: a candidate as slices of the current configuration.
//! - [`values`]: every occurrence of one value dropped at once, before
//!   ddmin, on inputs of few distinct values.
//! - [`canonical`]: afl-tmin-style value lowering after ddmin.
//! - [`mod@search`]: searches past 1-minimality after canonicalization
//!   (coordinated two-byte edits, chunks, moves, seeded mutations).

pub(crate) mod cache;
pub(crate) mod candidate;
pub(crate) mod canonical;
pub(crate) mod ddmin;
pub(crate) mod ddrmin;
pub(crate) mod limit;
pub(crate) mod parallel;
mod reducer;
pub(crate) mod search;
pub(crate) mod split;
pub(crate) mod sweep;
mod tester;
#[cfg(test)]
mod testutil;
pub(crate) mod values;

pub(crate) use cache::OutcomeCache;
pub use candidate::Candidate;
pub(crate) use canonical::canonicalize;
pub(crate) use ddmin::ddmin;
pub use ddmin::{Algorithm, DdminOptions, ReduceError, Reduction, Start};
pub(crate) use limit::Limits;
pub use limit::StopReason;
pub use parallel::Cancel;
pub use reducer::Reducer;
pub(crate) use search::{search, Budget, SearchOptions};
pub use sweep::Iteration;
pub(crate) use tester::{Context, Counters, Observer};
pub(crate) use values::drop_values;

use std::error::Error as StdError;

/// What a test says about a candidate.
///
/// ```
/// use cargo_reduce::Outcome;
///
/// assert_eq!(Outcome::from_bool(true), Outcome::Interesting);
/// assert!(!Outcome::NotInteresting.is_interesting());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The failure is still there: the candidate may replace the current
    /// configuration.
    Interesting,
    /// The failure is gone (or the test timed out, or crashed differently).
    NotInteresting,
}

impl Outcome {
    /// `Interesting` when `b` is true.
    pub fn from_bool(b: bool) -> Self {
        if b {
            Outcome::Interesting
        } else {
            Outcome::NotInteresting
        }
    }

    /// True for [`Outcome::Interesting`].
    pub fn is_interesting(self) -> bool {
        self == Outcome::Interesting
    }
}

/// The error an oracle may return: any error, boxed, so the engine stays
/// independent of how tests are run.
///
/// ```
/// use cargo_reduce::OracleError;
///
/// let error: OracleError = std::io::Error::other("the worker died").into();
/// assert_eq!(error.to_string(), "the worker died");
/// ```
pub type OracleError = Box<dyn StdError + Send + Sync + 'static>;

/// Decides whether a candidate is interesting.
///
/// `test` may be called from several threads at once (one per job), so an
/// oracle is `Sync`. A long-running test should poll `cancel` and return
/// `Ok(None)` once it is cancelled: its outcome is then unknown and is not
/// cached. An `Err` stops the reduction; the error carries the best result
/// found so far.
///
/// An oracle that is cheaper per round than per test (in-process workers
/// that take a whole batch through shared memory) also implements
/// [`RoundOracle`] and returns itself from [`Oracle::rounds`]; the engine
/// then hands it whole rounds, after taking cached candidates out and
/// cutting the round to the test budget.
///
/// ```
/// use cargo_reduce::{Cancel, Candidate, Oracle, OracleError, Outcome, Reducer};
///
/// /// Interesting while the atoms still add up to at least the bound.
/// struct SumAtLeast(u32);
/// impl Oracle<u32> for SumAtLeast {
///     fn test(&self, c: &Candidate<'_, u32>, _: &Cancel<'_>) -> Result<Option<Outcome>, OracleError> {
///         Ok(Some(Outcome::from_bool(c.iter().sum::<u32>() >= self.0)))
///     }
/// }
/// let reduced = Reducer::new().ddmin(vec![1, 2, 9, 3, 1], &SumAtLeast(10)).unwrap();
/// assert!(reduced.atoms.len() == 2 && reduced.atoms.contains(&9));
/// ```
pub trait Oracle<A>: Sync {
    /// Tests one candidate.
    fn test(
        &self,
        candidate: &Candidate<'_, A>,
        cancel: &Cancel<'_>,
    ) -> Result<Option<Outcome>, OracleError>;

    /// This oracle as a whole-round oracle, if it is one.
    fn rounds(&self) -> Option<&dyn RoundOracle<A>> {
        None
    }

    /// How many of its verdicts so far were the test's timeout (of a
    /// failure that is not one), counting only verdicts the engine kept:
    /// each cost the whole timeout, and the search draws no more random
    /// mutations after a few. 0 for an oracle that does not tell.
    fn timeouts(&self) -> u64 {
        0
    }

    /// The cache's key for `candidate`'s outcome, where that is not the
    /// hash of its atoms: an oracle that tests a rendering of them (edits
    /// of a tree as text) keys by the text, which different atoms can
    /// render alike.
    fn cache_key(&self, _candidate: &Candidate<'_, A>) -> Option<u128> {
        None
    }
}

/// An oracle that tests a whole round in one call.
///
/// ```
/// use cargo_reduce::{Cancel, Candidate, Oracle, OracleError, Outcome, Reducer, RoundOracle};
///
/// /// Takes a whole round at once, as a batch through shared memory would.
/// struct Batch;
/// impl RoundOracle<u8> for Batch {
///     fn test_round(&self, cs: &[Candidate<'_, u8>]) -> Result<Vec<Option<Outcome>>, OracleError> {
///         Ok(cs.iter().map(|c| Some(Outcome::from_bool(c.iter().any(|&b| b == b'!')))).collect())
///     }
/// }
/// impl Oracle<u8> for Batch {
///     fn test(&self, c: &Candidate<'_, u8>, _: &Cancel<'_>) -> Result<Option<Outcome>, OracleError> {
///         Ok(self.test_round(std::slice::from_ref(c))?.pop().flatten())
///     }
///     fn rounds(&self) -> Option<&dyn RoundOracle<u8>> {
///         Some(self)
///     }
/// }
/// assert_eq!(Reducer::new().ddmin(b"ab!c".to_vec(), &Batch).unwrap().atoms, b"!");
/// ```
pub trait RoundOracle<A> {
    /// Tests `candidates` in order until the lowest interesting index is
    /// known, every index below it tested (so the answer is what a
    /// sequential run gives). Returns each candidate's outcome (`None`: not
    /// run).
    fn test_round(
        &self,
        candidates: &[Candidate<'_, A>],
    ) -> Result<Vec<Option<Outcome>>, OracleError>;
}

impl<A, F> Oracle<A> for F
where
    F: Fn(&Candidate<'_, A>) -> bool + Sync,
{
    fn test(
        &self,
        candidate: &Candidate<'_, A>,
        _cancel: &Cancel<'_>,
    ) -> Result<Option<Outcome>, OracleError> {
        Ok(Some(Outcome::from_bool(self(candidate))))
    }
}
