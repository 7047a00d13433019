//! Minimizing delta debugging (Zeller & Hildebrandt) with Hodován's
//! variants, as parameters of one loop.
//!
//! Each round tests the candidates [`Sweep::round`] lists — subsets and/or
//! complements of the current chunks — through [`super::parallel::first_interesting`];
//! the lowest-index interesting one replaces the configuration ("reduce to
//! subset" / "reduce to complement"), and a round that finds nothing ends
//! the sweep ("increase granularity", or "done" at single atoms). With
//! `dd_star` the whole pass is repeated until it removes nothing (DD*).
//!
//! The result is interesting (every accepted candidate was tested, and the
//! input is assumed interesting) and, unless a limit stopped the run,
//! 1-minimal: the last sweep tried removing every single atom and none could
//! go.
//!
//! [`DdminOptions::algorithm`] may select [`super::ddrmin`] instead; this
//! loop then runs its passes (repeated with `dd_star`).

use std::fmt;
use std::hash::Hash;

use super::ddrmin;
use super::sweep::{Pick, RoundShape, Sweep, SweepEnd};
use super::{Context, Iteration, Oracle, OracleError, StopReason};

/// The variant knobs. The default is the variant that needed the fewest
/// tests on the benchmark tasks (see ARCHITECTURE.md).
///
/// ```
/// use cargo_reduce::{Candidate, DdminOptions, Reducer};
///
/// let mut options = DdminOptions::default();
/// options.subsets = true; // also try keeping a single chunk
/// options.dd_star = true; // repeat passes until one removes nothing
/// let two_bangs = |c: &Candidate<'_, u8>| c.iter().filter(|&&b| b == b'!').count() >= 2;
/// let reducer = Reducer::new().ddmin_options(options);
/// assert_eq!(reducer.ddmin(b"a!b!c!".to_vec(), &two_bangs).unwrap().atoms, b"!!");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct DdminOptions {
    /// Also try keeping a single chunk ("reduce to subset").
    pub subsets: bool,
    /// Try complements before subsets.
    pub complement_first: bool,
    /// Test subsets and complements in one round (Listing 1), rather than
    /// all subsets first, then all complements.
    pub combined: bool,
    /// Chunk order.
    pub iteration: Iteration,
    /// Repeat whole passes until one removes nothing.
    pub dd_star: bool,
    /// The granularity a pass starts at.
    pub start: Start,
    /// Iterative ddmin, or recursive ddrmin. ddrmin reads only `dd_star`
    /// of the other fields.
    pub algorithm: Algorithm,
}

/// Which minimizing algorithm a pass runs.
///
/// ```
/// use cargo_reduce::{Algorithm, Candidate, DdminOptions, Reducer};
///
/// let mut options = DdminOptions::default();
/// options.algorithm = Algorithm::Ddrmin;
/// let two_bangs = |c: &Candidate<'_, u8>| c.iter().filter(|&&b| b == b'!').count() >= 2;
/// let reducer = Reducer::new().ddmin_options(options);
/// assert_eq!(reducer.ddmin(b"a!b!c!".to_vec(), &two_bangs).unwrap().atoms, b"!!");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Algorithm {
    /// Zeller & Hildebrandt's iterative ddmin, with the variants above:
    /// 1-minimal for every oracle.
    #[default]
    Ddmin,
    /// Zeller's recursive dd (1999), the Fuzzing Book's `ddrmin`: halves,
    /// and both halves reduced in turn when neither alone will do.
    /// 1-minimal for a monotone oracle or with `dd_star`, not in general
    /// (see docs/design/engine.md).
    Ddrmin,
}

/// Where a ddmin pass starts.
///
/// ```
/// use cargo_reduce::{Candidate, DdminOptions, Reducer, Start};
///
/// let mut options = DdminOptions::default();
/// options.start = Start::Atoms; // the input is expected to be nearly minimal already
/// let long_enough = |c: &Candidate<'_, u8>| c.len() >= 3;
/// let reducer = Reducer::new().ddmin_options(options);
/// assert_eq!(reducer.ddmin(b"abcd".to_vec(), &long_enough).unwrap().atoms, b"bcd");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Start {
    /// Two halves, then finer (Zeller's ddmin).
    #[default]
    Halves,
    /// Single atoms at once: for a configuration expected to be nearly
    /// minimal already, where every coarser complement would fail (HDD*'s
    /// later passes, whose nodes all survived a pass). Removing `n` atoms
    /// then costs about `n` tests instead of about `3n`.
    Atoms,
}

impl Default for DdminOptions {
    fn default() -> Self {
        DdminOptions {
            subsets: false,
            complement_first: false,
            combined: true,
            iteration: Iteration::Forward,
            dd_star: false,
            start: Start::Halves,
            algorithm: Algorithm::Ddmin,
        }
    }
}

impl DdminOptions {
    fn shape(&self) -> RoundShape {
        RoundShape {
            subsets: self.subsets,
            complement_first: self.complement_first,
            combined: self.combined,
        }
    }
}

