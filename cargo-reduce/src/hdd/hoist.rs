//! Hoisting: replacing a node by a descendant of the same kind.
//!
//! HDD can only replace a node by its Φ; `f(g(h(x)))` cannot become
//! `h(x)` that way. Perses and the Fuzzing Book's GrammarReducer replace a
//! node by a same-symbol descendant instead. Nodes are visited top down
//! (larger subtrees first); each one's same-kind descendants are tried
//! nearest first (the GrammarReducer's depth-oriented order, which tries
//! the largest replacements first), at most [`MAX_TRIES`] of them. A
//! successful hoist is retried on the same node, whose content is new.

use std::collections::VecDeque;

use super::edits::try_edit;
use super::render::Change;
use super::tester::Tester;
use super::tree::{NodeId, Tree};
use crate::engine::OracleError;

/// Same-kind descendants tried per node.
pub const MAX_TRIES: usize = 8;

/// One hoisting pass over the tree. Returns whether the text got shorter.
pub fn hoist_pass(tree: &mut Tree, tester: &Tester) -> Result<bool, OracleError> {
    let mut changed = false;
    let mut stack = vec![tree.root()];
    while let Some(id) = stack.pop() {
        if tester.stopped() {
            break;
        }
        while hoist_once(tree, id, tester)? {
            changed = true;
        }
        stack.extend(tree.children(id).iter().rev());
    }
    Ok(changed)
}

/// Tries `id`'s same-kind descendants in turn; true once one replaced it.
fn hoist_once(tree: &mut Tree, id: NodeId, tester: &Tester) -> Result<bool, OracleError> {
    for d in same_kind_descendants(tree, id) {
        if try_edit(tree, vec![(id, Change::Node(d))], tester)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Up to [`MAX_TRIES`] descendants of `id` with its kind, nearest first.
fn same_kind_descendants(tree: &Tree, id: NodeId) -> Vec<NodeId> {
    let kind = tree.node(id).kind;
    let mut found = Vec::new();
    let mut queue: VecDeque<NodeId> = tree.children(id).iter().copied().collect();
    while let Some(n) = queue.pop_front() {
        if tree.node(n).kind == kind {
            found.push(n);
            if found.len() == MAX_TRIES {
                break;
            }
        }
        queue.extend(tree.children(n));
    }
    found
}
