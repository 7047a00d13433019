//! The search on toy formats that stop a 1-minimal ddmin (lengths read from
//! the end, as `arbitrary` reads them; a length prefix), its budget, and a
//! property test: results are interesting, never larger, and the same
//! whatever `jobs` and however the oracle takes rounds.

use std::sync::atomic::{AtomicU64, Ordering};

use proptest::prelude::*;

use super::*;
use crate::engine::testutil::{contains_all, hash_coin, on_atoms, FailsWhen, InRounds};
use crate::engine::{Cancel, Counters, Observer, Outcome, Reducer, StopReason};

/// A search budget small enough for tests, large enough to finish them.
const BUDGET: Budget = Budget {
    candidates: 5_000,
    bytes: 1 << 30,
    per_pass: 2_000,
    mutations: 200,
    scan: 100_000,
    window: 8,
    trailing: 8,
};

fn options(budget: Budget) -> SearchOptions {
    SearchOptions {
        budget,
        ddmin: DdminOptions::default(),
        lower_values: true,
        seed: SEED,
    }
}

/// What `arbitrary` 1.x's `Unstructured::arbitrary_byte_size` does: the
/// length of the next byte string comes from the end of the data, 1 byte
/// wide up to 256 bytes of data, 2 bytes (big-endian) above, modulo the
/// bytes left.
fn byte_size(data: &mut &[u8]) -> usize {
    let n = data.len();
    if n <= 1 {
        *data = &[];
        return 0;
    }
    let width = if n <= 256 { 1 } else { 2 };
    let (rest, size) = data.split_at(n - width);
    *data = rest;
    let x = size.iter().fold(0usize, |x, &b| (x << 8) | usize::from(b));
    x % (rest.len() + 1)
}

/// A toy `#[derive(Arbitrary)] struct { name: &[u8], flag: u8, body: &[u8] }`
/// (the last field takes the rest): fails when the name has an `X` and the
/// body starts with `rm`.
fn toy_arbitrary(data: &[u8]) -> bool {
    let mut d = data;
    let len = byte_size(&mut d);
    let (name, rest) = d.split_at(len);
    let body = rest.get(1..).unwrap_or_default();
    name.contains(&b'X') && body.starts_with(b"rm")
}

/// A length-prefixed payload followed by a trailer: fails when the prefix
/// is the payload's exact length, the payload has an `X` and the trailer is
/// `!`.
fn length_prefixed(data: &[u8]) -> bool {
    let Some((&len, rest)) = data.split_first() else {
        return false;
    };
    let len = usize::from(len);
    rest.len() == len + 1 && rest[..len].contains(&b'X') && rest[len] == b'!'
}

/// ddmin, canonicalization, then the search; the result after
/// canonicalization and the final one, and the tests run.
fn reduce(
    input: &[u8],
    oracle: &dyn Oracle<u8>,
    options: &SearchOptions,
    jobs: usize,
) -> (Vec<u8>, Vec<u8>, u64) {
    let run = Reducer::new().jobs(jobs);
    let ctx = run.context();
    let reduced = ddmin(input.to_vec(), oracle, &options.ddmin, &ctx).unwrap();
    let canonical = canonicalize(reduced.atoms, oracle, options.lower_values, &ctx).unwrap();
    let found = search(canonical.clone(), oracle, options, &ctx).unwrap();
    (canonical, found, run.tests())
}

#[test]
fn lengths_read_from_the_end_need_a_deletion_and_a_lowered_length() {
    let input = b"abXcd\x07rmjunk\x05";
    assert!(toy_arbitrary(input));
    let oracle = on_atoms(toy_arbitrary);
    let (canonical, found, tests) = reduce(input, &oracle, &options(BUDGET), 1);
    assert!(canonical.len() > 5, "ddmin stops early: {canonical:?}");
    assert_eq!(found, b"X0rm\x01", "the smallest failing input");
    assert!(tests < 3_000, "{tests} tests");
}

