//! ddmin's unit and property tests: every variant on known answers, budgets,
//! errors, and 1-minimality over random oracles (monotone and not). The
//! error and observer tests run ddrmin too (its own tests are in
//! `engine/ddrmin/tests.rs`).

use std::time::Duration;

use proptest::prelude::*;

use super::*;
use crate::engine::testutil::{
    assert_one_minimal, contains_all, hash_coin, holds_markers, on_atoms, FailsWhen, InRounds,
};
use crate::engine::{Candidate, Observer, Reducer};

fn all_variants() -> Vec<DdminOptions> {
    let mut v = Vec::new();
    for subsets in [false, true] {
        for complement_first in [false, true] {
            for combined in [false, true] {
                for iteration in [Iteration::Forward, Iteration::Backward] {
                    for dd_star in [false, true] {
                        for start in [Start::Halves, Start::Atoms] {
                            v.push(DdminOptions {
                                subsets,
                                complement_first,
                                combined,
                                iteration,
                                dd_star,
                                start,
                                algorithm: Algorithm::Ddmin,
                            });
                        }
                    }
                }
            }
        }
    }
    v
}

/// An input of no atom or one is its own result in every variant (a
/// pass from single atoms made a sweep of zero chunks of an empty one).
#[test]
fn an_empty_or_one_atom_input_is_its_own_result() {
    for options in all_variants() {
        for n in [0, 1] {
            let run = reduce(n, &|_| true, &options, Reducer::new());
            assert_eq!(run.atoms.len(), n as usize, "{options:?}, {n} atom(s)");
        }
    }
}

struct Run {
    atoms: Vec<u32>,
    tests: u64,
    stopped: Option<StopReason>,
}

fn reduce(
    n: u32,
    oracle: &(dyn Fn(&[u32]) -> bool + Sync),
    options: &DdminOptions,
    reducer: Reducer,
) -> Run {
    reduce_with(n, &on_atoms(oracle), options, reducer)
}

/// [`reduce`] with an oracle that takes whole rounds, as a worker pool does.
fn reduce_in_rounds(
    n: u32,
    oracle: &(dyn Fn(&[u32]) -> bool + Sync),
    options: &DdminOptions,
    reducer: Reducer,
) -> Run {
    reduce_with(n, &InRounds::new(oracle, 0), options, reducer)
}

fn reduce_with(n: u32, oracle: &dyn Oracle<u32>, options: &DdminOptions, reducer: Reducer) -> Run {
    let reducer = reducer.ddmin_options(*options);
    let r = reducer
        .ddmin((0..n).collect(), oracle)
        .expect("in-memory oracles do not fail");
    Run {
        atoms: r.atoms,
        tests: reducer.tests(),
        stopped: r.stopped,
    }
}

fn requiring(required: &'static [u32]) -> impl Fn(&[u32]) -> bool {
    move |c: &[u32]| contains_all(c, required)
}

#[test]
fn every_variant_finds_the_unique_minimum_of_a_monotone_oracle() {
    let oracle = requiring(&[3, 17, 18, 40]);
    for options in all_variants() {
        for jobs in [1, 3] {
            let run = reduce(64, &oracle, &options, Reducer::new().jobs(jobs));
            assert_eq!(run.atoms, vec![3, 17, 18, 40], "{options:?} -j{jobs}");
            assert_eq!(run.stopped, None);
        }
    }
}

#[test]
fn subsets_find_a_single_atom_in_logarithmic_tests() {
    let oracle = requiring(&[37]);
    let options = DdminOptions {
        subsets: true,
        ..DdminOptions::default()
    };
    let run = reduce(1024, &oracle, &options, Reducer::new());
    assert_eq!(run.atoms, vec![37]);
    assert!(run.tests <= 2 * 10 + 2, "{} tests", run.tests);
}

#[test]
fn complements_alone_are_enough_for_one_minimality() {
    let oracle = |c: &[u32]| holds_markers(&[c], |&a| a % 7 == 0, 3);
    let run = reduce(50, &oracle, &DdminOptions::default(), Reducer::new());
    assert_one_minimal(&run.atoms, &oracle);
    assert_eq!(run.atoms.len(), 3);
}

#[test]
fn backward_iteration_prefers_later_atoms() {
    // Any two atoms ≥ 10 will do: forward keeps the last ones, backward the
    // first ones, since each removes from its own starting side.
    let oracle = |c: &[u32]| holds_markers(&[c], |&a| a >= 10, 2);
    let forward = reduce(20, &oracle, &DdminOptions::default(), Reducer::new());
    let backward = DdminOptions {
        iteration: Iteration::Backward,
        ..DdminOptions::default()
    };
    let backward = reduce(20, &oracle, &backward, Reducer::new());
    assert_one_minimal(&forward.atoms, &oracle);
    assert_one_minimal(&backward.atoms, &oracle);
    assert_eq!(forward.atoms, vec![18, 19]);
    assert_eq!(backward.atoms, vec![10, 11]);
}

