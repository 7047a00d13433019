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
//! for one node), testing several at once. [`token_pass`], the pipeline's
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

/// Tries the edits `offered(tree)` in order and applies the first that
/// shortens the text with the failure kept, then asks for the edits again
/// (the tree changed under them), until none applies or the run is
/// stopped. Returns whether any applied.
pub(super) fn apply_until_none(
    tree: &mut Tree,
    tester: &Tester,
    mut offered: impl FnMut(&mut Tree) -> Vec<Edit>,
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
    edits: &[Edit],
    tester: &Tester,
) -> Result<bool, OracleError> {
    apply_first_growing(tree, edits, &|_| 0, tester)
}

/// [`apply_first`], where edit `i` may also lengthen the text by fewer
/// than `growth(i)` bytes (a macro's calls expanded, the macro gone).
pub(super) fn apply_first_growing(
    tree: &mut Tree,
    edits: &[Edit],
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
        let (shorter, texts): (Vec<&Edit>, Vec<Vec<u8>>) = block
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
    edit_at: impl Fn(&Tree, NodeId) -> Option<Edit>,
) -> Result<bool, OracleError> {
    apply_until_none(tree, tester, |tree| {
        let nodes = tree.preorder();
        nodes.into_iter().filter_map(|n| edit_at(tree, n)).collect()
    })
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
            Change::Wrap(d, wrapper) => tree.wrap(id, d, wrapper),
        }
    }
    tester.accept(&render_tree(tree));
}

/// Runs of up to this many adjacent tokens are atoms of the token pass
/// after single tokens.
const MAX_RUN: usize = 3;

/// ddmin over the remaining tokens, a removed token reading as nothing (a
/// `;` as a line break);
/// then over runs of two and three adjacent tokens, at every offset: a
/// result 1-minimal in tokens may still lose a run together (`= a` in
/// `type Output = a;`), as C-Vise's rm-toks passes find; last, punctuation
/// of several characters cut to its first, `{}` made `;`, and a pair of
/// delimiters dropped around what they hold.
pub(crate) fn token_pass(tree: &mut Tree, tester: &Tester) -> Result<bool, OracleError> {
    // Halves, not single tokens: what is left often goes only in pairs
    // (`: u64`), which single-token complements never find.
    let mut changed = token_runs(tree, 1, 0, Start::Halves, tester)?;
    for width in 2..=MAX_RUN {
        for offset in 0..width {
            changed |= token_runs(tree, width, offset, Start::Atoms, tester)?;
        }
    }
    changed |= shorten_tokens(tree, tester)?;
    Ok(changed)
}

/// Cuts each punctuation token of two or more characters (`::`, `->`) to
/// its first character, and makes each empty pair of braces a `;`, where
/// the failure stays: rustc reads a lone `:` as the path separator it
/// expected and `trait b;` as a trait without a body, with errors it
/// recovers from (as C-Vise's outputs show; JavaScript takes `;` for an
/// empty block). One character shorter each, and to a counter of `\w+`
/// and single symbols one token (anstyle's ICE: 48 → 45 tokens). Also
/// drops each pair of delimiters around something ([`delimiter_pairs`]).
fn shorten_tokens(tree: &mut Tree, tester: &Tester) -> Result<bool, OracleError> {
    let tokens = tree.tokens();
    let text = |id: NodeId| tree.leaf_text(id).unwrap_or_default();
    // Anonymous tokens only (their kind is their text): a literal's text
    // may be punctuation too (`""`).
    let anonymous = |id: NodeId| tree.node(id).kind.as_bytes() == text(id);
    let cuts: Vec<(NodeId, String)> = tokens
        .iter()
        .filter(|&&id| {
            let t = text(id);
            anonymous(id) && t.len() >= 2 && t.iter().all(u8::is_ascii_punctuation)
        })
        .map(|&id| (id, char::from(text(id)[0]).to_string()))
        .collect();
    let braces: Vec<(NodeId, NodeId)> = tokens
        .windows(2)
        .filter(|w| w.iter().all(|&t| anonymous(t)) && text(w[0]) == b"{" && text(w[1]) == b"}")
        .map(|w| (w[0], w[1]))
        .collect();
    let delimiters = delimiter_pairs(&tokens, &|id| anonymous(id).then(|| text(id)));
    let mut edits: Vec<Edit> = cuts
        .into_iter()
        .map(|(id, first)| vec![(id, Change::Text(tree.intern(&first)))])
        .collect();
    let (semicolon, nothing) = (tree.intern(";"), tree.empty());
    edits.extend(braces.into_iter().map(|(open, close)| {
        vec![
            (open, Change::Text(semicolon)),
            (close, Change::Text(nothing)),
        ]
    }));
    edits.extend(delimiters.into_iter().map(|(open, close)| {
        vec![
            (open, Change::Text(nothing)),
            (close, Change::Text(nothing)),
        ]
    }));
    reduce_edits(tree, edits, Start::Atoms, tester)
}

