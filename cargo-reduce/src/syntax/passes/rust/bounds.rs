//! Rust's `where` clauses folded into the generic parameters (the `bounds`
//! part of a strategy).
//!
//! `fn a<T>(x: T) where T: Iterator {…}` says `T` twice and `where` once
//! more than `fn a<T: Iterator>(x: T) {…}`. No deletion gets from the one
//! to the other (the bound has to travel), and reduced generic code often
//! ends with such a clause. A clause whose every predicate bounds a plain
//! type parameter of the same item (`T: …`, the parameter without bounds
//! of its own) goes, each bound put after its parameter's name; kept if
//! shorter and still failing.

use crate::engine::OracleError;
use crate::syntax::passes::edits::{apply_first, TreeEdit};
use crate::syntax::passes::nav::field_child;
use crate::syntax::passes::render_oracle::Tester;
use crate::syntax::tokens::fuses;
use crate::syntax::tree::{Body, Change, NodeId, Tree};

/// Folds every `where` clause it can into its item's parameters. Returns
/// whether the text got shorter.
pub(crate) fn bounds_pass(tree: &mut Tree, tester: &Tester) -> Result<bool, OracleError> {
    let mut changed = false;
    for item in tree.preorder() {
        if tester.stopped() {
            break;
        }
        if let Some(edit) = fold(tree, item) {
            changed |= apply_first(tree, &[edit], tester)?;
        }
    }
    Ok(changed)
}

/// The edit that folds `item`'s `where` clause into its `<…>`, if every
/// predicate of the clause can go there.
fn fold(tree: &mut Tree, item: NodeId) -> Option<TreeEdit> {
    let children = tree.children(item);
    let find = |kind: &str| {
        children
            .iter()
            .copied()
            .find(|&c| tree.node(c).kind == kind)
    };
    let (clause, params) = (find("where_clause")?, find("type_parameters")?);
    let mut moves = Vec::new();
    for &predicate in tree.children(clause) {
        if tree.node(predicate).kind != "where_predicate" {
            continue;
        }
        let left = field_child(tree, predicate, "left")?;
        let bounds = field_child(tree, predicate, "bounds")?;
        let name = tree
            .leaf_text(left)
            .filter(|_| tree.node(left).kind == "type_identifier")?;
        let param = plain_parameter(tree, params, name)?;
        let mut text = name.to_vec();
        join(tree, bounds, &mut text);
        moves.push((param, String::from_utf8(text).ok()?));
    }
    if moves.is_empty() {
        return None;
    }
    let mut edit: TreeEdit = vec![(clause, Change::Text(tree.empty()))];
    for (param, text) in moves {
        let text = tree.intern(&text);
        edit.push((param, Change::Text(text)));
    }
    Some(edit)
}

/// The name token of `params`' type parameter `name`, if it has no
/// bounds or default of its own: a `type_parameter` of one child, or that
/// child alone where squeezeTree took its place.
fn plain_parameter(tree: &Tree, params: NodeId, name: &[u8]) -> Option<NodeId> {
    tree.children(params).iter().find_map(|&p| {
        let id = match (tree.node(p).kind, tree.children(p)) {
            ("type_parameter", &[only]) => only,
            ("type_identifier", _) => p,
            _ => return None,
        };
        let is_name = tree.node(id).kind == "type_identifier" && tree.leaf_text(id) == Some(name);
        is_name.then_some(id)
    })
}

/// Appends `id`'s tokens to `out`, a space between two that would fuse.
fn join(tree: &Tree, id: NodeId, out: &mut Vec<u8>) {
    match tree.node(id).body {
        Body::Inner(_) => tree.children(id).iter().for_each(|&c| join(tree, c, out)),
        _ => {
            let text = tree.leaf_text(id).unwrap_or_default();
            if let (Some(&a), Some(&b)) = (out.last(), text.first()) {
                if fuses(a, b) {
                    out.push(b' ');
                }
            }
            out.extend_from_slice(text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::passes::testing::rust_pass_output;

    fn fold_all(input: &str, oracle: &(dyn Fn(&[u8]) -> bool + Sync)) -> String {
        rust_pass_output(input, oracle, bounds_pass)
    }

    #[test]
    fn a_where_clause_moves_into_the_parameters() {
        let input = "fn a<T, U>(x: T, y: U) where T: Iterator + Clone, U: dyn Send {}\n";
        let out = fold_all(input, &|_| true);
        assert_eq!(out, "fn a<T:Iterator+Clone, U:dyn Send>(x: T, y: U) {}\n");
    }

    #[test]
    fn a_clause_stays_when_a_predicate_cannot_move_or_the_oracle_says_no() {
        // `Vec<T>: Clone` bounds no parameter; `U` has bounds already.
        for input in [
            "fn a<T>(x: T) where T: Copy, Vec<T>: Clone {}\n",
            "impl<U: Send> S<U> where U: Sync {}\n",
        ] {
            assert_eq!(fold_all(input, &|_| true), input);
        }
        let input = "fn a<T>(x: T) where T: Copy {}\n";
        assert_eq!(fold_all(input, &|t| t.starts_with(b"fn a<T>")), input);
    }
}
