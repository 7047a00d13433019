//! Running a pass in a unit test: a tester over a closure oracle, and a
//! pass's output on a parsed text.

pub(super) use crate::syntax::passes::render_oracle::{with_tester, with_tester_on};

use crate::engine::OracleError;
use crate::syntax::passes::render_oracle::Tester;
use crate::syntax::tree::Tree;
use crate::syntax::Lang;

/// The text after a Rust-only `pass` over `input`'s tree: [`pass_output`].
pub(super) fn rust_pass_output(
    input: &str,
    oracle: &(dyn Fn(&[u8]) -> bool + Sync),
    pass: fn(&mut Tree, &Tester) -> Result<bool, OracleError>,
) -> String {
    pass_output(Lang::Rust, input, oracle, pass)
}

/// The text after `pass` over `input`'s tree in `lang` as the pipeline
/// has it (squeezed: a Rust `type_parameter` of one name is that name).
pub(super) fn pass_output(
    lang: Lang,
    input: &str,
    oracle: &(dyn Fn(&[u8]) -> bool + Sync),
    pass: fn(&mut Tree, &Tester) -> Result<bool, OracleError>,
) -> String {
    use crate::syntax::{build_tree, Strategy};
    let mut tree = build_tree(input.as_bytes(), lang, &Strategy::Best.options());
    crate::syntax::squeeze(&mut tree);
    with_tester(input.as_bytes(), oracle, |tester| {
        pass(&mut tree, tester).unwrap()
    });
    String::from_utf8(crate::syntax::tree::render_tree(&tree)).unwrap()
}
