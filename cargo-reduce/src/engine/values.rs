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
//!
//! The first test keeps the most common value alone: values that go only
//! together (a deeply nested JSON document's `1,`, `{}` and `"ab",`
//! between its `[`: dropping the digits alone leaves `[,`, dropping the
//! commas alone `[1[`) then go at once, where one at a time none would.

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

/// Keeps the most common value alone if `oracle` finds that interesting;
/// else drops every occurrence of one value at a time, rarest value
/// first, each kept out if `oracle` still finds the rest interesting;
/// `input` as it is when [`worth_it`] says no. Stops early, keeping what
/// it has, when a limit is reached.
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
    let (_, most_common) = values.last().expect("more than one value");
    let alone: Vec<A> = input
        .iter()
        .filter(|a| *a == most_common)
        .cloned()
        .collect();
    if ctx.is_interesting(oracle, &|| Candidate::whole(&alone))? {
        return Ok(alone);
    }
    let mut current = input;
    for (_, value) in values {
        if ctx.limits.stop_reason().is_some() {
            break;
        }
        let rest: Vec<A> = current.iter().filter(|a| **a != value).cloned().collect();
        if !rest.is_empty() && ctx.is_interesting(oracle, &|| Candidate::whole(&rest))? {
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

    /// Stray values in deep nesting: all go in one test, the most common
    /// value kept alone.
    #[test]
    fn stray_values_go_at_once() {
        let mut input = b"[".repeat(60);
        for (i, b) in b"1,2]3,".iter().enumerate() {
            input.insert(7 * i + 3, *b);
        }
        let deep = |b: &[u8]| b.iter().filter(|&&c| c == b'[').count() >= 50;
        let (out, tests) = run(&input, &deep);
        assert_eq!(out, b"[".repeat(60));
        assert_eq!(tests, 1);
    }

    /// Nesting deep enough fails if what is before it parses (a JSON
    /// parser that overflows its stack at depth 30): digits and commas go
    /// only together, as the most common value is kept alone; one at a
    /// time, neither would.
    #[test]
    fn values_that_go_only_together_go() {
        let input = b"[1,".repeat(40);
        let overflows = |b: &[u8]| {
            let mut depth = 0;
            for pair in b.windows(2) {
                let well_formed = match pair {
                    [b'[', next] => {
                        depth += 1;
                        matches!(next, b'[' | b'1')
                    }
                    [b'1', next] => *next == b',',
                    [b',', next] => matches!(next, b'[' | b'1'),
                    _ => false,
                };
                if depth >= 30 {
                    return true;
                }
                if !well_formed {
                    return false;
                }
            }
            false
        };
        assert!(overflows(&input));
        let (out, _) = run(&input, &overflows);
        assert_eq!(out, b"[".repeat(40));
    }

    /// Values the failure needs stay: one test keeps the most common
    /// alone, one per other value drops it (dropping `a` is keeping `b`
    /// alone, a test the cache answers).
    #[test]
    fn needed_values_stay() {
        let input = b"ab".repeat(20);
        let (out, tests) = run(&input, &|b| b.contains(&b'a') && b.contains(&b'b'));
        assert_eq!((out, tests), (input, 2));
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
