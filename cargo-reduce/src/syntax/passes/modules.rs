//! Rust modules opened up (part of the `hoist` part of a strategy): `mod m
//! { struct S; } … m::S` becomes `struct S; … S`.
//!
//! A test case taken from a crate keeps the crate's modules, and every
//! path through one (`crate::m::S`) says its name again. No deletion or
//! hoist removes a module and leaves what it holds: its items can stand
//! in its place (the hoist pass's unwrapping), but the paths that name
//! them then name nothing. Here the module goes, its items take its place,
//! and the module's name is dropped from every path that spells it
//! (`m::S` → `S`, `crate::m::S` → `crate::S`) in one edit, kept if the
//! failure stays. Spelling decides what is a path through the module; the
//! oracle catches a name that now clashes or means something else.

use super::edits::{apply_per_node, Edit};
use super::field_child;
use super::render_oracle::Tester;
use crate::engine::OracleError;
use crate::syntax::tree::{Change, NodeId, Tree};

/// The node kinds of a path with a qualifier (`path::name`, and
/// `path::{list}` in a `use`).
const PATHS: &[&str] = &[
    "scoped_identifier",
    "scoped_type_identifier",
    "scoped_use_list",
];

/// Opens every module it can, until none can go. Returns whether the
/// text got shorter.
pub(crate) fn modules_pass(tree: &mut Tree, tester: &Tester) -> Result<bool, OracleError> {
    apply_per_node(tree, tester, open)
}

/// The edit that puts `module`'s items in its place and drops its name
/// from the paths that spell it, if `module` is a `mod m { … }`. A `use`
/// beside the module that imports from it without renaming (`use m::x;`,
/// `use crate::m::{x, y};`) goes whole: its names are then where it stands,
/// and importing them again there is an error (E0255), where a dependency
/// taken into an MCVE as a module leaves exactly such a `use`.
fn open(tree: &Tree, module: NodeId) -> Option<Edit> {
    if tree.node(module).kind != "mod_item" {
        return None;
    }
    let name = tree.leaf_text(field_child(tree, module, "name")?)?;
    let body = field_child(tree, module, "body")?;
    let nothing = tree.empty();
    let mut edit: Edit = vec![(module, Change::Node(body))];
    for &brace in tree.children(body) {
        if matches!(tree.node(brace).kind, "{" | "}") {
            edit.push((brace, Change::Text(nothing)));
        }
    }
    let parents = parents(tree);
    let scope = scope_of(tree, &parents, module);
    let redundant: Vec<NodeId> = tree
        .preorder()
        .into_iter()
        .filter(|&u| tree.node(u).kind == "use_declaration")
        .filter(|&u| scope_of(tree, &parents, u) == scope && imports_plainly(tree, u, name))
        .collect();
    let inside = |n: NodeId| {
        std::iter::successors(Some(n), |&p| parents[p.0 as usize]).any(|a| redundant.contains(&a))
    };
    edit.extend(redundant.iter().map(|&u| (u, Change::Text(nothing))));
    for path in tree.preorder() {
        if let Some(change) = without_qualifier(tree, path, name).filter(|_| !inside(path)) {
            edit.push(change);
        }
    }
    Some(edit)
}

/// Each node's parent.
fn parents(tree: &Tree) -> Vec<Option<NodeId>> {
    let mut parents = vec![None; tree.len()];
    for p in tree.preorder() {
        for &c in tree.children(p) {
            parents[c.0 as usize] = Some(p);
        }
    }
    parents
}

/// The item list `id` stands in: the file, or a module's body.
fn scope_of(tree: &Tree, parents: &[Option<NodeId>], id: NodeId) -> Option<NodeId> {
    std::iter::successors(parents[id.0 as usize], |&p| parents[p.0 as usize])
        .find(|&a| matches!(tree.node(a).kind, "source_file" | "declaration_list"))
}

