//! Inlining: a name bound once and used once gives way to its value.
//!
//! `let c = self.d.len(); … e / c` becomes `… e / self.d.len()`: the
//! binding goes and its value takes the place of the one use. No deletion
//! or hoist makes this move (the value has to travel), and once a program
//! is small, bindings of single-use names are much of what is left
//! (C-Reduce inlines for the same reason). Spelling decides what is a use:
//! a binding qualifies when its name occurs exactly once more among the
//! tokens that can name a variable; the oracle catches the rest (shadowing,
//! precedence, evaluation order). In JavaScript a property path counts as
//! a name too: `o.p = v; … o.p.q()` becomes `… v.q()`, as a library's
//! objects are built by assigning their properties one by one.

use std::collections::HashMap;

use crate::engine::OracleError;
use crate::syntax::lang::{Binding, Spec};
use crate::syntax::passes::edits::{apply_until_none, TreeEdit};
use crate::syntax::passes::nav::{field_child, parents, within};
use crate::syntax::passes::render_oracle::Tester;
use crate::syntax::tree::{render_node, Body, Change, NodeId, Tree};

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
pub(super) fn inlinings(tree: &Tree, spec: &Spec) -> Vec<TreeEdit> {
    let parents = parents(tree);
    let mut uses: HashMap<Vec<u8>, Vec<NodeId>> = HashMap::new();
    for id in tree.preorder() {
        if let Some(text) = name_text(tree, id, spec, spec.canon.references) {
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
        let Some((name, value)) = parts(tree, id, binding, spec) else {
            continue;
        };
        let text = name_text(tree, name, spec, &[spec.canon.variable]).expect("a name");
        let [only] = uses
            .get(&text)
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
        let same_kind = tree.node(only).kind == tree.node(name).kind;
        if same_kind && !within(&parents, only, statement) {
            edits.push(vec![
                (statement, Change::Text(nothing)),
                (only, Change::Node(value)),
            ]);
        }
    }
    edits
}

/// What `id` names, if it is a name or a property path: a token of one
/// of `tokens`' kinds (its text), or a node of a path kind (`o.p`, its
/// tokens' text).
fn name_text(tree: &Tree, id: NodeId, spec: &Spec, tokens: &[&str]) -> Option<Vec<u8>> {
    let node = tree.node(id);
    match node.body {
        Body::Token { .. } if tokens.contains(&node.kind) => tree.leaf_text(id).map(<[u8]>::to_vec),
        Body::Inner(_) if spec.canon.paths.contains(&node.kind) => Some(render_node(tree, id)),
        _ => None,
    }
}

/// The name (a variable's token or a property path) and the value of
/// binding node `id`, by field.
fn parts(tree: &Tree, id: NodeId, binding: &Binding, spec: &Spec) -> Option<(NodeId, NodeId)> {
    let name = field_child(tree, id, binding.name)?;
    name_text(tree, name, spec, &[spec.canon.variable])?;
    let value = field_child(tree, id, binding.value)?;
    Some((name, value))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::passes::testing::with_tester;
    use crate::syntax::tree::render_tree;
    use crate::syntax::{build_tree, squeeze, Lang, Strategy};

    /// The text after the pass over JavaScript `input`, with an oracle
    /// that wants `needle`, whitespace removed.
    fn inlined(input: &str, needle: &'static str) -> String {
        let spec = Lang::JavaScript.spec().unwrap();
        let mut tree = build_tree(
            input.as_bytes(),
            Lang::JavaScript,
            &Strategy::Best.options(),
        );
        squeeze(&mut tree);
        let oracle = move |t: &[u8]| String::from_utf8_lossy(t).contains(needle);
        with_tester(input.as_bytes(), &oracle, |tester| {
            inline_pass(&mut tree, spec, tester).unwrap()
        });
        let out = String::from_utf8(render_tree(&tree)).unwrap();
        out.split_whitespace().collect()
    }

    #[test]
    fn a_property_path_assigned_and_read_once_gives_way_to_its_value() {
        let input = "var a = new b;\na.k = h;\na.k(0);\n";
        assert_eq!(inlined(input, "(0)"), "vara=newb;h(0);");
    }

    #[test]
    fn a_property_path_read_twice_stays() {
        let input = "a.k = h;\na.k(0);\na.k(1);\n";
        assert_eq!(inlined(input, "(0)"), "a.k=h;a.k(0);a.k(1);");
    }
}
