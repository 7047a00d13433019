//! Edits of a tree, chosen by ddmin and committed.
//!
//! Every reduction step of this module's callers is a list of edits —
//! remove these nodes (HDD level), rename this identifier everywhere,
//! shrink this literal, drop this token — of which as many as possible
//! should be applied while the failure stays. [`reduce_edits`] first tries
//! all of them at once, then runs ddmin over the edits left *unapplied*,
//! so the result is 1-minimal in the sense of HDD: applying any single
//! further edit loses the failure. [`apply_first`] applies only the first
//! of a list of alternatives that keeps the failure (hoisting's candidates
//! for one node), testing several at once.

use crate::engine::{OracleError, Start};
use crate::syntax::passes::render_oracle::Tester;
use crate::syntax::tree::{render, render_tree, Change, NodeId, Tree};

/// Changes to some nodes of a tree, applied together: one edit of the
/// lists the passes offer.
pub(super) type TreeEdit = Vec<(NodeId, Change)>;

/// Renders a text with edit `i` applied where `applied(i)` holds.
pub(super) type RenderApplied<'a> = dyn Fn(&dyn Fn(usize) -> bool) -> Vec<u8> + Sync + 'a;

/// Applies as many of `edits` as the failure allows, ddmin starting at
/// `start` (single edits when they are expected to stay, most of them).
/// Returns whether the text got shorter. On an oracle error the best configuration found is
/// committed before the error is returned.
pub(super) fn reduce_edits(
    tree: &mut Tree,
    edits: Vec<TreeEdit>,
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

/// Tries the edits `offered(tree)` in order and applies the first that
/// shortens the text with the failure kept, then asks for the edits again
/// (the tree changed under them), until none applies or the run is
/// stopped. Returns whether any applied.
pub(super) fn apply_until_none(
    tree: &mut Tree,
    tester: &Tester,
    mut offered: impl FnMut(&mut Tree) -> Vec<TreeEdit>,
) -> Result<bool, OracleError> {
    let mut changed = false;
    while !tester.stopped() {
        let edits = offered(tree);
        if !apply_first(tree, &edits, tester)? {
            break;
        }
        changed = true;
    }
    Ok(changed)
}

/// Applies the first of `edits`, in order, that shortens the text with
/// the failure kept; returns whether one did. They are tried a few
/// `jobs` at a time, in parallel, but the winner is the one a sequential
/// run would take (the lowest index), whatever `-j` is.
pub(super) fn apply_first(
    tree: &mut Tree,
    edits: &[TreeEdit],
    tester: &Tester,
) -> Result<bool, OracleError> {
    apply_first_growing(tree, edits, &|_| 0, tester)
}

/// [`apply_first`], where edit `i` may also lengthen the text by fewer
/// than `growth(i)` bytes (a macro's calls expanded, the macro gone).
pub(super) fn apply_first_growing(
    tree: &mut Tree,
    edits: &[TreeEdit],
    growth: &dyn Fn(usize) -> usize,
    tester: &Tester,
) -> Result<bool, OracleError> {
    // Rendered a block at a time: the edits after a winner are never
    // rendered, and a long list never sits in memory as texts.
    let jobs = 2 * tester.jobs();
    for (b, block) in edits.chunks(jobs).enumerate() {
        if tester.stopped() {
            break;
        }
        let (shorter, texts): (Vec<&TreeEdit>, Vec<Vec<u8>>) = block
            .iter()
            .enumerate()
            .map(|(i, edit)| {
                let text = render_edits(tree, std::slice::from_ref(edit), &mut |_| true);
                (edit, text, growth(b * jobs + i))
            })
            .filter(|(_, text, growth)| text.len() < tester.current_len() + growth)
            .map(|(edit, text, _)| (edit, text))
            .unzip();
        if let Some(i) = tester.first_interesting(&texts)? {
            commit(tree, std::iter::once(shorter[i]), tester);
            return Ok(true);
        }
    }
    Ok(false)
}

/// [`apply_until_none`] over the edit `edit_at(tree, node)` offers at
/// each node, if any.
pub(super) fn apply_per_node(
    tree: &mut Tree,
    tester: &Tester,
    edit_at: impl Fn(&Tree, NodeId) -> Option<TreeEdit>,
) -> Result<bool, OracleError> {
    apply_until_none(tree, tester, |tree| {
        let nodes = tree.preorder();
        nodes.into_iter().filter_map(|n| edit_at(tree, n)).collect()
    })
}

/// Renders `tree` with the edits `i` for which `applied(i)` holds.
fn render_edits(
    tree: &Tree,
    edits: &[TreeEdit],
    applied: &mut dyn FnMut(usize) -> bool,
) -> Vec<u8> {
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

fn commit<'e>(tree: &mut Tree, edits: impl Iterator<Item = &'e TreeEdit>, tester: &Tester) {
    for &(id, change) in edits.flatten() {
        match change {
            Change::Phi => tree.replace_with_phi(id),
            Change::Text(s) => tree.replace_with_text(id, s),
            Change::Node(d) => tree.hoist(id, d),
            Change::Wrap(d, wrapper) => tree.wrap(id, d, wrapper),
        }
    }
    tester.accept(&render_tree(tree));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::passes::testing::with_tester_on;
    use crate::syntax::{build_tree, Lang, Strategy};

    /// Of several edits that keep the failure, the first in order is
    /// applied, after the same tests, whatever the number of jobs (the
    /// later winners run meanwhile, but neither count nor win).
    #[test]
    fn the_first_edit_that_keeps_the_failure_wins_at_any_jobs() {
        let input = b"a b c d e f g h";
        let keeps_a_and_one_of_f_g_h = |b: &[u8]| {
            std::thread::sleep(std::time::Duration::from_millis(2));
            b.starts_with(b"a") && [b'f', b'g', b'h'].iter().any(|c| b.contains(c))
        };
        let outcomes: Vec<_> = [1, 2, 3, 8]
            .into_iter()
            .map(|jobs| {
                let mut tree = build_tree(input, Lang::JavaScript, &Strategy::Best.options());
                let tokens = tree.tokens();
                // Each edit keeps `a` and one other token.
                let edits: Vec<TreeEdit> = (1..tokens.len())
                    .map(|keep| {
                        let others = tokens[1..].iter().filter(|&&t| t != tokens[keep]);
                        others.map(|&t| (t, Change::Text(tree.empty()))).collect()
                    })
                    .collect();
                let (applied, tests) =
                    with_tester_on(jobs, input, &keeps_a_and_one_of_f_g_h, |t| {
                        apply_first(&mut tree, &edits, t).unwrap()
                    });
                let out = String::from_utf8(render_tree(&tree)).unwrap();
                (applied, out.split_whitespace().collect::<String>(), tests)
            })
            .collect();
        assert_eq!(
            outcomes[0],
            (true, "af".to_string(), 5),
            "b, c, d, e, then f"
        );
        assert!(outcomes.iter().all(|o| *o == outcomes[0]), "{outcomes:?}");
    }
}
