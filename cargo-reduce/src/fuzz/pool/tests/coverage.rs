//! The coverage build of `tests-fixtures/corpus-demo` and its replays:
//! each passing input's features, as libFuzzer counts them.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::*;
use crate::fuzz::pool::{CoveragePool, Replayed};

/// The fixture's `records` target, built with coverage once per process.
pub(crate) fn records_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests-fixtures/corpus-demo");
        build_crate(&dir, &["records"], "-coverage", BuildKind::Coverage).remove(0)
    })
}

fn replay(jobs: usize, inputs: &[&[u8]]) -> Vec<Replayed> {
    let options = PoolOptions { jobs, ..options() };
    let pool = CoveragePool::start(records_binary(), options).unwrap_or_else(|e| panic!("{e}"));
    pool.replay(inputs).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn passing_inputs_have_their_features_and_failures_their_outcome() {
    let inputs: &[&[u8]] = &[
        b"num:12",
        b"text:ab",
        b"num:12",
        b"boom:x",
        b"num:123456789012345678901234567890123456",
        b"flag:on",
        b"",
    ];
    let replayed = replay(2, inputs);
    let features = |i: usize| &replayed[i].features;
    assert!(!features(0).is_empty(), "{replayed:?}");
    assert_eq!(
        features(0),
        features(2),
        "the same input, the same features"
    );
    assert_ne!(features(0), features(1), "another branch");
    assert!(matches!(replayed[3].outcome, Outcome::Failed(_)));
    assert!(features(3).is_empty());
    // More digits: the digit loop's counters land in higher buckets.
    let more: Vec<_> = features(4)
        .iter()
        .filter(|f| !features(0).contains(f))
        .collect();
    assert!(!more.is_empty(), "{:?} vs {:?}", features(4), features(0));
    assert!(
        features(4).windows(2).all(|w| w[0] < w[1]),
        "sorted, no repeats"
    );
    // The same features whichever worker ran which input.
    assert_eq!(replay(1, inputs), replayed);
}
