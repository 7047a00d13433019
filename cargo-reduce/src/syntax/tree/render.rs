//! Turning a tree, with some nodes changed, back into bytes.
//!
//! Every kept token is written with the whitespace that preceded it in the
//! input, so the output keeps the input's layout; a removed node is written
//! as its Φ (with its first token's whitespace, unless Φ is empty). Where
//! two pieces would fuse into one token (`let` + `x`, `-` + `>`) a space is
//! put between them, and after a line comment (a node marked
//! [`super::Node::ends_line`]) a newline. Spaces that separated
//! something now gone are dropped after `(`/`[` and before `)`/`]`/`,`/`;`.

use super::{Body, NodeId, StrId, Tree, Wrapper};
use crate::syntax::tokens::fuses;

/// How a node reads in one rendering, instead of its own content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    /// Removed: its Φ.
    Phi,
    /// A given text (a new name, a shrunk literal, nothing at all).
    Text(StrId),
    /// Hoisted: the descendant `NodeId` in its place.
    Node(NodeId),
    /// Hoisted and wrapped: the descendant `NodeId` in its place, between
    /// the wrapper's texts (`b<X>` → `[X]`).
    Wrap(NodeId, &'static Wrapper),
}

/// Renders `tree`, node `id` changed by `change(id)` where that is `Some`.
pub(crate) fn render(tree: &Tree, change: &dyn Fn(NodeId) -> Option<Change>) -> Vec<u8> {
    let mut bytes = render_from(tree, tree.root(), Some(0), change);
    bytes.extend_from_slice(tree.source(tree.tail()));
    bytes
}

/// `id`'s subtree as it is, its tokens apart as in the input (the gap
/// before the first dropped); [`render_node`] drops every gap.
pub(crate) fn render_subtree(tree: &Tree, id: NodeId) -> Vec<u8> {
    render_from(tree, id, None, &|_| None)
}

/// Renders `id`'s subtree, changed by `change`. `last_end`: where the text
/// before it ended in the source, if it did.
fn render_from(
    tree: &Tree,
    id: NodeId,
    last_end: Option<u32>,
    change: &dyn Fn(NodeId) -> Option<Change>,
) -> Vec<u8> {
    let mut out = Out {
        last_end,
        ..Out::default()
    };
    let mut stack = vec![Item::Node(id)];
    while let Some(item) = stack.pop() {
        let id = match item {
            Item::Node(id) => id,
            Item::EndLine => {
                out.line_comment = true;
                continue;
            }
            Item::Text(text) => {
                out.piece(b"", text.as_bytes(), None);
                continue;
            }
        };
        let node = tree.node(id);
        let gap = tree.source(node.gap);
        match change(id) {
            Some(Change::Phi) => out.piece(gap, tree.phi(id).as_bytes(), None),
            Some(Change::Text(s)) => out.piece(gap, tree.str(s).as_bytes(), None),
            Some(Change::Node(d)) => stack.push(Item::Node(d)),
            Some(Change::Wrap(d, wrapper)) => {
                out.piece(gap, wrapper.open.as_bytes(), None);
                stack.extend([Item::Text(wrapper.close), Item::Node(d)]);
            }
            None => {
                if node.ends_line {
                    stack.push(Item::EndLine);
                }
                match &node.body {
                    Body::Token { start, end } => {
                        let adjacent = out.last_end == Some(node.gap.0);
                        out.piece(gap, tree.source((*start, *end)), Some(adjacent));
                        out.last_end = Some(*end);
                    }
                    Body::Text(s) => out.piece(gap, tree.str(*s).as_bytes(), None),
                    Body::Inner(children) => {
                        stack.extend(children.iter().rev().map(|&c| Item::Node(c)))
                    }
                }
            }
        }
    }
    out.bytes
}

/// What the rendering stack holds: a node, the end of a line comment, or
/// the closing text of a [`Change::Wrap`].
enum Item {
    Node(NodeId),
    EndLine,
    Text(&'static str),
}

/// Renders `tree` as it is.
pub(crate) fn render_tree(tree: &Tree) -> Vec<u8> {
    render(tree, &|_| None)
}

/// The text of `id`'s tokens, without gaps.
pub(crate) fn render_node(tree: &Tree, id: NodeId) -> Vec<u8> {
    let mut text = Vec::new();
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        text.extend_from_slice(tree.leaf_text(n).unwrap_or_default());
        stack.extend(tree.children(n).iter().rev());
    }
    text
}

#[derive(Default)]
struct Out {
    bytes: Vec<u8>,
    /// The last piece ended a line comment.
    line_comment: bool,
    /// Where the last piece ended in the source, if it was a source token.
    last_end: Option<u32>,
}

impl Out {
    /// Writes one token-like piece and, before it, `gap` or whatever
    /// separator keeps it apart from the previous piece. `adjacent`: the
    /// piece is a source token that directly followed the last piece in the
    /// input, so its gap (even an empty one) is what separated them.
    fn piece(&mut self, gap: &[u8], text: &[u8], adjacent: Option<bool>) {
        let Some(&first) = text.first() else {
            return;
        };
        self.last_end = None;
        let after_comment = std::mem::take(&mut self.line_comment);
        if adjacent == Some(true) {
            self.bytes.extend_from_slice(gap);
        } else if self.bytes.is_empty() {
            // Nothing before: no separator needed.
        } else if after_comment && !gap.contains(&b'\n') {
            self.bytes.push(b'\n');
        } else if !gap.is_empty() && !self.tight(gap, first) {
            self.bytes.extend_from_slice(gap);
        } else if self.bytes.last().is_some_and(|&last| fuses(last, first)) {
            self.bytes.push(b' ');
        }
        self.bytes.extend_from_slice(text);
    }

    /// A gap that no longer separates what it did in the input and would
    /// read oddly here: spaces (no line break) right after `(`/`[` or
    /// before `)`/`]`/`,`/`;`, as left by removing `a, ` from `(a, b)`.
    fn tight(&self, gap: &[u8], next: u8) -> bool {
        let after_open = self.bytes.last().is_some_and(|c| b"([".contains(c));
        !gap.contains(&b'\n') && (after_open || b")],;".contains(&next))
    }
}
