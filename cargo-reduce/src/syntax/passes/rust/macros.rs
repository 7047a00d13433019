//! Rust macro calls unwrapped (in the `restructure` part of a strategy):
//! `cfg_if! { if #[cfg(x)] { struct S; } }` becomes `struct S;`; and a
//! crate's own `macro_rules!` expanded: `ops!(f32);` becomes the
//! `impl Mul for f32 { … }` its rule writes, and the definition goes.
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
//!
//! Unwrapping cannot reach what a macro *writes*: a crate's impls for
//! many types, written by its own macro, keep the failure in the macro's
//! body. [`expand_pass`] replaces every call of such a macro by its
//! expansion ([`crate::syntax::macro_rules`]) and removes the definition,
//! in one edit, kept when the text gets shorter and the failure stays.

use std::collections::HashMap;

use crate::engine::OracleError;
use crate::syntax::macro_rules::MacroRules;
use crate::syntax::passes::edits::{apply_first_growing, apply_until_none, TreeEdit};
use crate::syntax::passes::nav::{field_child, parents, Parents};
use crate::syntax::passes::render_oracle::Tester;
use crate::syntax::tokens::word;
use crate::syntax::tree::{render_subtree, Change, NodeId, Tree};

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

/// How much longer an expansion may make the text.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Growth {
    /// Not at all: after HDD, a macro is expanded when that is shorter.
    None,
    /// By less than the definition's length. HDD works inside a macro's
    /// body token by token and leaves it readable only as a macro's (an
    /// associated type with no `;` before its `}`): tried before HDD, a
    /// macro called twice, for two types, still expands.
    Definition,
}

/// Expands one of a crate's own macros: every call of a `macro_rules!`
/// defined once in the text replaced by its expansion, the definition
/// (and its attributes) removed. Returns whether it did; the expansion is
/// text, which the caller parses again before the next (a call in it is
/// a call then). Each expansion removes a definition and writes none, so
/// calling this until it returns false ends.
pub(crate) fn expand_pass(
    tree: &mut Tree,
    growth: Growth,
    tester: &Tester,
) -> Result<bool, OracleError> {
    let (edits, lengths): (Vec<TreeEdit>, Vec<usize>) = expansions(tree).into_iter().unzip();
    let allowed = |i: usize| match growth {
        Growth::None => 0,
        Growth::Definition => lengths[i],
    };
    apply_first_growing(tree, &edits, &allowed, tester)
}

/// A macro called more often than this is left to HDD first: expanded
/// everywhere it would only lengthen the text, and every call would be
/// parsed each time the edits are offered (libc's `s!` has thousands).
const MAX_CALLS: usize = 16;

/// One edit per macro that every call of can be expanded, with the
/// length of the macro's definition.
fn expansions(tree: &mut Tree) -> Vec<(TreeEdit, usize)> {
    let nodes = tree.preorder();
    let parents = parents(tree);
    let text = |tree: &Tree, id| String::from_utf8_lossy(&render_subtree(tree, id)).into_owned();
    let definitions: Vec<(NodeId, MacroRules, usize)> = nodes
        .iter()
        .filter(|&&n| tree.node(n).kind == "macro_definition")
        .filter_map(|&n| {
            let written = text(tree, n);
            Some((n, MacroRules::parse(&written)?, written.len()))
        })
        .collect();
    let mut calls: HashMap<String, Vec<NodeId>> = HashMap::new();
    for &call in nodes
        .iter()
        .filter(|&&n| tree.node(n).kind == "macro_invocation")
    {
        if let Some(name) = field_child(tree, call, "macro").map(|m| text(tree, m)) {
            let last = name.rsplit("::").next().unwrap_or(&name).trim().to_string();
            calls.entry(last).or_default().push(call);
        }
    }
    let mut edits = Vec::new();
    for (definition, rules, length) in &definitions {
        // Two definitions of one name: which call expands by which
        // depends on scopes that are not modelled.
        if definitions
            .iter()
            .filter(|d| d.1.name == rules.name)
            .count()
            > 1
        {
            continue;
        }
        let written = calls.get(&rules.name).map_or(&[][..], Vec::as_slice);
        if written.len() > MAX_CALLS {
            continue;
        }
        let expanded: Option<Vec<Vec<(NodeId, String)>>> = written
            .iter()
            .map(|&call| expansion(tree, &parents, call, rules))
            .collect();
        let Some(expanded) = expanded else { continue };
        let nothing = tree.empty();
        let mut edit: TreeEdit = with_attributes(tree, &parents, *definition)
            .into_iter()
            .map(|n| (n, Change::Text(nothing)))
            .collect();
        for (place, text) in expanded.into_iter().flatten() {
            edit.push((place, Change::Text(tree.intern(&text))));
        }
        edits.push((edit, *length));
    }
    edits
}

