//! The output bytes depend only on the input, the target and the options
//! that change the search: not on `-j`, nor on the other artifacts of the
//! run (which share its worker pools, decoders and timing). Every artifact
//! of the bundled corpus (`fuzz-targets/`, whose `artifacts/` is
//! `corpus/artifacts/`) is reduced three ways and the bytes compared;
//! `bench/determinism/run` does the same over the real-world cases.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::fuzz_fixture::{cargo_reduce, fresh_copy, is_written_by_us};

/// Each artifact (as `target/name`) with what was written for it: the
/// file's prefix (`minimized-from-` or `partial-from-`) and its bytes.
type Results = BTreeMap<String, (String, Vec<u8>)>;

/// The artifacts of the copy at `crate_dir`, as paths.
fn artifacts(crate_dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for target in fs::read_dir(crate_dir.join("artifacts")).unwrap() {
        for file in fs::read_dir(target.unwrap().path()).unwrap() {
            let path = file.unwrap().path();
            if !is_written_by_us(&path.file_name().unwrap().to_string_lossy()) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

fn results(crate_dir: &Path) -> Results {
    let mut out = Results::new();
    for artifact in artifacts(crate_dir) {
        let name = artifact.file_name().unwrap().to_string_lossy().into_owned();
        let target = artifact.parent().unwrap().file_name().unwrap();
        let key = format!("{}/{name}", target.to_string_lossy());
        for prefix in ["minimized-from-", "partial-from-"] {
            if let Ok(bytes) = fs::read(artifact.with_file_name(format!("{prefix}{name}"))) {
                out.insert(key.clone(), (prefix.to_string(), bytes));
            }
        }
    }
    out
}

/// `cargo reduce` of the copy at `crate_dir` with `args`; must succeed.
fn reduce(crate_dir: &Path, args: &[&str]) {
    let manifest = crate_dir.to_str().unwrap();
    let mut all = vec!["reduce", "--manifest-path", manifest, "--all"];
    all.extend_from_slice(args);
    cargo_reduce(&all).expect_code(0);
}

#[test]
fn every_bundled_artifact_reduces_to_the_same_bytes_at_any_j_and_in_any_company() {
    let (_one, j1) = fresh_copy();
    reduce(&j1, &["-j", "1"]);
    let (_two, j2) = fresh_copy();
    reduce(&j2, &["-j", "2"]);
    let (_three, alone) = fresh_copy();
    for artifact in artifacts(&alone) {
        reduce(&alone, &["-j", "2", artifact.to_str().unwrap()]);
    }
    let sequential = results(&j1);
    assert_eq!(
        sequential.len(),
        artifacts(&j1).len(),
        "every artifact reduced: {:?}",
        sequential.keys()
    );
    for (name, (prefix, bytes)) in &sequential {
        assert_eq!(prefix, "minimized-from-", "{name}: 1-minimal");
        for (how, other) in [("-j 2", &results(&j2)), ("alone", &results(&alone))] {
            assert_eq!(
                other.get(name),
                Some(&(prefix.clone(), bytes.clone())),
                "{name}: -j 1 with the others gave {bytes:?}, {how} gave otherwise"
            );
        }
    }
}

/// Under a test budget the results are partial, and still the same: the
/// budget counts the tests a sequential run makes, not those that parallel
/// workers ran past a round's answer (which made `typed_arbitrary`'s
/// result depend on `-j` and timing).
#[test]
fn partial_results_under_a_test_budget_do_not_depend_on_j() {
    let reduce_some = |j: &str| {
        let (dir, copy) = fresh_copy();
        let mut args = vec!["-j", j, "--max-tests", "60"];
        let named: Vec<PathBuf> = ["typed_arbitrary", "typed_query", "stack_overflow"]
            .iter()
            .map(|target| crate::fuzz_fixture::artifact(&copy, target))
            .collect();
        args.extend(named.iter().map(|p| p.to_str().unwrap()));
        reduce(&copy, &args);
        (dir, results(&copy))
    };
    let (_one, sequential) = reduce_some("1");
    let (_two, parallel) = reduce_some("2");
    // One that found nothing smaller within the budget writes no partial
    // result (the input is the best so far); the others do.
    assert!(
        (1..=3).contains(&sequential.len()),
        "{:?}",
        sequential.keys()
    );
    assert!(
        sequential
            .values()
            .all(|(prefix, _)| prefix == "partial-from-"),
        "the budget stops each: {:?}",
        sequential.keys()
    );
    assert_eq!(sequential, parallel);
}
