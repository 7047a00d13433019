//! The lines of derived code. An item with `#[derive(…)]` gets impls
//! that a macro writes, and their code carries the lines of the attribute
//! and of the item's fields (a `Debug` impl's field names, say), so a
//! field that no input printed showed as a line no input ran. A
//! source-based report (`cargo fuzz coverage`'s llvm-cov) does not
//! instrument derived impls (rustc skips `#[automatically_derived]` ones,
//! and the derives of std, serde and arbitrary mark theirs so); neither
//! does this one: the item's lines are left out, from its first derive
//! attribute to its end. Nothing else on them runs: a struct's or enum's
//! lines hold no code of their own.

use std::collections::BTreeSet;

use tree_sitter::Node;

use crate::syntax::parse_rust;

/// The items that a derive attribute may stand on.
const DERIVING_ITEMS: [&str; 3] = ["struct_item", "enum_item", "union_item"];

/// The (1-based) lines of every item of Rust source `text` that derives
/// something, from its first derive attribute on; none when it does not
/// parse.
pub(super) fn derived_lines(text: &[u8]) -> BTreeSet<u32> {
    let mut lines = BTreeSet::new();
    if let Some(tree) = parse_rust(text) {
        collect(tree.root_node(), text, &mut lines);
    }
    lines
}

fn collect(node: Node, text: &[u8], lines: &mut BTreeSet<u32>) {
    if DERIVING_ITEMS.contains(&node.kind()) {
        if let Some(first) = first_derive(node, text) {
            let (from, to) = (first.start_position().row, node.end_position().row);
            lines.extend((from..=to).map(|row| row as u32 + 1));
        }
        return;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        collect(child, text, lines);
    }
}

/// The first of the attributes right before `item` that derives
/// something (`#[derive(…)]`, or under `cfg_attr`).
fn first_derive<'t>(item: Node<'t>, text: &[u8]) -> Option<Node<'t>> {
    let mut first = None;
    let mut at = item.prev_sibling();
    while let Some(node) = at.filter(|n| matches!(n.kind(), "attribute_item" | "line_comment")) {
        let attribute = node.utf8_text(text).unwrap_or_default();
        if node.kind() == "attribute_item" && attribute.contains("derive(") {
            first = Some(node);
        }
        at = node.prev_sibling();
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_items_lines_from_its_derive_on_are_derived() {
        let text = b"use x;

/// Doc.
#[derive(Debug, arbitrary::Arbitrary)]
#[allow(dead_code)]
struct Input<'s> {
    s: &'s str,
    n: u8,
}

#[derive(Clone)]
enum E { A, B }

struct Plain { x: u8 }

#[cfg_attr(test, derive(PartialEq))]
union U { a: u8 }

fn main() {
    #[derive(Debug)]
    struct Local;
}
";
        let lines: Vec<u32> = derived_lines(text).into_iter().collect();
        assert_eq!(lines, [4, 5, 6, 7, 8, 9, 11, 12, 16, 17, 20, 21]);
    }
}
