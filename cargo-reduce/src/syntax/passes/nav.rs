//! Finding one's way in a tree, as the passes need it: a node's child in
//! a grammar field, a bracketed list's elements, parents and ancestry,
//! the length of a subtree's text.

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
