//! A Rust file's text as the ICE steps edit it before the syntax reducer
//! takes over: tree-sitter's tree of it, and replacements of byte ranges.

use tree_sitter::Node;

/// One replacement in a file's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Edit {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) text: String,
}

impl Edit {
    /// The edit that deletes `range`.
    pub(crate) fn deletion(range: std::ops::Range<usize>) -> Edit {
        Edit {
            start: range.start,
            end: range.end,
            text: String::new(),
        }
    }
}

pub(crate) use crate::syntax::parse_rust;

/// Every node under `root` (itself included), in preorder.
pub(crate) fn preorder(root: Node<'_>) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    let mut cursor = root.walk();
    let mut descend = true;
    loop {
        if descend {
            out.push(cursor.node());
        }
        if descend && cursor.goto_first_child() {
            continue;
        }
        if cursor.goto_next_sibling() {
            descend = true;
            continue;
        }
        if !cursor.goto_parent() {
            return out;
        }
        descend = false;
    }
}

/// `text` with `edits` (non-overlapping) applied.
pub(crate) fn apply(text: &str, mut edits: Vec<Edit>) -> String {
    edits.sort_by_key(|e| e.start);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for edit in edits {
        if edit.start < at {
            continue;
        }
        out.push_str(&text[at..edit.start]);
        out.push_str(&edit.text);
        at = edit.end;
    }
    out.push_str(&text[at..]);
    out
}
