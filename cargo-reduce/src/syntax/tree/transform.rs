//! Tree transformations applied before HDD (Hodován's thesis, parts 4–5).
//!
//! - [`squeeze`] (Listing 2): a node with a single child and the same Φ is
//!   replaced by that child; HDD would otherwise spend a level on each.
//! - [`flatten`] (Listing 5): a node whose first (last) child has its own
//!   kind is a left (right) recursive list; the child's children are lifted
//!   into the node and the rest of the node is wrapped into a new node with
//!   Φ "", so every list element becomes a removable sibling.

use super::{Body, NodeId, Tree};

/// Kind of the nodes [`flatten`] creates.
pub(super) const FLATTENED: &str = "(flattened)";

/// Squeezes single-child chains whose nodes share Φ (Listing 2).
///
/// ```
/// use cargo_reduce::syntax::{build_tree, squeeze, Lang, Strategy, Tree};
///
/// let depth = |t: &Tree| (0..).take_while(|&d| !t.level(d).is_empty()).count();
/// let mut tree = build_tree(b"fn f() { g(1); }", Lang::Rust, &Strategy::Hdd.options());
/// let before = depth(&tree);
/// squeeze(&mut tree);
/// assert!(depth(&tree) < before);
/// ```
pub fn squeeze(tree: &mut Tree) {
    for id in tree.preorder().into_iter().rev() {
        let Body::Inner(children) = &tree.node(id).body else {
            continue;
        };
        let squeezed: Vec<NodeId> = children.iter().map(|&c| squeezed(tree, c)).collect();
        tree.node_mut(id).body = Body::Inner(squeezed);
    }
    let root = squeezed(tree, tree.root());
    tree.finish(root);
}

/// `id`, or the end of the single-child chain below it with the same Φ.
fn squeezed(tree: &Tree, mut id: NodeId) -> NodeId {
    while let [only] = tree.children(id) {
        if tree.node(*only).phi != tree.node(id).phi {
            break;
        }
        id = *only;
    }
    id
}

/// Flattens left- and right-recursive chains (Listing 5).
///
/// ```
/// use cargo_reduce::syntax::{build_tree, flatten, Lang, Strategy, Tree};
///
/// let depth = |t: &Tree| (0..).take_while(|&d| !t.level(d).is_empty()).count();
/// let mut tree = build_tree(b"let x = a + b + c + d + e;", Lang::Rust, &Strategy::Hdd.options());
/// let before = depth(&tree);
/// flatten(&mut tree); // a + b + c + d + e: five siblings, not a chain
/// assert!(depth(&tree) < before);
/// ```
pub fn flatten(tree: &mut Tree) {
    let empty = tree.intern("");
    for id in tree.preorder().into_iter().rev() {
        let children = tree.children(id).to_vec();
        if children.len() < 2 {
            continue;
        }
        let kind = tree.node(id).kind;
        let same = |c: NodeId| tree.node(c).kind == kind && !tree.children(c).is_empty();
        let (left, right) = (same(children[0]), same(children[children.len() - 1]));
        let new_children = if left {
            let mut lifted = tree.children(children[0]).to_vec();
            lifted.push(tree.add(FLATTENED, empty, Body::Inner(children[1..].to_vec())));
            lifted
        } else if right {
            let (last, rest) = children.split_last().expect("two children");
            let mut lifted = vec![tree.add(FLATTENED, empty, Body::Inner(rest.to_vec()))];
            lifted.extend_from_slice(tree.children(*last));
            lifted
        } else {
            continue;
        };
        tree.node_mut(id).body = Body::Inner(new_children);
    }
    let root = tree.root();
    tree.finish(root);
}
