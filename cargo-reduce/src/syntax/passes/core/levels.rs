//! HDD proper: ddmin over the nodes of each tree level, top down.
//!
//! Level `d` holds the live nodes at depth `d`; ddmin decides which of them
//! to keep, the others are replaced by their Φ and their subtrees vanish
//! before the next level is built (Misherghi and Su's HDD). Two filters
//! choose the level's nodes: Coarse HDD (Hodován, Listing 4) keeps only the
//! nodes whose Φ is empty, the ones syntax lets disappear entirely; hiding
//! unremovable tokens (Listing 3) leaves out tokens that already read as
//! their Φ, since replacing them changes nothing.
//!
//! An element of a separated list (`a, b, c`) goes with a separator: in
//! the grammar `sepBy(',', x)` repeats `',' x`, so the element is not
//! optional alone, and where it is (`{a: 1, b: 2}`: JavaScript's
//! `commaSep(optional(…))`) removing it alone leaves a stray comma. So an
//! element next to a separator is removed *with* it, as one edit that
//! reads as nothing (Coarse HDD includes it): the ECFG view of the
//! repeated group, which tree-sitter's flat children do not show.

use crate::engine::{OracleError, Start};
use crate::syntax::passes::edits::{reduce_edits, TreeEdit};
use crate::syntax::passes::render_oracle::Tester;
use crate::syntax::tree::{Body, Change, NodeId, Tree};

/// Which nodes of a level ddmin sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LevelFilter {
    /// Only nodes whose Φ is empty (Coarse HDD).
    pub coarse: bool,
    /// Leave out tokens whose text is their Φ.
    pub hide_unremovable: bool,
}

/// One HDD pass over every level, each level's ddmin starting at `start`.
/// Returns whether the text got shorter.
pub(crate) fn hdd_pass(
    tree: &mut Tree,
    filter: LevelFilter,
    start: Start,
    tester: &Tester,
) -> Result<bool, OracleError> {
    let mut changed = false;
    let mut parents = Vec::new();
    loop {
        let edits = level_edits(tree, &parents, filter);
        if tester.stopped() {
            return Ok(changed);
        }
        changed |= reduce_edits(tree, edits, start, tester)?;
        parents = if parents.is_empty() {
            vec![tree.root()]
        } else {
            parents
                .iter()
                .flat_map(|&p| tree.children(p))
                .copied()
                .collect()
        };
        if parents.iter().all(|&p| tree.children(p).is_empty()) {
            return Ok(changed);
        }
    }
}

/// HDD passes until one removes nothing (HDD*). The first pass starts
/// each level at `start`; later passes at single nodes, since every node
/// they see survived a pass and most will again.
pub(crate) fn hdd_star(
    tree: &mut Tree,
    filter: LevelFilter,
    start: Start,
    tester: &Tester,
) -> Result<bool, OracleError> {
    let mut changed = false;
    let mut start = start;
    while hdd_pass(tree, filter, start, tester)? {
        changed = true;
        start = Start::Atoms;
    }
    Ok(changed)
}

/// The edits of the level below `parents` (the root's level when there
/// are none): each candidate node replaced by its Φ, or, for a list
/// element next to a separator, both removed.
fn level_edits(tree: &Tree, parents: &[NodeId], filter: LevelFilter) -> Vec<TreeEdit> {
    if parents.is_empty() {
        let root = tree.root();
        return candidate_edit(tree, root, &[root], 0, filter)
            .into_iter()
            .collect();
    }
    parents
        .iter()
        .flat_map(|&p| {
            let children = tree.children(p);
            (0..children.len())
                .filter_map(move |i| candidate_edit(tree, children[i], children, i, filter))
        })
        .collect()
}

/// The edit of `id`, child `i` of `siblings`, if it is a candidate.
fn candidate_edit(
    tree: &Tree,
    id: NodeId,
    siblings: &[NodeId],
    i: usize,
    filter: LevelFilter,
) -> Option<TreeEdit> {
    let node = tree.node(id);
    if node.separator || matches!(node.body, Body::Text(_)) {
        return None;
    }
    let phi = tree.phi(id);
    let separator = |j: Option<usize>| {
        j.and_then(|j| siblings.get(j))
            .filter(|&&s| tree.node(s).separator)
            .copied()
    };
    if let Some(sep) = separator(Some(i + 1)).or_else(|| separator(i.checked_sub(1))) {
        let nothing = tree.empty();
        return Some(vec![
            (id, Change::Text(nothing)),
            (sep, Change::Text(nothing)),
        ]);
    }
    // An ERROR node's Φ is its own source text (the grammar cannot say
    // what may stand in its place): as Φ it would not shorten the text,
    // only make the node one opaque leaf that renaming and the token pass
    // cannot see into, or bring back what its children lost.
    let error = node.kind == "ERROR" && matches!(node.body, Body::Inner(_));
    if error || (filter.coarse && !phi.is_empty()) {
        return None;
    }
    let unremovable = match node.body {
        Body::Token { start, end } => tree.source((start, end)) == phi.as_bytes(),
        _ => false,
    };
    (!(filter.hide_unremovable && unremovable)).then(|| vec![(id, Change::Phi)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::passes::testing::with_tester;
    use crate::syntax::tree::render_tree;
    use crate::syntax::{build_tree, Lang, Strategy};

    /// rustc recovers from `impl<T: Tr> a T {}` (no `for`), tree-sitter
    /// puts an ERROR node in it. As the text stays the same, HDD could
    /// "remove" the ERROR node to its Φ, its own text, and make it one
    /// opaque leaf: the names in it would be lost to renaming.
    #[test]
    fn an_error_node_keeps_its_children() {
        let input = b"trait Tr {}\nimpl<T: Tr> a T { type c = u8; }\n";
        let mut tree = build_tree(input, Lang::Rust, &Strategy::Best.options());
        let errors = |tree: &Tree| -> Vec<NodeId> {
            let nodes = tree.preorder().into_iter();
            nodes.filter(|&n| tree.node(n).kind == "ERROR").collect()
        };
        assert!(!errors(&tree).is_empty(), "the input has a parse error");
        let same = |b: &[u8]| b == input;
        let filter = LevelFilter {
            coarse: false,
            hide_unremovable: true,
        };
        with_tester(input, &same, |tester| {
            hdd_pass(&mut tree, filter, Start::Halves, tester).unwrap()
        });
        assert_eq!(render_tree(&tree), input);
        for error in errors(&tree) {
            assert!(matches!(tree.node(error).body, Body::Inner(_)));
        }
    }
}
