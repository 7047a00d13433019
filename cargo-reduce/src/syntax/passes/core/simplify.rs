//! Simplifying after deletion (the `canon` part of a strategy): plain
//! expressions, shorter names, plainer literals, types by declared names,
//! expressions by a zero of a spelled type.
//!
//! Once nothing more can be deleted, what is left can still be made
//! simpler. An expression may become the plainest one (`0`) where that is
//! no longer: a name or a call gone from the program may let HDD delete
//! what it referred to (`c(a); function a() {}` → `c(0)`). Each identifier (every occurrence of one spelling, at once, so
//! the program stays consistent) gets a fresh one-letter name; each literal
//! of a kind the language lists becomes its plainest form (`0`, `""`).
//! Both are edit lists for [`reduce_edits`], so every rename and every
//! shrink is kept only while the failure stays, and the set kept is
//! 1-minimal.

use std::collections::{BTreeMap, HashSet};

use crate::engine::{OracleError, Start};
use crate::syntax::lang::Spec;
use crate::syntax::passes::edits::{reduce_edits, TreeEdit};
use crate::syntax::passes::nav::{field_child, rendered_len};
use crate::syntax::passes::render_oracle::Tester;
use crate::syntax::tokens;
use crate::syntax::tree::{render_node, render_tree, Body, Change, NodeId, Tree};

/// Renames identifiers to fresh shorter names. Returns whether the text
/// got shorter.
pub(crate) fn rename_identifiers(
    tree: &mut Tree,
    spec: &Spec,
    tester: &Tester,
) -> Result<bool, OracleError> {
    let mut groups: BTreeMap<Vec<u8>, Vec<NodeId>> = BTreeMap::new();
    let mut used: HashSet<Vec<u8>> = HashSet::new();
    for id in tree.preorder() {
        let Some(text) = tree.leaf_text(id) else {
            continue;
        };
        used.insert(text.to_vec());
        if matches!(tree.node(id).body, Body::Token { .. })
            && spec.canon.identifiers.contains(&tree.node(id).kind)
        {
            groups.entry(text.to_vec()).or_default().push(id);
        }
    }
    let mut groups: Vec<(Vec<u8>, Vec<NodeId>)> = groups.into_iter().collect();
    groups.sort_by_key(|(name, ids)| std::cmp::Reverse(name.len() * ids.len()));
    let mut fresh = fresh_names(used);
    let mut edits: Vec<TreeEdit> = Vec::new();
    for (name, ids) in groups {
        let Some(new) = fresh.next().filter(|n| n.len() < name.len()) else {
            continue;
        };
        let new = tree.intern(&new);
        edits.push(ids.into_iter().map(|id| (id, Change::Text(new))).collect());
    }
    reduce_edits(tree, edits, Start::Halves, tester)
}

/// Replaces expressions by the language's plainest expression, and types
/// by its plainest type (`std::convert::Infallible` → `()`), where that is
/// not longer, in bytes or in tokens. Returns whether anything was
/// replaced (the text may be as long as before).
pub(crate) fn plain_expressions(
    tree: &mut Tree,
    spec: &Spec,
    tester: &Tester,
) -> Result<bool, OracleError> {
    let before = render_tree(tree);
    let forms = std::iter::once(spec.canon.plain_expression).chain(spec.canon.plain_type);
    for (supertype, plain) in forms {
        let plain_id = tree.intern(plain);
        let edits: Vec<TreeEdit> = replaceable(tree, spec, supertype)
            .filter(|&id| {
                // Not longer in bytes, nor in tokens: `u8` stays, which
                // `()` would make two tokens.
                rendered_len(tree, id) >= plain.len()
                    && tree.leaves_sum(id, tokens::count) >= tokens::count(plain.as_bytes())
                    && render_node(tree, id) != plain.as_bytes()
            })
            .map(|id| vec![(id, Change::Text(plain_id))])
            .collect();
        reduce_edits(tree, edits, Start::Halves, tester)?;
    }
    Ok(render_tree(tree) != before)
}

/// Replaces types by the shortest name of a type the program declares
/// (`Result<(), ()>` → `Result<b, b>` beside `struct b;`), where that is
/// shorter: one token where `()` is two. Runs after renaming, which makes
/// the declared names short; a declaration with generic parameters does
/// not count (its bare name is not a type). Returns whether the text got
/// shorter.
pub(crate) fn declared_types(
    tree: &mut Tree,
    spec: &Spec,
    tester: &Tester,
) -> Result<bool, OracleError> {
    let Some((supertype, _)) = spec.canon.plain_type else {
        return Ok(false);
    };
    let Some(name) = shortest_declared_type(tree, spec) else {
        return Ok(false);
    };
    let name_id = tree.intern(&String::from_utf8_lossy(&name));
    let edits: Vec<TreeEdit> = replaceable(tree, spec, supertype)
        .filter(|&id| rendered_len(tree, id) > name.len())
        .map(|id| vec![(id, Change::Text(name_id))])
        .collect();
    reduce_edits(tree, edits, Start::Halves, tester)
}

