//! Hoisting: replacing a node by descendants that can stand in its place
//! (the `restructure` part of a strategy).
//!
//! HDD can only replace a node by its Φ; `f(g(h(x)))` cannot become
//! `h(x)` that way. Perses and the Fuzzing Book's GrammarReducer replace a
//! node by a same-symbol descendant instead. Here a descendant qualifies if
//! it has the node's kind or shares a grammar supertype with it (Perses'
//! compatible replacements: any `_expression` for an `_expression`, so
//! `a + f(b)` can become `b`).
//!
//! A list element may also be replaced by *several* descendants at once:
//! the elements of a list inside it that fit where it stands (unwrapping,
//! shrinkray's "lift", C-Vise's removal of a brace pair). So
//! `function f() { g(a); function a() {} }` among statements can become
//! `g(a); function a() {}`, and `impl S { fn f() {} }` among items
//! `fn f() {}` — moves no single-node hoist or deletion makes.
//!
//! A node may also be replaced by a descendant *wrapped*, where the
//! language lists a wrapper for their supertype: Rust's `b<X>` or `(X,)`
//! becomes `[X]`, one token shorter. Where `X` alone loses the failure,
//! the slice often keeps it: like the wrapper it asks that `X` be sized
//! and well-formed, which is what rustc's ICEs in trait selection turn
//! on (rust-lang/rust#148095's `b<Self::Output>:` bound).
//!
//! Nodes are visited top down (larger subtrees first); each one's
//! candidates are tried nearest first (the GrammarReducer's depth-oriented
//! order, which tries the largest replacements first), at most
//! [`MAX_TRIES`] of them. A successful hoist is retried on the same node,
//! whose content is new.

use std::cell::OnceCell;
use std::collections::VecDeque;

use crate::engine::OracleError;
use crate::syntax::lang::Spec;
use crate::syntax::passes::edits::{apply_first, TreeEdit};
use crate::syntax::passes::nav::rendered_len;
use crate::syntax::passes::render_oracle::Tester;
use crate::syntax::tree::{Change, NodeId, Tree};

/// Replacements tried per node.
pub(super) const MAX_TRIES: usize = 8;

/// One hoisting pass over the tree. Returns whether the text got shorter.
pub(crate) fn hoist_pass(
    tree: &mut Tree,
    spec: Option<&Spec>,
    tester: &Tester,
) -> Result<bool, OracleError> {
    let mut changed = false;
    let mut stack = vec![tree.root()];
    while let Some(id) = stack.pop() {
        if tester.stopped() {
            break;
        }
        while apply_first(tree, &candidates(tree, id, spec), tester)? {
            changed = true;
        }
        stack.extend(tree.children(id).iter().rev());
    }
    Ok(changed)
}

/// Up to [`MAX_TRIES`] replacements of `id`, nearest first: a descendant
/// that fits in its place, alone or wrapped, or (for a list element) the
/// fitting children of a node in its subtree, the others blanked.
pub(super) fn candidates(tree: &Tree, id: NodeId, spec: Option<&Spec>) -> Vec<TreeEdit> {
    let kind = tree.node(id).kind;
    let fits = |n: NodeId| {
        let other = tree.node(n).kind;
        match spec {
            Some(spec) => spec.interchangeable(kind, other),
            None => other == kind,
        }
    };
    let list_element = tree.phi(id).is_empty();
    let mut found = Vec::new();
    let mut queue = VecDeque::from([id]);
    while let Some(n) = queue.pop_front() {
        if n != id && fits(n) {
            found.push(vec![(id, Change::Node(n))]);
            found.extend(wrapped(tree, id, n, spec));
        }
        if list_element {
            found.extend(unwrap(tree, id, n, &fits));
        }
        if found.len() >= MAX_TRIES {
            found.truncate(MAX_TRIES);
            break;
        }
        queue.extend(tree.children(n));
    }
    found
}

/// `id` replaced by its descendant `n` in each wrapper the language has
/// for a supertype of both, where that is shorter than `id`.
fn wrapped<'s>(
    tree: &'s Tree,
    id: NodeId,
    n: NodeId,
    spec: Option<&'s Spec>,
) -> impl Iterator<Item = TreeEdit> + 's {
    let is = move |spec: &Spec, x: NodeId, supertype| spec.is_a(tree.node(x).kind, supertype);
    let both = spec.into_iter().flat_map(move |spec| {
        let wrappers = spec.canon.wrappers.iter();
        wrappers.filter(move |(supertype, _)| is(spec, id, supertype) && is(spec, n, supertype))
    });
    // Measured only for a pair some wrapper takes (most nodes are no type,
    // and JavaScript has no wrappers): two walks of subtrees.
    let room = OnceCell::new();
    both.filter(move |(_, w)| {
        let room =
            *room.get_or_init(|| rendered_len(tree, id).saturating_sub(rendered_len(tree, n)));
        w.open.len() + w.close.len() < room
    })
    .map(move |(_, w)| vec![(id, Change::Wrap(n, w))])
}

/// `id` replaced by the children of `list` (in its subtree, or itself)
/// that fit in its place, when there are two or more (one is a hoist);
/// the other children of `list` (delimiters, mostly) read as nothing.
fn unwrap(
    tree: &Tree,
    id: NodeId,
    list: NodeId,
    fits: &dyn Fn(NodeId) -> bool,
) -> Option<TreeEdit> {
    let children = tree.children(list);
    if children.iter().filter(|&&c| fits(c)).count() < 2 {
        return None;
    }
    let nothing = tree.empty();
    // `id` itself as the list: its fitting children stay where they are.
    let mut edit = if list == id {
        Vec::new()
    } else {
        vec![(id, Change::Node(list))]
    };
    edit.extend(
        children
            .iter()
            .filter(|&&c| !fits(c))
            .map(|&c| (c, Change::Text(nothing))),
    );
    Some(edit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::passes::testing::rust_pass_output;
    use crate::syntax::Lang;

    /// Where the bare type loses the failure, the slice of it keeps it:
    /// `(T,)` and `b<T>` become `[T]`, one token shorter.
    #[test]
    fn a_type_gives_way_to_a_slice_of_what_it_holds() {
        let keeps_t_wrapped = |t: &[u8]| {
            let s = String::from_utf8_lossy(t);
            ["[T]", "(T,)", "b<T>"].iter().any(|w| s.contains(w))
        };
        for input in ["type a = (T,);\n", "type a = b<T>;\n"] {
            let out = rust_pass_output(input, &keeps_t_wrapped, |tree, tester| {
                hoist_pass(tree, Lang::Rust.spec(), tester)
            });
            assert_eq!(out, "type a = [T];\n");
        }
    }
}
