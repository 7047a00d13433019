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

/// Renders a text with edit `i` applied where `applied(i)` holds.
pub(super) type RenderApplied<'a> = dyn Fn(&dyn Fn(usize) -> bool) -> Vec<u8> + Sync + 'a;

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
    let render = |applied: &dyn Fn(usize) -> bool| render_edits(tree, &edits, &mut |i| applied(i));
    let (applied, error) = choose(edits.len(), start, tester, &render);
    if applied.iter().any(|&a| a) {
        let chosen = edits.iter().zip(&applied).filter(|(_, &a)| a);
        commit(tree, chosen.map(|(e, _)| e), tester);
    }
    match error {
        Some(e) => Err(e),
        None => Ok(tester.current_len() < before),
    }
}

/// Which of `n` edits to apply, as many as the failure allows: all at
/// once if that passes, else ddmin from `start` over the edits left
/// *unapplied*, so that applying any single further one loses the
/// failure. `render(applied)` is the text with edit `i` applied where
/// `applied(i)`. On an oracle error the best choice found comes with it.
pub(super) fn choose(
    n: usize,
    start: Start,
    tester: &Tester,
    render: &RenderApplied<'_>,
) -> (Vec<bool>, Option<OracleError>) {
    let none = vec![false; n];
    if n == 0 || tester.stopped() {
        return (none, None);
    }
    match tester.test(&render(&|_| true)) {
        Ok(true) => return (vec![true; n], None),
        Ok(false) if n == 1 => return (none, None),
        Ok(false) => {}
        Err(e) => return (none, Some(e)),
    }
    let atoms: Vec<u32> = (0..n as u32).collect();
    let render = |c: &crate::engine::Candidate<'_, u32>| {
        let mut unapplied = vec![false; n];
        c.iter().for_each(|&i| unapplied[i as usize] = true);
        render(&|i| !unapplied[i])
    };
    let (unapplied, error) = match tester.ddmin(atoms, start, &render) {
        Ok(kept) => (kept, None),
        Err(e) => (e.best, Some(e.source)),
    };
    let mut applied = vec![true; n];
    unapplied.iter().for_each(|&i| applied[i as usize] = false);
    (applied, error)
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
