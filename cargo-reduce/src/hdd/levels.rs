//! HDD proper: ddmin over the nodes of each tree level, top down.
//!
//! Level `d` holds the live nodes at depth `d`; ddmin decides which of them
//! to keep, the others are replaced by their Φ and their subtrees vanish
//! before the next level is built (Misherghi and Su's HDD). Two filters
//! choose the level's nodes: Coarse HDD (Hodován, Listing 4) keeps only the
//! nodes whose Φ is empty, the ones syntax lets disappear entirely; hiding
//! unremovable tokens (Listing 3) leaves out tokens that already read as
//! their Φ, since replacing them changes nothing.

use super::edits::{reduce_edits, Edit};
use super::render::Change;
use super::tester::Tester;
use super::tree::{Body, NodeId, Tree};
use crate::engine::OracleError;

/// Which nodes of a level ddmin sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LevelFilter {
    /// Only nodes whose Φ is empty (Coarse HDD).
    pub coarse: bool,
    /// Leave out tokens whose text is their Φ.
    pub hide_unremovable: bool,
}

/// One HDD pass over every level. Returns whether the text got shorter.
pub fn hdd_pass(
    tree: &mut Tree,
    filter: LevelFilter,
    tester: &Tester,
) -> Result<bool, OracleError> {
    let mut changed = false;
    let mut depth = 0;
    loop {
        let level = tree.level(depth);
        if level.is_empty() || tester.stopped() {
            return Ok(changed);
        }
        let edits: Vec<Edit> = level
            .into_iter()
            .filter(|&id| is_candidate(tree, id, filter))
            .map(|id| vec![(id, Change::Phi)])
            .collect();
        changed |= reduce_edits(tree, edits, tester)?;
        depth += 1;
    }
}

/// HDD passes until one removes nothing (HDD*).
pub fn hdd_star(
    tree: &mut Tree,
    filter: LevelFilter,
    tester: &Tester,
) -> Result<bool, OracleError> {
    let mut changed = false;
    while hdd_pass(tree, filter, tester)? {
        changed = true;
    }
    Ok(changed)
}

fn is_candidate(tree: &Tree, id: NodeId, filter: LevelFilter) -> bool {
    let node = tree.node(id);
    let phi = tree.phi(id);
    match node.body {
        Body::Text(_) => false,
        _ if filter.coarse && !phi.is_empty() => false,
        Body::Token { start, end } => {
            !(filter.hide_unremovable && tree.source((start, end)) == phi.as_bytes())
        }
        Body::Inner(_) => true,
    }
}