/// Non-monotone: atoms 3 and 4 may only go together, and 5 must stay. In the
/// first pass 3 and 4 always fall into different chunks, so a single pass
/// ends at `[3, 4, 5]`; DD*'s second pass cuts `[3, 4] | [5]` and removes the
/// pair.
fn pair_oracle(c: &[u32]) -> bool {
    let has = |x| c.contains(&x);
    has(5) && (has(3) == has(4))
}

#[test]
fn dd_star_removes_pairs_a_single_pass_keeps() {
    let star = DdminOptions {
        dd_star: true,
        ..DdminOptions::default()
    };
    let run = reduce(16, &pair_oracle, &star, Reducer::new());
    assert_eq!(run.atoms, vec![5]);
    let once = reduce(16, &pair_oracle, &DdminOptions::default(), Reducer::new());
    assert_eq!(once.atoms, vec![3, 4, 5]);
    assert_one_minimal(&once.atoms, &pair_oracle);
}

#[test]
fn the_cache_saves_tests_without_changing_the_result() {
    let oracle = |c: &[u32]| c.iter().map(|&a| a as u64).sum::<u64>() % 5 == 0 && c.contains(&9);
    let star = DdminOptions {
        dd_star: true,
        subsets: true,
        ..DdminOptions::default()
    };
    let cached = reduce(40, &oracle, &star, Reducer::new());
    let uncached = reduce(40, &oracle, &star, Reducer::new().cache(false));
    assert_eq!(cached.atoms, uncached.atoms);
    assert!(
        cached.tests < uncached.tests,
        "{} vs {}",
        cached.tests,
        uncached.tests
    );
}

#[test]
fn a_test_budget_stops_early_with_an_interesting_result() {
    let oracle = requiring(&[1, 30, 31, 60]);
    let run = reduce(
        64,
        &oracle,
        &DdminOptions::default(),
        Reducer::new().jobs(2).max_tests(5),
    );
    assert_eq!(run.stopped, Some(StopReason::MaxTests));
    assert!(run.tests <= 5);
    assert!(oracle(&run.atoms));
}

#[test]
fn whole_rounds_respect_the_test_budget() {
    let oracle = requiring(&[1, 30, 31, 60]);
    let run = reduce_in_rounds(
        64,
        &oracle,
        &DdminOptions::default(),
        Reducer::new().max_tests(5),
    );
    assert_eq!(run.stopped, Some(StopReason::MaxTests));
    assert!(run.tests <= 5, "{}", run.tests);
    assert!(oracle(&run.atoms));
}

