//! What ddrmin guarantees, and what it does not: results are interesting for
//! every oracle; 1-minimal for monotone ones (including ambiguous ones, with
//! several minimal configurations) and with `dd_star`; not 1-minimal in
//! general, so one pass (no `dd_star`) says so ([`StopReason::OnePass`]).
//! Errors and the observer are tested with ddmin's, for both algorithms.

use proptest::prelude::*;

use crate::engine::testutil::{assert_one_minimal, contains_all, hash_coin, on_atoms, InRounds};
use crate::engine::{Algorithm, DdminOptions, Oracle, Reducer, StopReason};

fn ddrmin(dd_star: bool) -> DdminOptions {
    DdminOptions {
        algorithm: Algorithm::Ddrmin,
        dd_star,
        ..DdminOptions::default()
    }
}

/// ddrmin of `0..n` (assumed interesting): the result, the tests it ran
/// and why it stopped early, if it did.
fn reduce(
    n: u32,
    oracle: &dyn Oracle<u32>,
    options: DdminOptions,
    reducer: Reducer,
) -> (Vec<u32>, u64, Option<StopReason>) {
    let reducer = reducer.ddmin_options(options);
    let reduced = reducer
        .ddmin((0..n).collect(), oracle)
        .expect("in-memory oracles do not fail");
    (reduced.atoms, reducer.tests(), reduced.stopped)
}

#[test]
fn finds_the_unique_minimum_of_a_monotone_oracle_at_every_j() {
    let oracle = |c: &[u32]| contains_all(c, &[3, 17, 18, 40]);
    for jobs in [1, 3] {
        let (atoms, _, stopped) = reduce(
            64,
            &on_atoms(oracle),
            ddrmin(false),
            Reducer::new().jobs(jobs),
        );
        assert_eq!(
            (atoms, stopped),
            (vec![3, 17, 18, 40], Some(StopReason::OnePass)),
            "-j{jobs}"
        );
    }
}

#[test]
fn a_single_needed_atom_costs_two_tests_per_halving() {
    let oracle = |c: &[u32]| c.contains(&37);
    let (atoms, tests, _) = reduce(1024, &on_atoms(oracle), ddrmin(false), Reducer::new());
    assert_eq!(atoms, vec![37]);
    assert!(tests <= 2 * 10, "{tests} tests");
}

/// Not monotone: 0 and 3 are needed, and 2 only with 1. The first half
/// `[0, 1]` is reduced with the whole second half `[2, 3]` as context, where
/// 1 is needed (2 is there); then 2 goes, and 1 could go too, but the
/// first half is not revisited. Iterative ddmin, and ddrmin with DD*,
/// reach `[0, 3]`.
#[test]
fn a_non_monotone_oracle_can_leave_a_result_that_is_not_one_minimal() {
    let oracle = |c: &[u32]| {
        let has = |x| c.contains(&x);
        has(0) && has(3) && (!has(2) || has(1))
    };
    let (atoms, _, stopped) = reduce(4, &on_atoms(oracle), ddrmin(false), Reducer::new());
    assert_eq!((atoms, stopped), (vec![0, 1, 3], Some(StopReason::OnePass)));
    assert!(oracle(&[0, 3]), "removing 1 keeps it interesting");
    let (star, _, _) = reduce(4, &on_atoms(oracle), ddrmin(true), Reducer::new());
    assert_eq!(star, vec![0, 3], "DD*'s second pass removes 1");
    let ddmin = Reducer::new()
        .ddmin((0..4).collect(), &on_atoms(oracle))
        .unwrap();
    assert_one_minimal(&ddmin.atoms, &oracle);
    assert_eq!(ddmin.atoms, vec![0, 3]);
}

#[test]
fn a_test_budget_stops_early_with_an_interesting_result() {
    let oracle = |c: &[u32]| contains_all(c, &[1, 30, 31, 60]);
    for rounds in [false, true] {
        let reducer = Reducer::new().jobs(2).max_tests(5);
        let (atoms, tests, stopped) = if rounds {
            reduce(64, &InRounds::new(oracle, 0), ddrmin(false), reducer)
        } else {
            reduce(64, &on_atoms(oracle), ddrmin(false), reducer)
        };
        assert_eq!(stopped, Some(StopReason::MaxTests));
        assert!(tests <= 5, "{tests}");
        assert!(oracle(&atoms) && atoms.len() < 64, "{atoms:?}");
    }
}

/// A random monotone oracle: interesting when the candidate holds every
/// atom of at least one of `any_of` (several sets: ambiguous, with several
/// minimal results). The whole input holds them all.
fn monotone_oracle() -> impl Strategy<Value = (u32, Vec<Vec<u32>>)> {
    (2u32..48).prop_flat_map(|n| {
        let set = proptest::collection::vec(0..n, 1..5);
        (Just(n), proptest::collection::vec(set, 1..4))
    })
}

/// A random oracle that need not be monotone: a hash coin over the content,
/// on top of a required atom, always true on the whole input.
fn coin_oracle(n: u32, required: u32, seed: u64) -> impl Fn(&[u32]) -> bool + Sync {
    move |c: &[u32]| c.len() == n as usize || (c.contains(&required) && hash_coin(seed, c, 3))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn monotone_oracles_give_one_minimal_results(
        (n, any_of) in monotone_oracle(),
        dd_star in any::<bool>(),
    ) {
        let oracle = |c: &[u32]| any_of.iter().any(|set| contains_all(c, set));
        let (atoms, _, stopped) = reduce(n, &on_atoms(oracle), ddrmin(dd_star), Reducer::new());
        prop_assert_eq!(stopped, (!dd_star).then_some(StopReason::OnePass));
        assert_one_minimal(&atoms, &oracle);
    }

    #[test]
    fn dd_star_results_are_one_minimal_for_every_oracle(
        n in 2u32..48,
        required in 0u32..48,
        seed in any::<u64>(),
    ) {
        let oracle = coin_oracle(n, required % n, seed);
        let (atoms, _, stopped) = reduce(n, &on_atoms(&oracle), ddrmin(true), Reducer::new());
        prop_assert_eq!(stopped, None);
        assert_one_minimal(&atoms, &oracle);
    }

    #[test]
    fn every_result_is_interesting_and_independent_of_the_schedule(
        n in 2u32..48,
        required in 0u32..48,
        seed in any::<u64>(),
        dd_star in any::<bool>(),
        cache in any::<bool>(),
    ) {
        let oracle = coin_oracle(n, required % n, seed);
        let reducer = || Reducer::new().cache(cache);
        let (atoms, _, stopped) = reduce(n, &on_atoms(&oracle), ddrmin(dd_star), reducer());
        prop_assert_eq!(stopped, (!dd_star).then_some(StopReason::OnePass));
        prop_assert!(oracle(&atoms), "{:?} is not interesting", atoms);
        let parallel = reduce(n, &on_atoms(&oracle), ddrmin(dd_star), reducer().jobs(3));
        prop_assert_eq!(&parallel.0, &atoms);
        let rounds = reduce(n, &InRounds::new(&oracle, 2), ddrmin(dd_star), reducer());
        prop_assert_eq!(&rounds.0, &atoms);
    }
}