#[test]
fn a_length_prefix_is_lowered_with_each_deletion_in_its_window() {
    let input = b"\x06abXcde!";
    assert!(length_prefixed(input));
    let oracle = on_atoms(length_prefixed);
    let (canonical, found, _) = reduce(input, &oracle, &options(BUDGET), 1);
    assert_eq!(canonical, b"\x0600X000!", "every single deletion breaks it");
    assert_eq!(found, b"\x01X!");
}

/// A GIF-like header: a flag byte (bit 6 always set) whose top bit
/// announces a 200-byte table, the table, then a body: fails when the body
/// is `X`.
fn flagged_table(data: &[u8]) -> bool {
    let Some((&flags, rest)) = data.split_first() else {
        return false;
    };
    let table = if flags & 0x80 != 0 { 200 } else { 0 };
    flags & 0x40 != 0 && rest.get(table..) == Some(b"X")
}

#[test]
fn a_filled_table_goes_with_the_flag_that_announced_it() {
    let input: Vec<u8> = [&[0xc7][..], &[b'c'; 200], b"X"].concat();
    assert!(flagged_table(&input));
    let oracle = on_atoms(flagged_table);
    let (canonical, found, _) = reduce(&input, &oracle, &options(BUDGET), 1);
    assert_eq!(canonical.len(), 202, "ddmin deletes neither alone");
    assert_eq!(found, b"@X", "the table's flag cleared");
}

/// A UUID as `uuid::Uuid::parse_str` reads it: 32 hex digits, plain or
/// with a hyphen after the 8th, 12th, 16th and 20th; fails when it starts
/// with `d` and ends with `a`.
fn uuid_like(data: &[u8]) -> bool {
    let digits: Vec<u8> = match data.len() {
        32 => data.to_vec(),
        36 if [8, 13, 18, 23].iter().all(|&i| data[i] == b'-') => {
            data.iter().copied().filter(|&b| b != b'-').collect()
        }
        _ => return false,
    };
    digits.iter().all(u8::is_ascii_hexdigit)
        && digits.first() == Some(&b'd')
        && digits.last() == Some(&b'a')
}

#[test]
fn separators_a_format_takes_all_or_none_of_go_together() {
    let input = b"de123456-7890-abcd-ef01-234567890a1a";
    assert!(uuid_like(input));
    let oracle = on_atoms(uuid_like);
    let (canonical, found, _) = reduce(input, &oracle, &options(BUDGET), 1);
    assert_eq!(canonical.len(), 36, "ddmin deletes one hyphen at a time");
    assert_eq!(found, b"d000000000000000000000000000000a");
}

/// The opening of an embedding level, three bytes as Unicode's LRE is in
/// UTF-8.
const LRE: &[u8] = "\u{202a}".as_bytes();

/// A nesting format whose every byte weighs the depth it is at (an
/// opening's last byte counts at the depth it opens): fails when the
/// weights reach 200, as a counter of levels overflows.
fn weighted_by_depth(data: &[u8]) -> bool {
    let mut depth = 0u32;
    let weight: u32 = (0..data.len())
        .map(|i| {
            depth += u32::from(data[..=i].ends_with(LRE));
            depth
        })
        .sum();
    weight >= 200
}

#[test]
fn a_long_run_nested_once_more_needs_half_its_bytes() {
    let input: Vec<u8> = [b"x", LRE, &[b'a'; 199]].concat();
    assert!(weighted_by_depth(&input));
    let oracle = on_atoms(weighted_by_depth);
    let (canonical, found, _) = reduce(&input, &oracle, &options(BUDGET), 1);
    assert_eq!(canonical.len(), 202, "every single deletion breaks it");
    let nested = [LRE, b"0", LRE, b"0", LRE, b"0", LRE, &[b'0'; 43]].concat();
    assert_eq!(found, nested, "the run cut to a quarter, nested three more");
}

#[test]
fn no_budget_no_search() {
    let run = Reducer::new();
    let oracle = on_atoms(toy_arbitrary);
    let input = b"abXcd\x07rm\x05".to_vec();
    let found = search(
        input.clone(),
        &oracle,
        &options(Budget::NONE),
        &run.context(),
    )
    .unwrap();
    assert_eq!(found, input);
    assert_eq!(run.tests(), 0);
}

