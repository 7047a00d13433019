//! Newtypes unwrapped and unit structs replaced (Rust, in the
//! `restructure` part of a strategy): `struct W<T>(T);` goes, `W<X>` becomes `X` and
//! `W(e)` becomes `e`; `struct S;` goes and each `S` becomes `u8` (or
//! `()`).
//!
//! A test case keeps the wrapper types its crate or its human MCVE used
//! (rust-lang/rust#130797's `Node<T>(T)`, there to call a trait method
//! on), when the failure often needs only what is wrapped. No deletion
//! or hoist removes a wrapper: its type, its constructor and its
//! declaration must go together, or nothing type-checks the way it did.
//! Here they go in one edit per newtype, kept if the failure stays. A
//! wrapper qualifies when it is a
//! tuple struct of one field whose type is its one type parameter, so that
//! each `W<X>` gives way to its own `X` and nothing is copied.
//!
//! A unit struct the failure needs only as *some* type (rust-lang/rust
//! #141124's `impl b for <S as a>::c`) is the same case: a primitive type
//! stands in for it, and its declaration goes in the same edit. It
//! qualifies when every other
//! mention of its name is a type, not a value.

use crate::engine::OracleError;
use crate::syntax::passes::edits::{apply_until_none, TreeEdit};
use crate::syntax::passes::nav::{field_child, list_elements};
use crate::syntax::passes::render_oracle::Tester;
use crate::syntax::tree::{render_node, Change, NodeId, StrId, Tree};

/// Types that may stand in for a unit struct, tried in turn.
const STAND_INS: [&str; 2] = ["u8", "()"];

/// Unwraps every newtype and replaces every unit struct it can, until
/// none can go. Returns whether the text got shorter.
pub(crate) fn newtypes_pass(tree: &mut Tree, tester: &Tester) -> Result<bool, OracleError> {
    let stand_ins = STAND_INS.map(|t| tree.intern(t));
    apply_until_none(tree, tester, |tree| {
        let tree = &*tree;
        let items = tree.preorder().into_iter();
        let edits = items.flat_map(|n| {
            let units = replace_unit(tree, n, &stand_ins);
            unwrap(tree, n).into_iter().chain(units)
        });
        edits.collect()
    })
}

/// The edits that remove unit struct `item` and put one of `stand_ins` in
/// the place of each mention of its name, one edit per stand-in, if
/// `item` is one and every mention is a type.
fn replace_unit(tree: &Tree, item: NodeId, stand_ins: &[StrId]) -> Vec<TreeEdit> {
    let mentions = unit_mentions(tree, item).unwrap_or_default();
    if mentions.is_empty() {
        return Vec::new();
    }
    let edit = |&stand_in: &StrId| {
        let removed = (item, Change::Text(tree.empty()));
        let uses = mentions.iter().map(|&id| (id, Change::Text(stand_in)));
        std::iter::once(removed).chain(uses).collect()
    };
    stand_ins.iter().map(edit).collect()
}

/// The mentions of unit struct `item`'s name outside its declaration, if
/// `item` is one and every mention is a type.
fn unit_mentions(tree: &Tree, item: NodeId) -> Option<Vec<NodeId>> {
    if tree.node(item).kind != "struct_item" || field_child(tree, item, "type_parameters").is_some()
    {
        return None;
    }
    let fields = field_child(tree, item, "body").map(|b| list_elements(tree, b));
    if fields.is_some_and(|f| !f.is_empty()) {
        return None;
    }
    let name_node = field_child(tree, item, "name")?;
    let name = tree.leaf_text(name_node)?;
    let mentions = tree
        .preorder()
        .into_iter()
        .filter(|&id| id != name_node && tree.leaf_text(id) == Some(name));
    mentions
        .map(|id| (tree.node(id).kind == "type_identifier").then_some(id))
        .collect()
}

