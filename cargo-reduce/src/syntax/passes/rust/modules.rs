//! Rust modules opened up (in the `restructure` part of a strategy): `mod
//! m { struct S; } … m::S` becomes `struct S; … S`.
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

use crate::engine::OracleError;
use crate::syntax::passes::edits::{apply_per_node, TreeEdit};
use crate::syntax::passes::nav::{field_child, parents, within, Parents};
use crate::syntax::passes::render_oracle::Tester;
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
/// `use m::*;`, `use self::m::{x, y};`) goes whole: its names are then
/// where it stands, and importing them again there is an error (E0255),
/// where a dependency taken into an MCVE as a module leaves exactly such a
/// `use`.
fn open(tree: &Tree, module: NodeId) -> Option<TreeEdit> {
    if tree.node(module).kind != "mod_item" {
        return None;
    }
    let name = tree.leaf_text(field_child(tree, module, "name")?)?;
    let body = field_child(tree, module, "body")?;
    let nothing = tree.empty();
    let mut edit: TreeEdit = vec![(module, Change::Node(body))];
    for &brace in tree.children(body) {
        if matches!(tree.node(brace).kind, "{" | "}") {
            edit.push((brace, Change::Text(nothing)));
        }
    }
    let nodes = tree.preorder();
    let parents = parents(tree);
    let scope = scope_of(tree, &parents, module);
    let at_root = scope.is_some_and(|s| tree.node(s).kind == "source_file");
    let redundant: Vec<NodeId> = nodes
        .iter()
        .copied()
        .filter(|&u| tree.node(u).kind == "use_declaration")
        .filter(|&u| match scope_of(tree, &parents, u) {
            s if s == scope => imports_plainly(tree, u, name, at_root),
            s => s == Some(body) && imports_from_parent(tree, u, at_root),
        })
        .collect();
    edit.extend(redundant.iter().map(|&u| (u, Change::Text(nothing))));
    let kept = |path: NodeId| !redundant.iter().any(|&u| within(&parents, path, u));
    edit.extend(
        nodes
            .into_iter()
            .filter(|&path| kept(path))
            .filter_map(|path| without_qualifier(tree, path, name)),
    );
    Some(edit)
}

/// The item list `id` stands in: the file, or a module's body.
fn scope_of(tree: &Tree, parents: &Parents, id: NodeId) -> Option<NodeId> {
    std::iter::successors(parents.get(&id).copied(), |p| parents.get(p).copied())
        .find(|&a| matches!(tree.node(a).kind, "source_file" | "declaration_list"))
}

/// Whether the `use` declaration `u` imports from the module `name` with
/// no `as`: `name::…` or `self::name::…`, and `crate::name::…` where the
/// module is at the crate's root (`at_root`).
fn imports_plainly(tree: &Tree, u: NodeId, name: &[u8], at_root: bool) -> bool {
    plain_qualifier(tree, u).is_some_and(|q| names_module(tree, q, name, at_root))
}

/// Whether the `use` declaration `u`, in a module, imports the items of
/// the scope the module stands in, with no `as`: `super::…`, and
/// `crate::…` where the module is at the crate's root (`at_root`); the
/// module opened, they stand where it does (`mod m { use crate::{A, B};
/// … }` as a dependency taken into an MCVE leaves it).
fn imports_from_parent(tree: &Tree, u: NodeId, at_root: bool) -> bool {
    let qualifier = plain_qualifier(tree, u).and_then(|q| tree.leaf_text(q));
    qualifier == Some(b"super".as_slice()) || (at_root && qualifier == Some(b"crate".as_slice()))
}

/// The path a `use` declaration imports from (`q` of `use q::x;`, `use
/// q::{x, y};` and `use q::*;`), when it renames nothing.
fn plain_qualifier(tree: &Tree, u: NodeId) -> Option<NodeId> {
    let argument = field_child(tree, u, "argument")?;
    let renames = tree
        .subtree(argument)
        .into_iter()
        .any(|n| tree.node(n).kind == "use_as_clause");
    if renames {
        return None;
    }
    match tree.node(argument).kind {
        kind if PATHS.contains(&kind) => field_child(tree, argument, "path"),
        // `use q::*;`: the path is its only named child.
        "use_wildcard" => tree
            .children(argument)
            .iter()
            .copied()
            .find(|&c| !matches!(tree.node(c).kind, "::" | "*")),
        _ => None,
    }
}

/// Whether the path `q` names the module `name`: `name`, `self::name`,
/// or `crate::name` when the module is at the root.
fn names_module(tree: &Tree, q: NodeId, name: &[u8], at_root: bool) -> bool {
    if tree.leaf_text(q) == Some(name) {
        return true;
    }
    let prefix = field_child(tree, q, "path").and_then(|p| tree.leaf_text(p));
    let last = field_child(tree, q, "name").and_then(|n| tree.leaf_text(n));
    let here =
        prefix == Some(b"self".as_slice()) || (at_root && prefix == Some(b"crate".as_slice()));
    last == Some(name) && here
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
    use super::*;
    use crate::syntax::passes::testing::rust_pass_output;

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
    fn a_glob_use_beside_goes_and_crate_paths_name_only_the_root_s_module() {
        let input = "mod k { use self::c::d; use crate::c::e; mod c { pub trait d {} } }\n\
                     mod c { pub trait e {} }\nuse c::*;\n";
        // In `k`, `crate::c` is the root's `c`, not `k`'s: its `use` stays
        // when `k::c` opens, and loses `c` when the root's `c` does.
        let out = open_all(input, &|t| String::from_utf8_lossy(t).contains("mod k"));
        assert_eq!(
            out,
            "mod k { use crate::e; pub trait d {} } pub trait e {}\n"
        );
    }

    #[test]
    fn a_use_in_the_module_that_imports_from_where_it_stands_goes_whole() {
        let input = "mod i { use crate::{c, d}; use super::*; use crate::x::y; use crate::e as f; \
                     pub struct h; }\nuse i::h;\n\
                     mod j { mod k { use super::a; use crate::b; } }\n";
        let out = open_all(input, &|_| true);
        // At the root `crate::` and `super::` name where `i` stood; in `j`,
        // only `super::` does.
        assert_eq!(
            out,
            "use crate::x::y; use crate::e as f; pub struct h; use crate::b;\n"
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