/// Whether the `use` declaration `u` imports from the module `name`
/// (`name::…`, `self::name::…`, `crate::name::…`) with no `as`.
fn imports_plainly(tree: &Tree, u: NodeId, name: &[u8]) -> bool {
    let Some(argument) = field_child(tree, u, "argument") else {
        return false;
    };
    let renames = tree
        .subtree(argument)
        .into_iter()
        .any(|n| tree.node(n).kind == "use_as_clause");
    let through = PATHS.contains(&tree.node(argument).kind)
        && field_child(tree, argument, "path").is_some_and(|q| {
            let prefixed = field_child(tree, q, "path")
                .and_then(|p| tree.leaf_text(p))
                .is_some_and(|p| p == b"crate" || p == b"self");
            let last = field_child(tree, q, "name").and_then(|n| tree.leaf_text(n));
            tree.leaf_text(q) == Some(name) || (prefixed && last == Some(name))
        });
    through && !renames
}

/// How `path` drops the module `name` from its qualifier: `name::x`
/// becomes `x`, `q::name::x` becomes `q::x`.
fn without_qualifier(tree: &Tree, path: NodeId, name: &[u8]) -> Option<(NodeId, Change)> {
    if !PATHS.contains(&tree.node(path).kind) {
        return None;
    }
    let qualifier = field_child(tree, path, "path")?;
    if tree.leaf_text(qualifier) == Some(name) {
        let rest = field_child(tree, path, "name").or_else(|| field_child(tree, path, "list"))?;
        return Some((path, Change::Node(rest)));
    }
    let inner = PATHS.contains(&tree.node(qualifier).kind);
    let last = field_child(tree, qualifier, "name").filter(|_| inner)?;
    let outer = field_child(tree, qualifier, "path")?;
    (tree.leaf_text(last) == Some(name)).then_some((qualifier, Change::Node(outer)))
}

#[cfg(test)]
mod tests {
    use super::super::rust_pass_output;
    use super::*;

    fn open_all(input: &str, oracle: &(dyn Fn(&[u8]) -> bool + Sync)) -> String {
        rust_pass_output(input, oracle, modules_pass)
    }

    #[test]
    fn a_module_goes_and_the_paths_through_it_lose_its_name() {
        let input = "mod d { struct B<T>(T); mod e { fn f() {} } }\n\
                     use crate::d::{B as C};\n\
                     impl X for d::B<u8> { fn g() { crate::d::e::f(); let _: crate::d::B<()>; } }\n";
        let out = open_all(input, &|_| true);
        assert_eq!(
            out,
            "struct B<T>(T); fn f() {}\n\
             use crate::{B as C};\n\
             impl X for B<u8> { fn g() { crate::f(); let _: crate::B<()>; } }\n"
        );
    }

    #[test]
    fn a_use_beside_the_module_that_imports_from_it_goes_whole() {
        let input = "use c::d;\nuse crate::c::{e, f};\nuse c::g as h;\n\
                     mod c { pub trait d {} pub trait e {} pub trait f {} pub trait g {} }\n\
                     mod k { use crate::c::d; }\nfn a() { c::d::x(); }\n";
        // Only `c` goes (`k`'s `use` shows a `use` elsewhere keeps its path).
        let out = open_all(input, &|t| {
            let t = String::from_utf8_lossy(t);
            !t.contains("mod c") && t.contains("mod k")
        });
        assert_eq!(
            out,
            "use g as h; pub trait d {} pub trait e {} pub trait f {} pub trait g {}\n\
             mod k { use crate::d; }\nfn a() { d::x(); }\n"
        );
    }

    #[test]
    fn a_module_stays_when_the_oracle_says_no() {
        let input = "mod a { fn f() {} }\nmod b { fn f() {} }\nfn g() { a::f(); b::f(); }\n";
        // Two `f`s at one level clash: as rustc would, the oracle refuses
        // the text with both opened; either one alone may go.
        let clash = |t: &[u8]| {
            let t = String::from_utf8_lossy(t);
            t.matches("fn f").count() == 2 && t.matches("mod ").count() >= 1
        };
        let out = open_all(input, &clash);
        assert_eq!(out.matches("mod ").count(), 1, "{out}");
        assert_eq!(out.matches("fn f").count(), 2, "{out}");
    }
}