/// The zeros of the number types the input spells (`0usize` where it
/// says `usize`), for [`typed_literals`]: taken from the input, since by
/// the time they are tried the deletions have often removed every
/// mention of the type the failure is about.
pub(crate) fn spelled_zeros(input: &[u8], spec: &Spec) -> Vec<String> {
    let words: HashSet<&[u8]> = input.split(|&c| !tokens::word(c)).collect();
    let suffixes = spec.canon.literal_suffixes.iter();
    suffixes
        .filter(|suffix| words.contains(suffix.as_bytes()))
        .map(|suffix| format!("0{suffix}"))
        .collect()
}

/// Replaces expressions by one of `zeros` (`a.len()` → `0usize`), where
/// that is not longer: one token that keeps a type error's type, where
/// the plain `0` is an `{integer}`. One reduction per zero, so an
/// expression takes a type only where the failure stays. Returns whether
/// the text got shorter.
pub(crate) fn typed_literals(
    tree: &mut Tree,
    spec: &Spec,
    zeros: &[String],
    tester: &Tester,
) -> Result<bool, OracleError> {
    let mut changed = false;
    for zero in zeros {
        let zero_id = tree.intern(zero);
        let edits: Vec<TreeEdit> = replaceable(tree, spec, spec.canon.plain_expression.0)
            .filter(|&id| rendered_len(tree, id) >= zero.len())
            .map(|id| vec![(id, Change::Text(zero_id))])
            .collect();
        changed |= reduce_edits(tree, edits, Start::Halves, tester)?;
    }
    Ok(changed)
}

/// The nodes of `supertype` outside binding places (`let PATTERN`) and
/// names held (`'a`: in a lifetime, or after a `'` where a reduced text
/// no longer parses as one), the ones a plain form may replace.
fn replaceable<'t>(
    tree: &'t Tree,
    spec: &'t Spec,
    supertype: &'t str,
) -> impl Iterator<Item = NodeId> + 't {
    let quote = |id: NodeId| tree.leaf_text(id) == Some(b"'".as_slice());
    let mut nodes = Vec::new();
    let mut stack = vec![tree.root()];
    while let Some(id) = stack.pop() {
        if spec.canon.name_holders.contains(&tree.node(id).kind) {
            continue;
        }
        nodes.push(id);
        let children = tree.children(id);
        let held = |i: usize| i > 0 && quote(children[i - 1]);
        stack.extend(
            (0..children.len())
                .rev()
                .filter(|&i| !held(i))
                .map(|i| children[i]),
        );
    }
    nodes.into_iter().filter(move |&id| {
        let node = tree.node(id);
        spec.is_a(node.kind, supertype)
            && !node
                .field
                .is_some_and(|f| spec.canon.binding_fields.contains(&f))
    })
}

/// The shortest name among the program's type declarations without
/// generic parameters (`struct b;`, `type c = u8;`).
fn shortest_declared_type(tree: &Tree, spec: &Spec) -> Option<Vec<u8>> {
    tree.preorder()
        .into_iter()
        .filter(|&id| spec.canon.type_declarations.contains(&tree.node(id).kind))
        .filter(|&id| field_child(tree, id, "type_parameters").is_none())
        .filter_map(|id| field_child(tree, id, "name"))
        .map(|id| render_node(tree, id))
        .filter(|name| !name.is_empty())
        .min_by_key(Vec::len)
}

/// Shrinks literals to the plain form the language gives for their kind.
pub(crate) fn shrink_literals(
    tree: &mut Tree,
    spec: &Spec,
    tester: &Tester,
) -> Result<bool, OracleError> {
    let mut edits: Vec<TreeEdit> = Vec::new();
    let mut stack = vec![tree.root()];
    while let Some(id) = stack.pop() {
        let kind = tree.node(id).kind;
        match spec.canon.literals.iter().find(|(k, _)| *k == kind) {
            Some(&(_, plain)) if rendered_len(tree, id) > plain.len() => {
                let plain = tree.intern(plain);
                edits.push(vec![(id, Change::Text(plain))]);
            }
            Some(_) => {}
            None => stack.extend(tree.children(id)),
        }
    }
    reduce_edits(tree, edits, Start::Halves, tester)
}

