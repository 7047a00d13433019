//! Repeated paths imported (Rust, in the `restructure` part of a strategy):
//! `core::ops::Mul` spelled twice becomes `use core::ops::Mul;` and `Mul`
//! twice.
//!
//! A test case cut from a crate keeps the paths its crate spelled out, and
//! a path that no hoist, rename or module opening may shorten (it names
//! something outside the file) stays whole at every use. One `use` at the
//! top and the last segment at each place is shorter from two uses on, as
//! a person writing the MCVE would do it. Paths are found in the tokens,
//! not the tree: a compiler crash's test case often does not parse, and
//! tree-sitter's error nodes hide the path nodes. The edit is kept only if
//! the text gets shorter and the failure stays; the oracle catches a name
//! that now clashes.

use std::collections::BTreeMap;

use crate::engine::OracleError;
use crate::syntax::passes::edits::{apply_until_none, TreeEdit};
use crate::syntax::passes::render_oracle::Tester;
use crate::syntax::tokens;
use crate::syntax::tree::{Change, NodeId, Tree};

/// Imports every repeated path it can, until none can go. Returns whether
/// the text got shorter.
pub(crate) fn uses_pass(tree: &mut Tree, tester: &Tester) -> Result<bool, OracleError> {
    apply_until_none(tree, tester, imports)
}

/// One edit per path spelled at least twice: `use PATH;` before the first
/// token, and at each place the path's qualifiers gone.
fn imports(tree: &mut Tree) -> Vec<TreeEdit> {
    // Rendered tokens only: an emptied leaf between `a`, `::` and `b`
    // would hide the path they read as.
    let leaves = tree.tokens();
    let Some(&first) = leaves.first() else {
        return Vec::new();
    };
    let mut spelled: BTreeMap<Vec<u8>, Vec<(usize, usize)>> = BTreeMap::new();
    for (start, end) in paths(tree, &leaves) {
        let path = leaves[start..=end]
            .iter()
            .flat_map(|&l| text(tree, l).to_vec())
            .collect();
        spelled.entry(path).or_default().push((start, end));
    }
    let first_text = text(tree, first).to_vec();
    let nothing = tree.empty();
    let mut edits = Vec::new();
    for (path, places) in spelled.into_iter().filter(|(_, places)| places.len() >= 2) {
        let import = [b"use ".as_slice(), &path, b";", &first_text].concat();
        let import = tree.intern(&String::from_utf8_lossy(&import));
        let mut edit: TreeEdit = vec![(first, Change::Text(import))];
        for (start, end) in places {
            // The first token takes the last one's text, so that the gap
            // before the path stays (`a: Mul`, not `a:Mul`).
            let last = String::from_utf8_lossy(text(tree, leaves[end])).into_owned();
            let last = tree.intern(&last);
            edit.push((leaves[start], Change::Text(last)));
            edit.extend(
                leaves[start + 1..=end]
                    .iter()
                    .map(|&l| (l, Change::Text(nothing))),
            );
        }
        edits.push(edit);
    }
    edits
}

/// The token ranges `a::b::c` (at least one `::`) that start with a
/// lowercase segment (a module or crate, not `Self::Output` or a type's
/// `T::Item`), outside `use` and not at the first token.
fn paths(tree: &Tree, leaves: &[NodeId]) -> Vec<(usize, usize)> {
    let at = |i: usize| leaves.get(i).map_or(&b""[..], |&l| text(tree, l));
    let mut found = Vec::new();
    let mut i = 1;
    while i < leaves.len() {
        if !is_name(at(i)) || at(i - 1) == b"::" {
            i += 1;
            continue;
        }
        let mut end = i;
        while at(end + 1) == b"::" && is_name(at(end + 2)) {
            end += 2;
        }
        if end > i && at(i)[0].is_ascii_lowercase() && at(i - 1) != b"use" {
            found.push((i, end));
        }
        i = end + 1;
    }
    found
}

fn text(tree: &Tree, leaf: NodeId) -> &[u8] {
    tree.leaf_text(leaf).unwrap_or_default()
}

/// A name or keyword: word bytes ([`tokens::word`]), not starting with a
/// digit.
fn is_name(t: &[u8]) -> bool {
    t.first().is_some_and(|c| !c.is_ascii_digit()) && t.iter().all(|&c| tokens::word(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::passes::testing::rust_pass_output;

    fn import_all(input: &str, oracle: &(dyn Fn(&[u8]) -> bool + Sync)) -> String {
        rust_pass_output(input, oracle, uses_pass)
    }

    #[test]
    fn a_path_spelled_twice_is_imported() {
        let input = "fn f(a: std::collections::HashMap<u8, u8>) -> std::collections::HashMap<u8, u8> { a }\n";
        assert_eq!(
            import_all(input, &|_| true),
            "use std::collections::HashMap;fn f(a: HashMap<u8, u8>) -> HashMap<u8, u8> { a }\n"
        );
    }

    #[test]
    fn paths_are_found_where_the_text_does_not_parse() {
        // No `for` in the impl: tree-sitter's error node holds the paths.
        let input = "impl core::ops::Mul<core::ops::Mul<u8>> f32 {}\n";
        assert_eq!(
            import_all(input, &|_| true),
            "use core::ops::Mul;impl Mul<Mul<u8>> f32 {}\n"
        );
    }

    #[test]
    fn a_path_read_through_emptied_tokens_is_one_path() {
        // The token pass empties leaves rather than removing them: with
        // `x::` emptied the second path reads as the first.
        use crate::syntax::tree::render_tree;
        use crate::syntax::{build_tree, squeeze, Lang, Strategy};
        let input = "fn f(a: core::ops::Mul, b: core::x::ops::Mul) {}\n";
        let mut tree = build_tree(input.as_bytes(), Lang::Rust, &Strategy::Best.options());
        squeeze(&mut tree);
        let (empty, leaves) = (tree.empty(), tree.tokens());
        let x = leaves
            .iter()
            .position(|&l| tree.leaf_text(l) == Some(b"x"))
            .unwrap();
        for &leaf in &leaves[x..x + 2] {
            tree.replace_with_text(leaf, empty);
        }
        let emptied = render_tree(&tree);
        crate::syntax::passes::testing::with_tester(&emptied, &|_| true, |tester| {
            uses_pass(&mut tree, tester).unwrap()
        });
        let out = String::from_utf8(render_tree(&tree)).unwrap();
        assert_eq!(
            out.split_whitespace().collect::<String>(),
            "usecore::ops::Mul;fnf(a:Mul,b:Mul){}"
        );
    }

    #[test]
    fn once_spelled_projected_and_imported_paths_stay() {
        for input in [
            "fn f(a: std::collections::HashMap<u8, u8>) {}\n",
            "fn f(a: Self::Output, b: Self::Output) {}\n",
            "fn f<T: Tr>(a: T::Out, b: T::Out) {}\n",
            "use std::fmt::Debug;\nfn f() -> impl std::fmt::Debug { 0 }\n",
        ] {
            assert_eq!(import_all(input, &|_| true), input);
        }
        let input = "fn f(a: core::ops::Range<u8>, b: core::ops::Range<u8>) {}\n";
        let needs_the_paths = |t: &[u8]| !String::from_utf8_lossy(t).contains("use ");
        assert_eq!(import_all(input, &needs_the_paths), input);
    }
}