#[test]
fn the_budget_bounds_the_candidates_tried() {
    let input = b"some input that nothing smaller reproduces".to_vec();
    let exact = input.clone();
    let oracle = move |c: &Candidate<'_, u8>| c.to_vec() == exact;
    for candidates in [1, 10, 250] {
        let run = Reducer::new();
        let budget = Budget {
            candidates,
            ..BUDGET
        };
        let found = search(input.clone(), &oracle, &options(budget), &run.context()).unwrap();
        assert_eq!(found, input);
        assert_eq!(run.tests(), candidates);
    }
}

#[test]
fn without_value_lowering_only_shorter_inputs_are_accepted() {
    let oracle = |c: &Candidate<'_, u8>| c.len() == 3;
    let run = Reducer::new();
    let found = search(b"zzz".to_vec(), &oracle, &options(BUDGET), &run.context()).unwrap();
    assert_eq!(found, b"000", "values are lowered (to the fill character)");
    let kept = SearchOptions {
        lower_values: false,
        ..options(BUDGET)
    };
    let run = Reducer::new();
    let found = search(b"zzz".to_vec(), &oracle, &kept, &run.context()).unwrap();
    assert_eq!(found, b"zzz");
}

#[test]
fn steps_name_the_passes() {
    struct Steps(std::sync::Mutex<Vec<&'static str>>);
    impl Observer<u8> for Steps {
        fn step(&self, name: &'static str, _: &Counters) {
            self.0.lock().unwrap().push(name);
        }
    }
    let steps = Steps(Default::default());
    let run = Reducer::new();
    let ctx = Context {
        observer: &steps,
        ..run.context()
    };
    let oracle = on_atoms(length_prefixed);
    search(b"\x02Xa!".to_vec(), &oracle, &options(BUDGET), &ctx).unwrap();
    let steps = steps.0.into_inner().unwrap();
    // The first round's deterministic passes find `\x01X!`: no mutations
    // then. The last round finds nothing, mutations included.
    assert_eq!(
        steps,
        [
            "search-values",
            "search-splice",
            "search-2byte",
            "search-chunks",
            "search-runs",
            "search-move",
            "search-settle",
            "search-values",
            "search-splice",
            "search-2byte",
            "search-chunks",
            "search-runs",
            "search-move",
            "search-mutate",
        ]
    );
}

#[test]
fn a_limit_stops_the_search_with_an_interesting_result() {
    let run = Reducer::new().cache(false).max_tests(7);
    let oracle = on_atoms(toy_arbitrary);
    let found = search(
        b"abXcd\x07rm\x05".to_vec(),
        &oracle,
        &options(BUDGET),
        &run.context(),
    )
    .unwrap();
    assert!(toy_arbitrary(&found));
    assert_eq!(run.stop_reason(), Some(StopReason::MaxTests));
    assert!(run.tests() <= 7);
}

#[test]
fn an_oracle_error_returns_the_best_input_so_far() {
    let calls = AtomicU64::new(0);
    let failing = FailsWhen {
        fails: |_: &[u8]| calls.fetch_add(1, Ordering::SeqCst) == 100,
        test: length_prefixed,
        error: "worker lost",
    };
    let run = Reducer::new();
    let input = b"\x06abXcde!".to_vec();
    let err = search(input.clone(), &failing, &options(BUDGET), &run.context()).unwrap_err();
    assert!(length_prefixed(&err.best));
    assert!(smaller(&err.best, &input));
    assert_eq!(err.source.to_string(), "worker lost");
}

/// A random oracle over bytes: the toy `arbitrary` decoding or the length
/// prefix with random required bytes, or a hash coin over the content on
/// top of required bytes (not monotone); always true on the input.
#[derive(Debug, Clone)]
struct RandomOracle {
    input: Vec<u8>,
    kind: u8,
    required: Vec<u8>,
    seed: u64,
}

impl RandomOracle {
    fn call(&self, c: &[u8]) -> bool {
        if c == self.input {
            return true;
        }
        let has = |s: &[u8]| contains_all(s, &self.required);
        match self.kind {
            0 => {
                let mut d = c;
                let len = byte_size(&mut d);
                let (name, rest) = d.split_at(len);
                has(name) && rest.len() >= 2
            }
            1 => c
                .split_first()
                .is_some_and(|(&len, rest)| rest.len() == usize::from(len) && has(rest)),
            _ => has(c) && hash_coin(self.seed, c, 3),
        }
    }
}

fn random_oracle() -> impl Strategy<Value = RandomOracle> {
    (
        proptest::collection::vec(
            prop_oneof![Just(0u8), Just(1u8), Just(b'0'), 2u8..8, Just(0xffu8)],
            1..24,
        ),
        0u8..3,
        proptest::collection::vec(2u8..5, 0..3),
        any::<u64>(),
    )
        .prop_map(|(input, kind, required, seed)| RandomOracle {
            input,
            kind,
            required,
            seed,
        })
}

fn search_with(oracle: &RandomOracle, jobs: usize, rounds: bool) -> (Vec<u8>, u64) {
    let budget = Budget {
        candidates: 400,
        per_pass: 150,
        mutations: 60,
        ..BUDGET
    };
    let call = |c: &[u8]| oracle.call(c);
    let run = Reducer::new().jobs(jobs);
    let ctx = run.context();
    let options = options(budget);
    let found = if rounds {
        search(
            oracle.input.clone(),
            &InRounds::new(call, 1),
            &options,
            &ctx,
        )
    } else {
        search(oracle.input.clone(), &on_atoms(call), &options, &ctx)
    };
    (found.unwrap(), run.tests())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn results_are_interesting_never_larger_and_independent_of_jobs(oracle in random_oracle()) {
        let (sequential, _) = search_with(&oracle, 1, false);
        prop_assert!(oracle.call(&sequential));
        prop_assert!(sequential == oracle.input || smaller(&sequential, &oracle.input));
        let (again, _) = search_with(&oracle, 1, false);
        prop_assert_eq!(&again, &sequential, "reproducible");
        let (parallel, _) = search_with(&oracle, 3, false);
        prop_assert_eq!(&parallel, &sequential, "-j3 picks what -j1 picks");
        let (in_rounds, _) = search_with(&oracle, 1, true);
        prop_assert_eq!(&in_rounds, &sequential, "whole rounds pick it too");
    }
}

/// Fails on `CR` and 38 more bytes, all from `A` up; any lower byte stands
/// for an endless loop: its verdict is a timeout ([`Oracle::timeouts`]).
struct HangsBelowA {
    timeouts: AtomicU64,
}

impl Oracle<u8> for HangsBelowA {
    fn test(&self, c: &Candidate<'_, u8>, _: &Cancel<'_>) -> Result<Option<Outcome>, OracleError> {
        let bytes = c.to_vec();
        let fails = bytes.len() >= 40 && bytes.starts_with(b"CR");
        if fails && bytes.iter().any(|&b| b < b'A') {
            self.timeouts.fetch_add(1, Ordering::SeqCst);
            return Ok(Some(Outcome::NotInteresting));
        }
        Ok(Some(Outcome::from_bool(fails)))
    }

    fn timeouts(&self) -> u64 {
        self.timeouts.load(Ordering::SeqCst)
    }
}

#[test]
fn mutations_stop_once_the_oracle_s_verdicts_were_enough_timeouts() {
    let oracle = HangsBelowA {
        timeouts: AtomicU64::new(0),
    };
    let budget = Budget {
        mutations: 5_000,
        ..BUDGET
    };
    // Already the smallest: of the search's candidates, only the mutants
    // that lower a byte below `A` time out.
    let smallest = [&b"CR"[..], &[b'A'; 38]].concat();
    let run = Reducer::new().jobs(2);
    let found = search(smallest.clone(), &oracle, &options(budget), &run.context()).unwrap();
    assert_eq!(found, smallest);
    let timeouts = oracle.timeouts();
    // The batch that reached the bound runs to its end.
    assert!(
        timeouts < MUTATION_TIMEOUTS + MUTATION_BATCH,
        "{timeouts} timeouts"
    );
}