/// `a`…`z`, then `a0`…`z9`, skipping every name in `used`.
fn fresh_names(used: HashSet<Vec<u8>>) -> impl Iterator<Item = String> {
    let letters = (b'a'..=b'z').map(|c| char::from(c).to_string());
    let pairs = (b'a'..=b'z')
        .flat_map(|c| (b'0'..=b'9').map(move |d| format!("{}{}", char::from(c), char::from(d))));
    letters
        .chain(pairs)
        .filter(move |n| !used.contains(n.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::passes::testing::rust_pass_output;
    use crate::syntax::Lang;

    fn declared(input: &str, oracle: &(dyn Fn(&[u8]) -> bool + Sync)) -> String {
        rust_pass_output(input, oracle, |tree, tester| {
            declared_types(tree, Lang::Rust.spec().unwrap(), tester)
        })
    }

    #[test]
    fn types_become_the_shortest_declared_name() {
        // `c<T>` is generic, so `b` is the shortest type name; a
        // declaration's own name is a binding and stays.
        let input = "struct b; struct c<T>(T); struct Long; fn f(x: (), y: Option<u8>) {}\n";
        let out = declared(input, &|_| true);
        assert_eq!(
            out,
            "struct b; struct c<T>(T); struct Long; fn f(x: b, y: b) {}\n"
        );
    }

    #[test]
    fn an_expression_becomes_a_zero_of_a_spelled_type() {
        const SPELLED: &str = "fn a(a: Vec<u8>) -> usize { 0.1 * a.len() }\n";
        const UNSPELLED: &str = "fn a(a: Vec<u8>) { 0.1 * a.len() }\n";
        let oracle = |t: &[u8]| {
            let t = String::from_utf8_lossy(t);
            t.contains("0.1 *") && (t.contains(".len()") || t.contains("0usize"))
        };
        let spec = Lang::Rust.spec().unwrap();
        assert_eq!(spelled_zeros(SPELLED.as_bytes(), spec), ["0usize", "0u8"]);
        let out = rust_pass_output(SPELLED, &oracle, |tree, tester| {
            let spec = Lang::Rust.spec().unwrap();
            typed_literals(tree, spec, &spelled_zeros(SPELLED.as_bytes(), spec), tester)
        });
        assert_eq!(out, "fn a(a: Vec<u8>) -> usize { 0.1 * 0usize }\n");
        // No `usize` spelled: no `0usize` tried.
        let out = rust_pass_output(UNSPELLED, &oracle, |tree, tester| {
            let spec = Lang::Rust.spec().unwrap();
            typed_literals(
                tree,
                spec,
                &spelled_zeros(UNSPELLED.as_bytes(), spec),
                tester,
            )
        });
        assert_eq!(out, UNSPELLED);
    }

    #[test]
    fn a_type_stays_where_the_oracle_needs_it() {
        let input = "struct b; fn f(x: (), y: Option<u8>) {}\n";
        let keeps_option = |t: &[u8]| String::from_utf8_lossy(t).contains("Option<u8>");
        let out = declared(input, &keeps_option);
        assert_eq!(out, "struct b; fn f(x: b, y: Option<u8>) {}\n");
        let without_structs = "fn f(x: (), y: Option<u8>) {}\n";
        assert_eq!(declared(without_structs, &|_| true), without_structs);
    }

    /// A lifetime's or a label's name is no expression: `'long` never
    /// becomes `'0`, which lexes only with an error.
    #[test]
    fn lifetimes_and_labels_keep_a_name() {
        let input = "fn f<'long>(x: &'long u8) { 'outer: loop { break 'outer; } }\n";
        let keeps = |t: &[u8]| {
            let t = String::from_utf8_lossy(t);
            t.contains("&'") && t.contains("break '")
        };
        let out = rust_pass_output(input, &keeps, |tree, tester| {
            plain_expressions(tree, Lang::Rust.spec().unwrap(), tester)
        });
        assert!(!out.contains("'0"), "{out}");
        assert!(out.contains("&'long") && out.contains("'outer:"), "{out}");
    }

    /// `()` is as many bytes as `u8` but two tokens: `u8` stays, where a
    /// longer type becomes `()`.
    #[test]
    fn a_plain_type_replaces_no_type_of_fewer_tokens() {
        let input = "fn f(x: u8, y: Option<i8>) {}\n";
        let keeps_body = |t: &[u8]| String::from_utf8_lossy(t).contains("{}");
        let out = rust_pass_output(input, &keeps_body, |tree, tester| {
            plain_expressions(tree, Lang::Rust.spec().unwrap(), tester)
        });
        assert_eq!(out, "fn f(x: u8, y: ()) {}\n");
    }
}