/// The matched `()`, `[]` and `{}` around something among `tokens` (whose
/// `delimiter` text is given for anonymous tokens only): C-Vise's
/// balanced-delimiter move, which keeps what is inside (`use a::{b};` to
/// `use a::b;`, `(x)` to `x`). An empty pair is left to the other moves.
fn delimiter_pairs<'t>(
    tokens: &[NodeId],
    delimiter: &dyn Fn(NodeId) -> Option<&'t [u8]>,
) -> Vec<(NodeId, NodeId)> {
    let mut open: Vec<(usize, u8)> = Vec::new();
    let mut pairs = Vec::new();
    for (i, &id) in tokens.iter().enumerate() {
        match delimiter(id) {
            Some(&[c @ (b'(' | b'[' | b'{')]) => open.push((i, c)),
            Some(&[c @ (b')' | b']' | b'}')]) => {
                let opener = match c {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                // An unmatched closer (a test case need not parse) ends
                // nothing.
                if open.last().is_some_and(|&(_, o)| o == opener) {
                    let (start, _) = open.pop().expect("a matching opener");
                    if i > start + 1 {
                        pairs.push((tokens[start], id));
                    }
                }
            }
            _ => {}
        }
    }
    pairs
}

/// ddmin over the runs of `width` adjacent tokens that start at `offset`
/// and every `width` tokens after it, from granularity `start`.
fn token_runs(
    tree: &mut Tree,
    width: usize,
    offset: usize,
    start: Start,
    tester: &Tester,
) -> Result<bool, OracleError> {
    let empty = tree.intern("");
    let line_break = tree.intern("\n");
    let tokens = tree.tokens();
    // A `;` goes as a line break: where a statement ends matters to
    // rustc's recovery and to JavaScript's automatic semicolons, and the
    // layout pass removes the break where it does not.
    let removed = |id: NodeId| match tree.leaf_text(id) {
        Some(b";") => line_break,
        _ => empty,
    };
    let edits: Vec<Edit> = tokens
        .get(offset..)
        .unwrap_or_default()
        .chunks_exact(width)
        .map(|run| {
            run.iter()
                .map(|&id| (id, Change::Text(removed(id))))
                .collect()
        })
        .collect();
    reduce_edits(tree, edits, start, tester)
}

#[cfg(test)]
mod tests {
    use super::super::{with_tester, with_tester_on};
    use super::*;
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
                let edits: Vec<Edit> = (1..tokens.len())
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

    /// `x ( ) y` is 1-minimal in single tokens when the brackets must
    /// balance, and ddmin's halves (`x (`, `) y`) split the pair: only a
    /// run of two at offset 1 removes it.
    #[test]
    fn a_pair_that_goes_only_together_goes_as_a_run() {
        let input = b"x ( ) y";
        let mut tree = build_tree(input, Lang::JavaScript, &Strategy::Best.options());
        let oracle = |b: &[u8]| {
            let count = |c| b.iter().filter(|&&x| x == c).count();
            b.contains(&b'x') && b.contains(&b'y') && count(b'(') == count(b')')
        };
        with_tester(input, &oracle, |tester| {
            token_pass(&mut tree, tester).unwrap()
        });
        let out = String::from_utf8(render_tree(&tree)).unwrap();
        assert_eq!(out.split_whitespace().collect::<String>(), "xy", "{out:?}");
    }

    /// A statement's end may be a line break rather than a `;` (rustc's
    /// recovery, JavaScript's automatic semicolons): a removed `;` leaves
    /// one.
    #[test]
    fn a_semicolon_goes_as_a_line_break() {
        let input = b"a();b()";
        let mut tree = build_tree(input, Lang::JavaScript, &Strategy::Best.options());
        let oracle = |b: &[u8]| {
            let s = String::from_utf8_lossy(b);
            s.contains("a()") && s.contains("b()") && !s.contains(")b")
        };
        with_tester(input, &oracle, |tester| {
            token_pass(&mut tree, tester).unwrap()
        });
        assert_eq!(String::from_utf8(render_tree(&tree)).unwrap(), "a()\nb()");
    }

    /// `===` becomes `=` where the failure stays with one `=`, and `{}`
    /// becomes `;`; a string literal's quotes are no punctuation token and
    /// stay.
    #[test]
    fn punctuation_is_cut_and_empty_braces_become_a_semicolon() {
        let input = b"x === y; z = \"\"; if (x) {}";
        let mut tree = build_tree(input, Lang::JavaScript, &Strategy::Best.options());
        let oracle = |b: &[u8]| {
            let s = String::from_utf8_lossy(b);
            s.contains('x') && s.contains("= y") && s.contains("\"\"") && s.contains("if (x)")
        };
        with_tester(input, &oracle, |tester| {
            shorten_tokens(&mut tree, tester).unwrap()
        });
        assert_eq!(
            String::from_utf8(render_tree(&tree)).unwrap(),
            "x = y; z = \"\"; if (x);"
        );
    }

    /// A pair of delimiters goes around what it holds, the innermost
    /// first where they nest; an unmatched closer and an empty pair stay.
    #[test]
    fn delimiters_go_in_pairs_and_keep_what_they_hold() {
        let input = b"a = ((b)) + [c] + d(); }";
        let mut tree = build_tree(input, Lang::JavaScript, &Strategy::Best.options());
        let oracle = |b: &[u8]| {
            let s = String::from_utf8_lossy(b);
            ["a", "= (b)", "c", "d()", "}"]
                .iter()
                .all(|w| s.contains(w))
        };
        with_tester(input, &oracle, |tester| {
            shorten_tokens(&mut tree, tester).unwrap()
        });
        let out = String::from_utf8(render_tree(&tree)).unwrap();
        assert_eq!(out.split_whitespace().collect::<String>(), "a=(b)+c+d();}");
    }
}