/// A pool's round that Ctrl-C cuts short answers nothing (the pool's stop
/// flag, the reduction's interrupt): the reduction stops as interrupted,
/// not as 1-minimal, whichever round the signal cuts.
#[test]
fn a_round_cut_short_by_ctrl_c_stops_the_reduction_not_minimal() {
    use crate::engine::{Cancel, Oracle, OracleError, Outcome, RoundOracle, StopReason};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Arc;
    struct CutShort {
        rounds: InRounds<fn(&[u32]) -> bool>,
        flag: Arc<AtomicBool>,
        left: AtomicUsize,
    }
    impl Oracle<u32> for CutShort {
        fn test(
            &self,
            c: &Candidate<'_, u32>,
            cancel: &Cancel<'_>,
        ) -> Result<Option<Outcome>, OracleError> {
            self.rounds.test(c, cancel)
        }
        fn rounds(&self) -> Option<&dyn RoundOracle<u32>> {
            Some(self)
        }
    }
    impl RoundOracle<u32> for CutShort {
        fn test_round(
            &self,
            candidates: &[Candidate<'_, u32>],
        ) -> Result<Vec<Option<Outcome>>, OracleError> {
            if self.left.fetch_sub(1, Ordering::SeqCst) == 0 {
                self.flag.store(true, Ordering::SeqCst);
                return Ok(vec![None; candidates.len()]);
            }
            self.rounds.test_round(candidates)
        }
    }
    fn needs_7_and_40(c: &[u32]) -> bool {
        c.contains(&7) && c.contains(&40)
    }
    for cut_at in 0..6 {
        let flag = Arc::new(AtomicBool::new(false));
        let oracle = CutShort {
            rounds: InRounds::new(needs_7_and_40 as fn(&[u32]) -> bool, 0),
            flag: flag.clone(),
            left: AtomicUsize::new(cut_at),
        };
        let reducer = Reducer::new().interrupt(flag);
        let run = reduce_with(64, &oracle, &DdminOptions::default(), reducer);
        assert_eq!(
            run.stopped,
            Some(StopReason::Interrupted),
            "cut at round {cut_at}"
        );
        assert!(needs_7_and_40(&run.atoms));
    }
}

#[test]
fn a_deadline_stops_early() {
    let oracle = |c: &[u32]| {
        std::thread::sleep(Duration::from_millis(2));
        c.contains(&7)
    };
    let run = reduce(
        256,
        &oracle,
        &DdminOptions::default(),
        Reducer::new().max_time(Duration::from_millis(10)),
    );
    assert_eq!(run.stopped, Some(StopReason::MaxTime));
    assert!(run.atoms.contains(&7));
}

#[test]
fn an_oracle_error_carries_the_best_result_so_far() {
    let failing = FailsWhen {
        fails: |c: &[u32]| c.len() < 8,
        test: |c: &[u32]| c.contains(&0),
        error: "disk full",
    };
    for options in both_algorithms() {
        let err = Reducer::new()
            .cache(false)
            .ddmin_options(options)
            .ddmin((0..32).collect(), &failing)
            .unwrap_err();
        assert_eq!(err.best, (0..8).collect::<Vec<u32>>(), "{options:?}");
        assert_eq!(err.to_string(), "test failed: disk full");
    }
}

#[test]
fn the_observer_sees_every_reduction() {
    struct Sizes(std::sync::Mutex<Vec<usize>>);
    impl Observer<u32> for Sizes {
        fn reduced(&self, atoms: &[u32]) {
            self.0.lock().unwrap().push(atoms.len());
        }
    }
    for options in both_algorithms() {
        let sizes = Sizes(Default::default());
        let run = Reducer::new().cache(false);
        let ctx = Context {
            observer: &sizes,
            ..run.context()
        };
        let test = |c: &Candidate<'_, u32>| c.iter().any(|&a| a == 3);
        ddmin((0..16).collect(), &test, &options, &ctx).unwrap();
        let sizes = sizes.0.into_inner().unwrap();
        assert_eq!(sizes.last(), Some(&1), "{options:?}");
        assert!(sizes.windows(2).all(|w| w[0] > w[1]), "{options:?}");
        assert!(run.tests() > 0);
    }
}

/// The default ddmin and ddrmin, for the tests of what the loop around
/// either does (errors, observer).
fn both_algorithms() -> [DdminOptions; 2] {
    let ddrmin = DdminOptions {
        algorithm: Algorithm::Ddrmin,
        ..DdminOptions::default()
    };
    [DdminOptions::default(), ddrmin]
}

/// A random oracle: monotone ("contains these atoms"), or not (a hash coin
/// over the candidate's content on top of a required atom), always true on
/// the whole input.
#[derive(Debug, Clone)]
struct RandomOracle {
    n: u32,
    required: Vec<u32>,
    monotone: bool,
    seed: u64,
    one_in: u64,
}

impl RandomOracle {
    fn call(&self, c: &[u32]) -> bool {
        if c.len() == self.n as usize {
            return true;
        }
        if !contains_all(c, &self.required) {
            return false;
        }
        if self.monotone {
            return true;
        }
        hash_coin(self.seed, c, self.one_in)
    }
}

fn random_oracle() -> impl Strategy<Value = RandomOracle> {
    (2u32..48, any::<bool>(), any::<u64>(), 2u64..6).prop_flat_map(|(n, monotone, seed, one_in)| {
        proptest::collection::btree_set(0..n, 1..(n as usize).min(6)).prop_map(move |required| {
            RandomOracle {
                n,
                required: required.into_iter().collect(),
                monotone,
                seed,
                one_in,
            }
        })
    })
}

fn variant() -> impl Strategy<Value = DdminOptions> {
    (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(subsets, complement_first, combined, backward, dd_star, atoms)| DdminOptions {
                subsets,
                complement_first,
                combined,
                iteration: if backward {
                    Iteration::Backward
                } else {
                    Iteration::Forward
                },
                dd_star,
                start: if atoms { Start::Atoms } else { Start::Halves },
                algorithm: Algorithm::Ddmin,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn results_are_interesting_and_one_minimal(oracle in random_oracle(), options in variant(), cache in any::<bool>()) {
        let call = |c: &[u32]| oracle.call(c);
        let sequential = reduce(oracle.n, &call, &options, Reducer::new().cache(cache));
        prop_assert_eq!(sequential.stopped, None);
        assert_one_minimal(&sequential.atoms, &call);
        // Parallelism changes the schedule, never the result.
        let parallel = reduce(oracle.n, &call, &options, Reducer::new().jobs(3).cache(cache));
        prop_assert_eq!(&parallel.atoms, &sequential.atoms);
        // Nor does handing the oracle whole rounds.
        let rounds = reduce_in_rounds(oracle.n, &call, &options, Reducer::new().cache(cache));
        prop_assert_eq!(rounds.atoms, sequential.atoms);
    }
}
