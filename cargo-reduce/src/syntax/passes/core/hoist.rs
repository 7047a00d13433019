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
//! language lists a wrapping for their supertypes: Rust's `b<X>` or `(X,)`
//! becomes `[X]`, one token shorter. Where `X` alone loses the failure,
//! the slice often keeps it: like the wrapper it asks that `X` be sized
//! and well-formed, which is what rustc's ICEs in trait selection turn
//! on (rust-lang/rust#148095's `b<Self::Output>:` bound). A wrapping may
//! also bring a descendant of another supertype into the place: an
//! expression as a statement, so that JavaScript's `if (e);`, `return e;`
//! or `var v = e;` becomes `e;`, keeping `e`'s evaluation where HDD can
//! only delete the statement whole. Those are tried last (the nearest
//! [`OTHER_TRIES`]), after the hoists and unwraps of the same
//! supertype, so that they add tests only where those all fail.
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

/// Descendants of another supertype tried per node, wrapped, after those.
const OTHER_TRIES: usize = 2;

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
/// fitting children of a node in its subtree, the others blanked; then up
/// to [`OTHER_TRIES`] descendants of another supertype, wrapped.
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
    let id_len = OnceCell::new();
    let mut found = Vec::new();
    let mut others = Vec::new();
    let mut queue = VecDeque::from([id]);
    while let Some(n) = queue.pop_front() {
        if n != id && fits(n) {
            found.push(vec![(id, Change::Node(n))]);
            found.extend(wrapped(tree, (id, &id_len), n, spec, Supertypes::Same));
        } else if n != id && others.len() < OTHER_TRIES {
            others.extend(wrapped(tree, (id, &id_len), n, spec, Supertypes::Other));
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
    others.truncate(OTHER_TRIES);
    found.extend(others);
    found
}

/// Which wrappings [`wrapped`] offers: a node in the place of one of its
/// own supertype (`b<X>` → `[X]`), or of another (`if (e);` → `e;`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Supertypes {
    Same,
    Other,
}

/// `id` (with its rendered length, measured once) replaced by its
/// descendant `n` in each wrapping the language has for their
/// supertypes, where that is shorter than `id`.
fn wrapped<'s>(
    tree: &'s Tree,
    (id, id_len): (NodeId, &'s OnceCell<usize>),
    n: NodeId,
    spec: Option<&'s Spec>,
    supertypes: Supertypes,
) -> impl Iterator<Item = TreeEdit> + 's {
    let is = move |spec: &Spec, x: NodeId, supertype| spec.is_a(tree.node(x).kind, supertype);
    let both = spec.into_iter().flat_map(move |spec| {
        let wrappings = spec.canon.wrappings.iter();
        wrappings.filter(move |w| {
            let same = w.place == w.hoisted;
            (same == (supertypes == Supertypes::Same))
                && is(spec, id, w.place)
                && is(spec, n, w.hoisted)
        })
    });
    // Measured only for a pair some wrapping takes (most nodes are of no
    // supertype a wrapping names): walks of subtrees.
    let room = OnceCell::new();
    both.filter(move |w| {
        let room = *room.get_or_init(|| {
            let id_len = *id_len.get_or_init(|| rendered_len(tree, id));
            id_len.saturating_sub(rendered_len(tree, n))
        });
        w.wrapper.open.len() + w.wrapper.close.len() < room
    })
    .map(move |w| vec![(id, Change::Wrap(n, &w.wrapper))])
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
    use crate::syntax::passes::testing::{pass_output, rust_pass_output};
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

    /// What HDD can only delete whole gives way to the expression it
    /// evaluates: `if (e);`, `return e;`, `var v = e;` become `e;`. An
    /// oracle that keeps only the statement (its `if`) sees no change.
    #[test]
    fn a_statement_gives_way_to_the_expression_it_evaluates() {
        let calls_f = |t: &[u8]| {
            let s = String::from_utf8_lossy(t);
            s.contains("f(1)") && !crate::syntax::tests::has_error(Lang::JavaScript, t)
        };
        let pass =
            |tree: &mut Tree, tester: &Tester| hoist_pass(tree, Lang::JavaScript.spec(), tester);
        for input in [
            "if (f(1));\n",
            "function g() { return f(1); }\n",
            "var v = f(1);\n",
        ] {
            let out = pass_output(Lang::JavaScript, input, &calls_f, pass);
            // The expression keeps the space before it (the format step's).
            assert_eq!(out.trim(), "f(1);", "{input}");
        }
        let keeps_if = |t: &[u8]| t.starts_with(b"if (f(1))");
        assert_eq!(
            pass_output(Lang::JavaScript, "if (f(1));\n", &keeps_if, pass),
            "if (f(1));\n"
        );
    }
}