/// A finished (or stopped) reduction.
///
/// ```
/// use cargo_reduce::{Candidate, Reducer, StopReason};
///
/// let has_bang = |c: &Candidate<'_, u8>| c.iter().any(|&b| b == b'!');
/// let reduced = Reducer::new().max_tests(1).ddmin(b"ab!cd".to_vec(), &has_bang).unwrap();
/// assert_eq!(reduced.stopped, Some(StopReason::MaxTests));
/// assert!(!reduced.is_minimal() && reduced.atoms.contains(&b'!'));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reduction<A> {
    /// The smallest interesting configuration found.
    pub atoms: Vec<A>,
    /// Why the run stopped early, if it did.
    pub stopped: Option<StopReason>,
}

impl<A> Reduction<A> {
    /// True when the run was not stopped early and its result is known to
    /// be 1-minimal ([`Algorithm::Ddrmin`]'s without `dd_star` is not:
    /// [`StopReason::OnePass`]).
    pub fn is_minimal(&self) -> bool {
        self.stopped.is_none()
    }
}

/// An oracle error, with the best configuration found before it.
///
/// ```
/// use cargo_reduce::{Cancel, Candidate, Oracle, OracleError, Outcome, Reducer};
///
/// struct Broken;
/// impl Oracle<u8> for Broken {
///     fn test(&self, _: &Candidate<'_, u8>, _: &Cancel<'_>) -> Result<Option<Outcome>, OracleError> {
///         Err("the test harness is gone".into())
///     }
/// }
/// let error = Reducer::new().ddmin(b"abc".to_vec(), &Broken).unwrap_err();
/// assert_eq!(error.to_string(), "test failed: the test harness is gone");
/// assert_eq!(error.best, b"abc"); // nothing was removed before the error
/// ```
#[derive(Debug)]
pub struct ReduceError<A> {
    /// The smallest interesting configuration found so far.
    pub best: Vec<A>,
    /// What the oracle reported.
    pub source: OracleError,
}

impl<A> fmt::Display for ReduceError<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "test failed: {}", self.source)
    }
}

impl<A: fmt::Debug> std::error::Error for ReduceError<A> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.source)
    }
}

/// Reduces `atoms`, which the caller knows to be interesting, with the
/// algorithm `options` select.
pub(crate) fn ddmin<A, O>(
    atoms: Vec<A>,
    oracle: &O,
    options: &DdminOptions,
    ctx: &Context<'_, A>,
) -> Result<Reduction<A>, ReduceError<A>>
where
    A: Clone + Hash + Sync,
    O: Oracle<A> + ?Sized,
{
    let mut config = atoms;
    loop {
        let before = config.len();
        let done = match options.algorithm {
            Algorithm::Ddmin => pass(&mut config, oracle, options, ctx),
            Algorithm::Ddrmin => ddrmin::pass(&mut config, oracle, ctx),
        };
        if let Err(source) = done {
            return Err(ReduceError {
                best: config,
                source,
            });
        }
        let stopped = ctx.limits.stop_reason();
        if stopped.is_some() || !options.dd_star || config.len() == before {
            let one_pass = options.algorithm == Algorithm::Ddrmin && !options.dd_star;
            return Ok(Reduction {
                atoms: config,
                stopped: stopped.or(one_pass.then_some(StopReason::OnePass)),
            });
        }
    }
}

/// One ddmin pass, from two chunks down to single atoms.
fn pass<A, O>(
    config: &mut Vec<A>,
    oracle: &O,
    options: &DdminOptions,
    ctx: &Context<'_, A>,
) -> Result<(), OracleError>
where
    A: Hash + Sync,
    O: Oracle<A> + ?Sized,
{
    let shape = options.shape();
    let first = match options.start {
        Start::Halves => 2,
        // An input of fewer than two atoms has no sweep to run, but a
        // sweep of zero chunks cannot be made.
        Start::Atoms => config.len().max(2),
    };
    let mut sweep = Sweep::new(config.len().max(2), first, options.iteration);
    while config.len() >= 2 {
        let found = run_round(config, &sweep, &shape, oracle, ctx)?;
        match found {
            Some(pick) => {
                sweep.apply(config, pick);
                ctx.observer.reduced(config);
                let more_chunks = matches!(pick, Pick::Complement(i) if sweep.remove(i));
                if !more_chunks && config.len() >= 2 {
                    sweep = Sweep::new(config.len(), 2, options.iteration);
                }
            }
            None if ctx.limits.stop_reason().is_some() => break,
            None => {
                if sweep.finish(config.len()) == SweepEnd::Minimal {
                    break;
                }
            }
        }
        if ctx.limits.stop_reason().is_some() {
            break;
        }
    }
    Ok(())
}

/// Runs the round's groups in order; the first interesting pick wins.
fn run_round<A, O>(
    config: &[A],
    sweep: &Sweep,
    shape: &RoundShape,
    oracle: &O,
    ctx: &Context<'_, A>,
) -> Result<Option<Pick>, OracleError>
where
    A: Hash + Sync,
    O: Oracle<A> + ?Sized,
{
    for group in sweep.round(shape) {
        let found =
            ctx.first_interesting(oracle, group.len(), &|i| sweep.candidate(config, group[i]))?;
        if let Some(i) = found {
            return Ok(Some(group[i]));
        }
        if ctx.limits.stop_reason().is_some() {
            break;
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests;
