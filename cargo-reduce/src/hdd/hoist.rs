//! Hoisting: replacing a node by a descendant that can stand in its place.
//!
//! HDD can only replace a node by its Φ; `f(g(h(x)))` cannot become
//! `h(x)` that way. Perses and the Fuzzing Book's GrammarReducer replace a
//! node by a same-symbol descendant instead. Here a descendant qualifies if
//! it has the node's kind or shares a grammar supertype with it (Perses'
//! compatible replacements: any `_expression` for an `_expression`, so
//! `a + f(b)` can become `b`). Nodes are visited top down (larger subtrees
//! first); each one's candidates are tried nearest first (the
//! GrammarReducer's depth-oriented order, which tries the largest
//! replacements first), at most [`MAX_TRIES`] of them. A successful hoist
//! is retried on the same node, whose content is new.

use std::collections::VecDeque;

use super::edits::try_edit;
use super::lang::Spec;
use super::render::Change;
use super::tester::Tester;
use super::tree::{NodeId, Tree};
use crate::engine::OracleError;

/// Descendants tried per node.
pub const MAX_TRIES: usize = 8;

/// One hoisting pass over the tree. Returns whether the text got shorter.
pub fn hoist_pass(
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
        while hoist_once(tree, id, spec, tester)? {
            changed = true;
        }
        stack.extend(tree.children(id).iter().rev());
    }
    Ok(changed)
}

/// Tries `id`'s candidates in turn; true once one replaced it.
fn hoist_once(
    tree: &mut Tree,
    id: NodeId,
    spec: Option<&Spec>,
    tester: &Tester,
) -> Result<bool, OracleError> {
    for d in candidates(tree, id, spec) {
        if try_edit(tree, vec![(id, Change::Node(d))], tester)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Up to [`MAX_TRIES`] descendants of `id` that can stand in its place
/// (its kind, or with a grammar, a kind of a shared supertype), nearest
/// first.
fn candidates(tree: &Tree, id: NodeId, spec: Option<&Spec>) -> Vec<NodeId> {
    let kind = tree.node(id).kind;
    let fits = |other: &str| match spec {
        Some(spec) => spec.interchangeable(kind, other),
        None => other == kind,
    };
    let mut found = Vec::new();
    let mut queue: VecDeque<NodeId> = tree.children(id).iter().copied().collect();
    while let Some(n) = queue.pop_front() {
        if fits(tree.node(n).kind) {
            found.push(n);
            if found.len() == MAX_TRIES {
                break;
            }
        }
        queue.extend(tree.children(n));
    }
    found
}