/// Where `call`'s expansion goes and its text: at an item's place the
/// call and its `;` (which no item takes; `m!(…);` is one statement at
/// the top level, a call and an empty statement in a module), in a block
/// the call (the `;` ends what it writes), elsewhere the call, in
/// parentheses (an expression, a type or a pattern). `None` when no rule
/// matches, or the expansion calls the macro again or defines one.
fn expansion(
    tree: &Tree,
    parents: &Parents,
    call: NodeId,
    rules: &MacroRules,
) -> Option<Vec<(NodeId, String)>> {
    let argument = tree
        .children(call)
        .iter()
        .copied()
        .find(|&c| tree.node(c).kind == "token_tree")?;
    let written = rules.expand(&String::from_utf8_lossy(&render_subtree(tree, argument)))?;
    if calls(&written, &rules.name) || calls(&written, "macro_rules") {
        return None;
    }
    let kind = |id: Option<&NodeId>| id.map(|&p| tree.node(p).kind);
    let parent = parents.get(&call);
    let at_item = |id: NodeId| {
        matches!(
            kind(parents.get(&id)),
            Some("source_file" | "declaration_list")
        )
    };
    match kind(parent) {
        Some("expression_statement") if at_item(*parent?) => Some(vec![(*parent?, written)]),
        Some("source_file" | "declaration_list") => {
            let (_, after) = around(tree, parents, call)?;
            let semicolon = after
                .first()
                .filter(|&&s| matches!(tree.node(s).kind, "empty_statement" | ";"));
            let emptied = semicolon.map(|&s| (s, String::new()));
            Some([(call, written)].into_iter().chain(emptied).collect())
        }
        Some("expression_statement" | "block") => Some(vec![(call, written)]),
        _ => Some(vec![(call, format!("({written})"))]),
    }
}

/// Whether `text` calls macro `name` (`name!`, not `other_name!`).
fn calls(text: &str, name: &str) -> bool {
    let call = format!("{name}!");
    text.match_indices(&call)
        .any(|(at, _)| !text[..at].bytes().next_back().is_some_and(word))
}

/// `id` and the attributes right before it (`#[macro_export]`).
fn with_attributes(tree: &Tree, parents: &Parents, id: NodeId) -> Vec<NodeId> {
    let mut out = vec![id];
    if let Some((before, _)) = around(tree, parents, id) {
        let attributes = before.iter().rev();
        out.extend(attributes.take_while(|&&s| tree.node(s).kind == "attribute_item"));
    }
    out
}

/// The siblings before `id` and those after it.
fn around<'t>(
    tree: &'t Tree,
    parents: &Parents,
    id: NodeId,
) -> Option<(&'t [NodeId], &'t [NodeId])> {
    let siblings = tree.children(*parents.get(&id)?);
    let at = siblings.iter().position(|&s| s == id)?;
    Some((&siblings[..at], &siblings[at + 1..]))
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
fn unwrapped(tree: &Tree, call: Option<NodeId>, groups: Groups) -> Vec<TreeEdit> {
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
    use super::*;
    use crate::syntax::passes::testing::rust_pass_output;

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

    fn expand_once(tree: &mut Tree, tester: &Tester) -> Result<bool, OracleError> {
        expand_pass(tree, Growth::None, tester)
    }

    #[test]
    fn a_crates_own_macro_gives_way_to_what_its_calls_expand_to() {
        let input = "#[macro_export]\n\
                     macro_rules! ops { ($($t:ty),*) => { $(impl Mul for $t { type Output = $t; })* }; }\n\
                     ops!(f32, u8);\n\
                     mod m { ops!(i8); }\n";
        let out = rust_pass_output(
            input,
            &|t| String::from_utf8_lossy(t).contains("for u8"),
            expand_once,
        );
        assert_eq!(
            out,
            "impl Mul for f32{type Output=f32;}impl Mul for u8{type Output=u8;}\n\
             mod m { impl Mul for i8{type Output=i8;} }\n"
        );
    }

    #[test]
    fn before_hdd_an_expansion_may_be_longer_by_less_than_the_definition() {
        let input =
            "macro_rules! m { ($t:ident) => { struct $t { alpha: u8, beta: u8, gamma: u8 } }; }\n\
                     m!(A); m!(B); m!(C); m!(D);\n";
        let expand = |growth| {
            rust_pass_output(
                input,
                &|_| true,
                match growth {
                    Growth::None => expand_once,
                    Growth::Definition => {
                        |tree, tester| expand_pass(tree, Growth::Definition, tester)
                    }
                },
            )
        };
        assert_eq!(expand(Growth::None), input);
        let out = expand(Growth::Definition);
        assert!(out.len() > input.len(), "{out}");
        assert!(
            out.starts_with("struct A{alpha:u8,beta:u8,gamma:u8} struct B"),
            "{out}"
        );
    }

    #[test]
    fn an_expansion_in_a_block_keeps_its_semicolon_and_in_an_expression_its_precedence() {
        let input = "macro_rules! double { ($e:expr) => { $e * 2 } }\n\
                     fn f() { let v = double!(1 + 2); double!(v); }\n";
        let out = rust_pass_output(input, &|_| true, |tree, tester| {
            expand_pass(tree, Growth::None, tester)
        });
        assert_eq!(out, "fn f() { let v = ((1+2)*2); v*2; }\n");
    }

    #[test]
    fn a_macro_stays_when_a_call_matches_no_rule_or_it_calls_itself() {
        let input = "macro_rules! m { (a) => { struct A; } }\nm!(a);\nm!(b);\n\
                     macro_rules! r { () => { r!(); } }\nr!();\n";
        let out = rust_pass_output(input, &|_| true, expand_once);
        assert_eq!(out, input);
    }

    #[test]
    fn a_macro_called_more_than_max_calls_times_is_left_to_hdd() {
        let calls = |n: usize| "m!(A);".repeat(n);
        let input = |n| {
            format!(
                "macro_rules! m {{ ($t:ident) => {{ struct $t; }} }}\n{}\n",
                calls(n)
            )
        };
        let expand = |n| {
            rust_pass_output(&input(n), &|_| true, |tree, tester| {
                expand_pass(tree, Growth::Definition, tester)
            })
        };
        assert_eq!(expand(MAX_CALLS + 1), input(MAX_CALLS + 1));
        assert!(expand(MAX_CALLS).starts_with("struct A;struct A;"));
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