/// The edit that removes newtype `item` and puts the wrapped type or
/// value in the place of each use, if `item` is one.
fn unwrap(tree: &Tree, item: NodeId) -> Option<TreeEdit> {
    if tree.node(item).kind != "struct_item" {
        return None;
    }
    let name = render_node(tree, field_child(tree, item, "name")?);
    let [param] = list_elements(tree, field_child(tree, item, "type_parameters")?)[..] else {
        return None;
    };
    let [field] = list_elements(tree, field_child(tree, item, "body")?)[..] else {
        return None;
    };
    if render_node(tree, field) != render_node(tree, param) {
        return None;
    }
    let mut edit: TreeEdit = vec![(item, Change::Text(tree.empty()))];
    for id in tree.preorder() {
        let (head, list) = match tree.node(id).kind {
            "generic_type" => ("type", "type_arguments"),
            "call_expression" => ("function", "arguments"),
            "tuple_struct_pattern" => ("type", ""),
            _ => continue,
        };
        let named = field_child(tree, id, head).is_some_and(|h| render_node(tree, h) == name);
        let list = match list {
            "" => Some(id),
            field => field_child(tree, id, field),
        };
        let wrapped = list.map(|l| list_elements(tree, l)).unwrap_or_default();
        let wrapped: Vec<NodeId> = wrapped
            .into_iter()
            .filter(|&w| Some(w) != field_child(tree, id, head))
            .collect();
        if let ([only], true) = (&wrapped[..], named) {
            edit.push((id, Change::Node(*only)));
        }
    }
    (edit.len() > 1).then_some(edit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::passes::testing::rust_pass_output;

    #[test]
    fn a_newtype_gives_way_to_what_it_wraps() {
        let input =
            "struct W<a>(a);\nimpl<T: F> C for W<T> {}\nfn f() { W(h).g(); let W(x) = W(h); }\n";
        let out = rust_pass_output(input, &|_| true, newtypes_pass);
        assert_eq!(
            out.split_whitespace().collect::<String>(),
            "impl<T:F>CforT{}fnf(){h.g();letx=h;}"
        );
    }

    #[test]
    fn other_structs_and_a_needed_wrapper_stay() {
        for input in [
            "struct P<a>(a, a);\nfn f(x: P<u8>) {}\n",
            "struct S(u8);\nfn f(x: S) {}\n",
            "struct N<a> { x: a }\nfn f(x: N<u8>) {}\n",
        ] {
            assert_eq!(rust_pass_output(input, &|_| true, newtypes_pass), input);
        }
        let input = "struct W<a>(a);\nfn f(x: W<u8>) {}\n";
        let needs_w = |t: &[u8]| String::from_utf8_lossy(t).contains("W<u8>");
        assert_eq!(rust_pass_output(input, &needs_w, newtypes_pass), input);
    }

    #[test]
    fn a_unit_struct_gives_way_to_a_primitive_type() {
        let input = "trait b {}\nstruct S;\nimpl b for <S as a>::c {}\nfn f(x: S) {}\n";
        let out = rust_pass_output(input, &|_| true, newtypes_pass);
        assert_eq!(
            out.split_whitespace().collect::<String>(),
            "traitb{}implbfor<u8asa>::c{}fnf(x:u8){}"
        );
        // Where `u8` loses the failure, `()` is tried.
        let no_u8 = |t: &[u8]| !String::from_utf8_lossy(t).contains("u8");
        let out = rust_pass_output(input, &no_u8, newtypes_pass);
        assert_eq!(
            out.split_whitespace().collect::<String>(),
            "traitb{}implbfor<()asa>::c{}fnf(x:()){}"
        );
    }

    #[test]
    fn a_unit_struct_used_as_a_value_stays() {
        for input in [
            "struct S;\nfn f(x: S) { g(S) }\n",
            "struct S { x: u8 }\nfn f(x: S) {}\n",
            "struct S<T>;\nfn f(x: S<u8>) {}\n",
        ] {
            assert_eq!(rust_pass_output(input, &|_| true, newtypes_pass), input);
        }
    }
}
