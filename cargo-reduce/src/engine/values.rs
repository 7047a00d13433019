//! Dropping every occurrence of one value at once, before ddmin, on inputs
//! made of few distinct values.
//!
//! An input that is mostly one value with others sprinkled through it (the
//! bundled stack_overflow artifact: 2,551 `[` among 88 digits, commas and
//! `]`) costs ddmin thousands of tests: a stray value goes only in a chunk
//! of its own once the needed values are down to what the failure needs,
//! so ddmin descends to single atoms over the whole input. Dropping all
//! occurrences of one value is one test per distinct value, and what is
//! left is often uniform, where the cache answers most of ddmin's
//! candidates (chunks of equal length leave equal content). afl-tmin's
//! alphabet normalization rests on the same observation.

use std::collections::BTreeMap;

use super::{Candidate, Context, Oracle, OracleError};

/// The pass runs on inputs with at most one distinct value per this many
/// atoms: it costs a test (of the whole input) per distinct value, which
/// pays only when ddmin's tests per atom would cost more.
const ATOMS_PER_VALUE: usize = 8;

/// Whether [`drop_values`] runs on `input`.
pub(crate) fn worth_it<A: Ord>(input: &[A]) -> bool {
    few_values(counts(input).len(), input.len())
}

/// Whether `distinct` values among `atoms` are few enough for the pass.
fn few_values(distinct: usize, atoms: usize) -> bool {
    distinct > 1 && distinct * ATOMS_PER_VALUE <= atoms
}

/// Drops every occurrence of one value at a time, rarest value first, each
/// kept out if `oracle` still finds the rest interesting; `input` as it is
/// when [`worth_it`] says no. Stops early, keeping what it has, when a
/// limit is reached.
pub(crate) fn drop_values<A, O>(
    input: Vec<A>,
    oracle: &O,
    ctx: &Context<'_, A>,
) -> Result<Vec<A>, OracleError>
where
    A: Ord + Clone + std::hash::Hash + Sync,
    O: Oracle<A> + ?Sized,
{
    let values = by_rarity(&input);
    if !few_values(values.len(), input.len()) {
        return Ok(input);
    }
    let mut current = input;
    for (_, value) in values {
        if ctx.limits.stop_reason().is_some() {
            break;
        }
        let rest: Vec<A> = current.iter().filter(|a| **a != value).cloned().collect();
        if rest.is_empty() {
            continue;
        }
        if ctx
            .first_interesting(oracle, 1, &|_| Candidate::whole(&rest))?
            .is_some()
        {
            current = rest;
        }
    }
    Ok(current)
}

/// The distinct values of `input` with their counts, rarest first (then
/// in value order).
pub(crate) fn by_rarity<A: Ord + Clone>(input: &[A]) -> Vec<(usize, A)> {
    let mut values: Vec<(usize, A)> = counts(input)
        .into_iter()
        .map(|(value, count)| (count, value.clone()))
        .collect();
    values.sort();
    values
}

fn counts<A: Ord>(input: &[A]) -> BTreeMap<&A, usize> {
    let mut counts = BTreeMap::new();
    for a in input {
        *counts.entry(a).or_insert(0) += 1;
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Reducer;

    fn run(input: &[u8], oracle: &(dyn Fn(&[u8]) -> bool + Sync)) -> (Vec<u8>, u64) {
        let run = Reducer::new();
        let test = |c: &Candidate<'_, u8>| oracle(&c.to_vec());
        let out = drop_values(input.to_vec(), &test, &run.context()).unwrap();
        (out, run.tests())
    }

    /// Nesting deep enough fails, whatever else is between: every other
    /// value goes, one test each.
    #[test]
    fn stray_values_go_in_one_test_each() {
        let mut input = b"[".repeat(60);
        for (i, b) in b"1,2]3,".iter().enumerate() {
            input.insert(7 * i + 3, *b);
        }
        let deep = |b: &[u8]| b.iter().filter(|&&c| c == b'[').count() >= 50;
        let (out, tests) = run(&input, &deep);
        assert_eq!(out, b"[".repeat(60));
        assert_eq!(tests, 5, "five stray values; dropping `[` leaves nothing");
    }

    /// A value the failure needs stays.
    #[test]
    fn needed_values_stay() {
        let input = b"ab".repeat(20);
        let (out, _) = run(&input, &|b| b.contains(&b'a') && b.contains(&b'b'));
        assert_eq!(out, input);
    }

    /// Inputs with many distinct values for their length are left to
    /// ddmin: the pass would cost a whole-input test per value.
    #[test]
    fn varied_inputs_are_left_alone() {
        let input: Vec<u8> = (0..64).collect();
        let (out, tests) = run(&input, &|_| true);
        assert_eq!((out, tests), (input, 0));
        assert!(!worth_it(b"aaaa"), "one value: nothing to drop");
        assert!(worth_it(&b"ab".repeat(8)));
    }
}
