//! Inlining: a name bound once and used once gives way to its value.
//!
//! `let c = self.d.len(); … e / c` becomes `… e / self.d.len()`: the
//! binding goes and its value takes the place of the one use. No deletion
//! or hoist makes this move (the value has to travel), and once a program
//! is small, bindings of single-use names are much of what is left
//! (C-Reduce inlines for the same reason). Spelling decides what is a use:
//! a binding qualifies when its name occurs exactly once more among the
//! tokens that can name a variable; the oracle catches the rest (shadowing,
//! precedence, evaluation order).

use std::collections::HashMap;

use super::edits::{apply_until_none, Edit};
use super::field_child;
use super::render_oracle::Tester;
use crate::engine::OracleError;
use crate::syntax::lang::{Binding, Spec};
use crate::syntax::tree::{Body, Change, NodeId, Tree};

/// Inlines single-use bindings until none can go. Returns whether the
/// text got shorter.
pub(crate) fn inline_pass(
    tree: &mut Tree,
    spec: &Spec,
    tester: &Tester,
) -> Result<bool, OracleError> {
    apply_until_none(tree, tester, |tree| inlinings(tree, spec))
}

/// Every inlining the tree offers now: the binding's statement removed,
/// its value in the place of the use.
pub(super) fn inlinings(tree: &Tree, spec: &Spec) -> Vec<Edit> {
    let parents = parents(tree);
    let mut uses: HashMap<&[u8], Vec<NodeId>> = HashMap::new();
    for id in tree.preorder() {
        let node = tree.node(id);
        if matches!(node.body, Body::Token { .. }) && spec.canon.references.contains(&node.kind) {
            let text = tree.leaf_text(id).expect("a token");
            uses.entry(text).or_default().push(id);
        }
    }
    let nothing = tree.empty();
    let mut edits = Vec::new();
    for id in tree.preorder() {
        let Some(binding) = spec
            .canon
            .bindings
            .iter()
            .find(|b| b.kind == tree.node(id).kind)
        else {
            continue;
        };
        let Some((name, value)) = parts(tree, id, binding, spec.canon.variable) else {
            continue;
        };
        let text = tree.leaf_text(name).expect("a token");
        let [only] = uses
            .get(text)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter(|&&u| u != name)
            .copied()
            .collect::<Vec<_>>()[..]
        else {
            continue;
        };
        let statement = if binding.parents.is_empty() {
            id
        } else {
            match parents.get(&id) {
                Some(&p) if sole_binding(tree, p, binding) => p,
                _ => continue,
            }
        };
        if tree.node(only).kind == spec.canon.variable && !within(&parents, only, statement) {
            edits.push(vec![
                (statement, Change::Text(nothing)),
                (only, Change::Node(value)),
            ]);
        }
    }
    edits
}

/// The name token and the value of binding node `id`, by field.
fn parts(tree: &Tree, id: NodeId, binding: &Binding, variable: &str) -> Option<(NodeId, NodeId)> {
    let name = field_child(tree, id, binding.name)?;
    let is_token = matches!(tree.node(name).body, Body::Token { .. });
    let value = field_child(tree, id, binding.value)?;
    (is_token && tree.node(name).kind == variable).then_some((name, value))
}

/// `parent` is a statement the binding may take along: of a kind the
/// binding names, with no other binding (`var a = 1, b = 2` stays).
fn sole_binding(tree: &Tree, parent: NodeId, binding: &Binding) -> bool {
    if !binding.parents.contains(&tree.node(parent).kind) {
        return false;
    }
    let kind_count = tree
        .children(parent)
        .iter()
        .filter(|&&c| tree.node(c).kind == binding.kind)
        .count();
    kind_count == 1
}

/// Whether `id` lies inside `ancestor`'s subtree (`x = x + 1` does not
/// inline into itself).
fn within(parents: &HashMap<NodeId, NodeId>, mut id: NodeId, ancestor: NodeId) -> bool {
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

fn parents(tree: &Tree) -> HashMap<NodeId, NodeId> {
    let mut out = HashMap::new();
    for id in tree.preorder() {
        for &c in tree.children(id) {
            out.insert(c, id);
        }
    }
    out
}
