//! Rust macro calls unwrapped (part of the `hoist` part of a strategy):
//! `cfg_if! { if #[cfg(x)] { struct S; } }` becomes `struct S;`.
//!
//! A macro call's argument is a token tree: to the grammar, and so to HDD
//! and hoisting, a flat run of tokens, never the items or statements a
//! macro such as `cfg_if!`, `thread_local!` or a crate's own
//! `impl_ops! { … }` expands them to. What fails inside such a call stays
//! wrapped in it, and a dependency taken into an ICE's MCVE brings the
//! macro's definition along. Here the call is replaced by what one of its
//! braced groups holds, as a human reducer expands it by hand; the next
//! round's parse sees items again. Only calls standing as an item or a
//! statement are tried, and only `{ … }` groups: items and statements are
//! what braces hold, and every group tried costs a test.

use super::edits::{apply_until_none, Edit};
use super::field_child;
use super::render_oracle::Tester;
use crate::engine::OracleError;
use crate::syntax::tree::{Change, NodeId, Tree};

/// Which braced groups of a call may take its place.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Groups {
    /// Every one.
    All,
    /// Those that declare a module (`{ mod m { … } }`): a crate that
    /// declares its modules in `cfg_if!` branches, flattened, holds its
    /// code in them, where HDD would see only tokens. Tried before HDD,
    /// these few calls let it see that code's items.
    DeclaringModules,
}

/// Unwraps every macro call it can, until none can go. Returns whether
/// the text got shorter.
pub(crate) fn macros_pass(
    tree: &mut Tree,
    groups: Groups,
    tester: &Tester,
) -> Result<bool, OracleError> {
    apply_until_none(tree, tester, |tree| {
        let nodes = tree.preorder();
        let mut edits = Vec::new();
        for &parent in nodes.iter().filter(|&&n| holds_statements(tree, n)) {
            for &call in tree.children(parent) {
                edits.extend(unwrapped(tree, statement_call(tree, call), groups));
            }
        }
        edits
    })
}

/// Whether `id` is a list of items or statements.
fn holds_statements(tree: &Tree, id: NodeId) -> bool {
    matches!(
        tree.node(id).kind,
        "source_file" | "declaration_list" | "block"
    )
}

/// The macro call `stmt` is, or holds as `call!(…);`.
fn statement_call(tree: &Tree, stmt: NodeId) -> Option<NodeId> {
    match tree.node(stmt).kind {
        "macro_invocation" => Some(stmt),
        "expression_statement" => tree
            .children(stmt)
            .iter()
            .copied()
            .find(|&c| tree.node(c).kind == "macro_invocation"),
        _ => None,
    }
}

/// For each braced group of `call`'s argument that `groups` takes,
/// outermost first, the edit that puts the group's content in the call's
/// place.
fn unwrapped(tree: &Tree, call: Option<NodeId>, groups: Groups) -> Vec<Edit> {
    // A call has its macro's name (`m!`); a `macro_rules!` body does not.
    let Some(call) = call.filter(|&c| field_child(tree, c, "macro").is_some()) else {
        return Vec::new();
    };
    let Some(argument) = tree
        .children(call)
        .iter()
        .copied()
        .find(|&c| tree.node(c).kind == "token_tree")
    else {
        return Vec::new();
    };
    let nothing = tree.empty();
    tree.subtree(argument)
        .into_iter()
        .filter(|&g| tree.node(g).kind == "token_tree")
        .filter_map(|group| {
            let children = tree.children(group);
            let (&open, &close) = (children.first()?, children.last()?);
            let braced = tree.node(open).kind == "{" && tree.node(close).kind == "}";
            let taken = groups == Groups::All || declares_module(tree, children);
            (braced && taken).then(|| {
                vec![
                    (call, Change::Node(group)),
                    (open, Change::Text(nothing)),
                    (close, Change::Text(nothing)),
                ]
            })
        })
        .collect()
}

/// Whether a group's `tokens` hold `mod name {`.
fn declares_module(tree: &Tree, tokens: &[NodeId]) -> bool {
    tokens.windows(3).any(|w| {
        tree.node(w[0]).kind == "mod"
            && tree.node(w[1]).kind == "identifier"
            && tree
                .children(w[2])
                .first()
                .is_some_and(|&b| tree.node(b).kind == "{")
    })
}

#[cfg(test)]
mod tests {
    use super::super::rust_pass_output;
    use super::*;

    fn unwrap_all(input: &str, oracle: &(dyn Fn(&[u8]) -> bool + Sync)) -> String {
        rust_pass_output(input, oracle, |tree, tester| {
            macros_pass(tree, Groups::All, tester)
        })
    }

    #[test]
    fn a_call_gives_way_to_the_braced_group_that_keeps_the_failure() {
        let input = "cfg_if! { if #[cfg(x)] { struct S; } else { struct T; } }\n\
                     fn f() { m! { let a = S; } g(); }\n";
        let out = unwrap_all(input, &|t| {
            // As rustc would: no `if` where an item stands.
            let t = String::from_utf8_lossy(t);
            t.contains("struct S;") && t.contains("let a = S;") && !t.contains("if")
        });
        assert_eq!(out, "struct S;\nfn f() { let a = S; g(); }\n");
    }

    #[test]
    fn before_hdd_only_groups_that_declare_a_module_are_tried() {
        let input = "m! { if #[cfg(x)] { mod a { fn f() {} } } else { struct T; } }\n\
                     n! { struct U; }\n";
        let out = rust_pass_output(input, &|_| true, |tree, tester| {
            macros_pass(tree, Groups::DeclaringModules, tester)
        });
        assert_eq!(out, "mod a { fn f() {} }\nn! { struct U; }\n");
    }

    #[test]
    fn calls_inside_expressions_and_groups_in_parentheses_stay() {
        // The block's last call stands as a statement: its braced group
        // may go in its place, as deep in the argument as it lies.
        let input = "fn f() { let v = m! { 1 }; n!((2)); o!([{ 3 }]) }\n";
        let out = unwrap_all(input, &|_| true);
        assert_eq!(out, "fn f() { let v = m! { 1 }; n!((2)); 3 }\n");
    }
}
