//! The reduction passes over a tree: each one proposes edits (remove
//! these nodes, hoist this one, rename that name), keeps what the oracle
//! allows and commits it. All test rendered candidates through
//! [`Tester`], the byte oracle behind a rendering adapter.
//!
//! - [`levels`]: HDD proper, ddmin over each tree level (Coarse HDD, HDD,
//!   HDD*);
//! - [`edits`]: ddmin over a list of edits, one edit alone, and the final
//!   ddmin over the remaining tokens;
//! - [`hoist`]: a node replaced by descendants that fit in its place;
//! - [`modules`]: a Rust module's items in its place, its name dropped
//!   from the paths through it;
//! - [`macros`]: a Rust macro call replaced by a braced group of its
//!   argument, or a crate's own macro by what its calls expand to;
//! - [`uses`]: a path spelled twice or more imported once (`use`);
//! - [`newtypes`]: a Rust newtype (`struct W<T>(T);`) unwrapped at every
//!   use;
//! - [`simplify`]: plain expressions, renaming identifiers, shrinking
//!   literals, types by the shortest declared name, typed zeros (`0usize`);
//! - [`inline`]: single-use bindings replaced by their value;
//! - [`calls`]: a call replaced by the body of the function it calls
//!   (JavaScript);
//! - [`bounds`]: Rust's `where` clauses folded into `<T: …>`;
//! - [`layout`]: the final whitespace, as little as the lexer needs;
//! - [`format`]: the result pretty-printed, if it still fails so.

mod bounds;
mod calls;
mod edits;
mod format;
mod hoist;
mod inline;
mod layout;
mod levels;
mod macros;
mod modules;
mod newtypes;
mod render_oracle;
mod simplify;
mod uses;

pub(super) use bounds::bounds_pass;
pub(super) use calls::calls_pass;
pub(super) use edits::token_pass;
pub(super) use format::format_pass;
pub(crate) use format::rustfmt;
pub(super) use hoist::hoist_pass;
pub(super) use inline::inline_pass;
pub(super) use layout::layout_pass;
pub(super) use levels::{hdd_pass, hdd_star, LevelFilter};
pub(super) use macros::{expand_pass, macros_pass, Groups, Growth};
pub(super) use modules::modules_pass;
pub(super) use newtypes::newtypes_pass;
pub(super) use render_oracle::Tester;
pub(super) use simplify::{
    declared_types, plain_expressions, rename_identifiers, shrink_literals, spelled_zeros,
    typed_literals,
};
pub(super) use uses::uses_pass;

use std::collections::HashMap;

use crate::syntax::grammar::is_group;
use crate::syntax::tree::{NodeId, Tree};

/// The child of `id` in place `field`, also inside an optional group
/// (`= value` in `let x = value`).
pub(super) fn field_child(tree: &Tree, id: NodeId, field: &str) -> Option<NodeId> {
    tree.children(id).iter().find_map(|&c| {
        let node = tree.node(c);
        if node.field == Some(field) {
            Some(c)
        } else if is_group(node.kind) {
            field_child(tree, c, field)
        } else {
            None
        }
    })
}

/// The elements of a bracketed list (`<T>`, `(a, b)`): its children
/// that are not brackets or commas.
pub(super) fn list_elements(tree: &Tree, list: NodeId) -> Vec<NodeId> {
    tree.children(list)
        .iter()
        .copied()
        .filter(|&c| !matches!(tree.node(c).kind, "<" | ">" | "(" | ")" | ","))
        .collect()
}

/// The length of `id`'s text without the gaps.
pub(super) fn rendered_len(tree: &Tree, id: NodeId) -> usize {
    tree.leaves_sum(id, <[u8]>::len)
}

/// Each live node's parent.
pub(super) type Parents = HashMap<NodeId, NodeId>;

/// The parent of every live node.
pub(super) fn parents(tree: &Tree) -> Parents {
    let mut out = HashMap::new();
    for id in tree.preorder() {
        for &c in tree.children(id) {
            out.insert(c, id);
        }
    }
    out
}

/// Whether `id` lies inside `ancestor`'s subtree (`x = x + 1` does not
/// inline into itself).
pub(super) fn within(parents: &Parents, mut id: NodeId, ancestor: NodeId) -> bool {
    loop {
        if id == ancestor {
            return true;
        }
        match parents.get(&id) {
            Some(&p) => id = p,
            None => return false,
        }
    }
}

/// Runs `pass` with a tester over `oracle` that has accepted `input`;
/// returns what the pass returned and the number of tests it ran.
#[cfg(test)]
fn with_tester<T>(
    input: &[u8],
    oracle: &(dyn Fn(&[u8]) -> bool + Sync),
    pass: impl FnOnce(&Tester) -> T,
) -> (T, u64) {
    with_tester_on(1, input, oracle, pass)
}

/// [`with_tester`] with up to `jobs` tests at once.
#[cfg(test)]
fn with_tester_on<T>(
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
#[cfg(test)]
fn rust_pass_output(
    input: &str,
    oracle: &(dyn Fn(&[u8]) -> bool + Sync),
    pass: fn(&mut Tree, &Tester) -> Result<bool, crate::engine::OracleError>,
) -> String {
    use crate::syntax::{build_tree, Lang, Strategy};
    let mut tree = build_tree(input.as_bytes(), Lang::Rust, &Strategy::Best.options());
    crate::syntax::squeeze(&mut tree);
    with_tester(input.as_bytes(), oracle, |tester| {
        pass(&mut tree, tester).unwrap()
    });
    String::from_utf8(crate::syntax::tree::render_tree(&tree)).unwrap()
}
