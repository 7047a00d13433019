//! Running a pass in a unit test: a tester over a closure oracle, and a
//! Rust pass's output on a parsed text.

use crate::engine::OracleError;
use crate::syntax::passes::render_oracle::Tester;
use crate::syntax::tree::Tree;

/// Runs `pass` with a tester over `oracle` that has accepted `input`;
/// returns what the pass returned and the number of tests it ran.
pub(super) fn with_tester<T>(
    input: &[u8],
    oracle: &(dyn Fn(&[u8]) -> bool + Sync),
    pass: impl FnOnce(&Tester) -> T,
) -> (T, u64) {
    with_tester_on(1, input, oracle, pass)
}

/// [`with_tester`] with up to `jobs` tests at once.
pub(super) fn with_tester_on<T>(
    jobs: usize,
    input: &[u8],
    oracle: &(dyn Fn(&[u8]) -> bool + Sync),
    pass: impl FnOnce(&Tester) -> T,
) -> (T, u64) {
    use crate::engine::{Candidate, DdminOptions, Reducer};
    let run = Reducer::new().jobs(jobs);
    let ctx = run.context();
    let oracle = |c: &Candidate<'_, u8>| oracle(&c.to_vec());
    let tester = Tester::new(&oracle, &ctx, DdminOptions::default());
    tester.accept(input);
    let out = pass(&tester);
    (out, run.tests())
}

/// The text after a Rust-only `pass` over `input`'s tree as the pipeline
/// has it (squeezed: a `type_parameter` of one name is that name).
pub(super) fn rust_pass_output(
    input: &str,
    oracle: &(dyn Fn(&[u8]) -> bool + Sync),
    pass: fn(&mut Tree, &Tester) -> Result<bool, OracleError>,
) -> String {
    use crate::syntax::{build_tree, Lang, Strategy};
    let mut tree = build_tree(input.as_bytes(), Lang::Rust, &Strategy::Best.options());
    crate::syntax::squeeze(&mut tree);
    with_tester(input.as_bytes(), oracle, |tester| {
        pass(&mut tree, tester).unwrap()
    });
    String::from_utf8(crate::syntax::tree::render_tree(&tree)).unwrap()
}
