//! Recursive delta debugging, `ddrmin` (Zeller 1999, "Yesterday, my
//! program worked. Today, it does not. Why?"; the Fuzzing Book's
//! `ddrmin`): the part under reduction is cut in two halves; a half that is
//! interesting on its own (with the context) replaces the part and is
//! reduced in turn; when neither is ("interference"), both are needed, and
//! the first half is reduced with the whole second half as context, then
//! the second with the reduced first.
//!
//! The configuration is one vector: the part under reduction is a range of
//! it and everything outside the range is its context, so each candidate is
//! the configuration without one half (a complement) and an accepted half
//! is applied in place.
//!
//! Parallel where the structure allows: the two halves' tests are one round
//! through [`Context::first_interesting`] (the lowest-index interesting
//! half wins, as a sequential run picks). The two recursive reductions after
//! interference run one after the other, because the second's context is
//! the first's result.
//!
//! What it guarantees (argued in docs/design/engine.md, tested in
//! `tests.rs`): the result is interesting for every oracle; unless a limit
//! stopped the run, it is 1-minimal with a monotone oracle, or with
//! `dd_star` (a pass that removes nothing has tested every single-atom
//! complement); otherwise it need not be.

use std::hash::Hash;
use std::ops::Range;

use super::{Candidate, Context, Oracle, OracleError};

/// One ddrmin pass over the whole configuration, which is interesting on
/// entry and stays so.
pub(crate) fn pass<A, O>(
    config: &mut Vec<A>,
    oracle: &O,
    ctx: &Context<'_, A>,
) -> Result<(), OracleError>
where
    A: Hash + Sync,
    O: Oracle<A> + ?Sized,
{
    let whole = 0..config.len();
    reduce(config, whole, oracle, ctx).map(|_| ())
}

/// Reduces `config[part]` in place, the rest of `config` as its context;
/// returns the reduced part's length (the part now starts where it did).
fn reduce<A, O>(
    config: &mut Vec<A>,
    part: Range<usize>,
    oracle: &O,
    ctx: &Context<'_, A>,
) -> Result<usize, OracleError>
where
    A: Hash + Sync,
    O: Oracle<A> + ?Sized,
{
    if part.len() < 2 {
        return Ok(part.len());
    }
    let mid = part.start + part.len() / 2;
    let halves = [part.start..mid, mid..part.end];
    // Candidate 0 keeps the first half (drops the second), candidate 1 the second.
    let dropped = [halves[1].clone(), halves[0].clone()];
    let view: &[A] = config;
    let found = ctx.first_interesting(oracle, 2, &|i| {
        Candidate::complement(view, dropped[i].clone())
    })?;
    match found {
        Some(i) => {
            config.drain(dropped[i].clone());
            ctx.observer.reduced(config);
            let kept = halves[i].len();
            reduce(config, part.start..part.start + kept, oracle, ctx)
        }
        None if ctx.limits.stop_reason().is_some() => Ok(part.len()),
        None => {
            // Interference: both halves are needed. The first is reduced
            // with the whole second as context, then the second with the
            // reduced first.
            let [first, second] = halves;
            let first_len = reduce(config, first, oracle, ctx)?;
            if ctx.limits.stop_reason().is_some() {
                return Ok(first_len + second.len());
            }
            let second_start = part.start + first_len;
            let second = second_start..second_start + second.len();
            Ok(first_len + reduce(config, second, oracle, ctx)?)
        }
    }
}

#[cfg(test)]
mod tests;
