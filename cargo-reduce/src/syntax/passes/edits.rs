//! Edits of a tree, chosen by ddmin and committed.
//!
//! Every reduction step of this module's callers is a list of edits —
//! remove these nodes (HDD level), rename this identifier everywhere,
//! shrink this literal, drop this token — of which as many as possible
//! should be applied while the failure stays. [`reduce_edits`] first tries
//! all of them at once, then runs ddmin over the edits left *unapplied*,
//! so the result is 1-minimal in the sense of HDD: applying any single
//! further edit loses the failure. [`try_edit`] tests one edit alone
//! (hoisting tries alternatives one by one). [`token_pass`], the pipeline's
//! last step, is the plainest list: drop this token.

use super::render_oracle::Tester;
use crate::engine::{OracleError, Start};
use crate::syntax::tree::{render, render_tree, Change, NodeId, Tree};

/// Changes to some nodes, applied together.
pub(super) type Edit = Vec<(NodeId, Change)>;

/// Applies as many of `edits` as the failure allows, ddmin starting at
/// `start` (single edits when they are expected to stay, most of them).
/// Returns whether the text got shorter. On an oracle error the best configuration found is
/// committed before the error is returned.
pub(super) fn reduce_edits(
    tree: &mut Tree,
    edits: Vec<Edit>,
    start: Start,
    tester: &Tester,
) -> Result<bool, OracleError> {
    if edits.is_empty() || tester.stopped() {
        return Ok(false);
    }
    let before = tester.current_len();
    let all = render_edits(tree, &edits, &mut |_| true);
    if tester.test(&all)? {
        commit(tree, edits.iter(), tester);
        return Ok(tester.current_len() < before);
    }
    if edits.len() == 1 {
        return Ok(false);
    }
    let atoms: Vec<u32> = (0..edits.len() as u32).collect();
    let render = |c: &crate::engine::Candidate<'_, u32>| {
        let mut kept = vec![false; edits.len()];
        c.iter().for_each(|&i| kept[i as usize] = true);
        render_edits(tree, &edits, &mut |i| !kept[i])
    };
    let (kept, error) = match tester.ddmin(atoms, start, &render) {
        Ok(kept) => (kept, None),
        Err(e) => (e.best, Some(e.source)),
    };
    let mut keep = vec![false; edits.len()];
    kept.iter().for_each(|&i| keep[i as usize] = true);
    if kept.len() < edits.len() {
        let applied = edits.iter().enumerate().filter(|(i, _)| !keep[*i]);
        commit(tree, applied.map(|(_, e)| e), tester);
    }
    match error {
        Some(e) => Err(e),
        None => Ok(tester.current_len() < before),
    }
}

/// Applies `edit` if the text gets shorter and the failure stays.
pub(super) fn try_edit(tree: &mut Tree, edit: Edit, tester: &Tester) -> Result<bool, OracleError> {
    let edits = [edit];
    let bytes = render_edits(tree, &edits, &mut |_| true);
    if bytes.len() >= tester.current_len() || !tester.test(&bytes)? {
        return Ok(false);
    }
    commit(tree, edits.iter(), tester);
    Ok(true)
}

/// Renders `tree` with the edits `i` for which `applied(i)` holds.
fn render_edits(tree: &Tree, edits: &[Edit], applied: &mut dyn FnMut(usize) -> bool) -> Vec<u8> {
    let mut changes: Vec<Option<Change>> = vec![None; tree.len()];
    for (i, edit) in edits.iter().enumerate() {
        if applied(i) {
            for &(id, change) in edit {
                changes[id.0 as usize] = Some(change);
            }
        }
    }
    render(tree, &|id| changes[id.0 as usize])
}

fn commit<'e>(tree: &mut Tree, edits: impl Iterator<Item = &'e Edit>, tester: &Tester) {
    for &(id, change) in edits.flatten() {
        match change {
            Change::Phi => tree.replace_with_phi(id),
            Change::Text(s) => tree.replace_with_text(id, s),
            Change::Node(d) => tree.hoist(id, d),
        }
    }
    tester.accept(&render_tree(tree));
}

/// ddmin over the remaining tokens, a removed token reading as nothing.
pub(crate) fn token_pass(tree: &mut Tree, tester: &Tester) -> Result<bool, OracleError> {
    let empty = tree.intern("");
    let edits: Vec<Edit> = tree
        .preorder()
        .into_iter()
        .filter(|&id| tree.leaf_text(id).is_some_and(|t| !t.is_empty()))
        .map(|id| vec![(id, Change::Text(empty))])
        .collect();
    // Halves, not single tokens: what is left often goes only in pairs
    // (`: u64`), which single-token complements never find.
    reduce_edits(tree, edits, Start::Halves, tester)
}
