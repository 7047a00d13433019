//! The tree HDD works on: an arena of nodes over the original bytes.
//!
//! Leaves are tokens: a byte range of the source plus the whitespace gap
//! before it, so the output can keep the original spacing. Every node
//! carries its kind, its Φ (interned) and the gap of its first token. A
//! node whose reduction has been decided becomes [`Body::Text`] (its Φ, a
//! renamed identifier, a shrunk literal): its subtree is gone.
//!
//! Trees come from tree-sitter ([`super::parse`]) or from the bracket and
//! line structure of plain text ([`text`]). What works on a tree without
//! knowing its language lives beside the arena: turning it back into
//! bytes ([`render`](mod@render)) and the thesis' transforms
//! ([`transform`]). Nothing here reads a grammar or calls tree-sitter.

mod render;
mod text;
mod transform;

pub(super) use render::{render, render_node, render_subtree, render_tree, Change};
pub(super) use text::parse_text;
pub use transform::{flatten, squeeze};

use std::collections::HashMap;

/// Kind of the tokens made for text that tree-sitter shows in no node.
pub(super) const HIDDEN: &str = "(hidden)";

/// A node kind made of one node between two texts, which a hoisted node
/// can be wrapped in ([`Tree::wrap`]; Rust's slice type `[T]`).
#[derive(Debug, PartialEq, Eq)]
pub struct Wrapper {
    /// The kind of the wrapping node (`array_type`).
    pub kind: &'static str,
    /// The text before the wrapped node (`[`).
    pub open: &'static str,
    /// The text after it (`]`).
    pub close: &'static str,
}

/// A node of a [`Tree`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

/// An interned string of a [`Tree`] (a Φ, a new name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StrId(u32);

/// What a node consists of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// A token: `source[start..end]`.
    Token {
        /// First byte.
        start: u32,
        /// One past the last byte.
        end: u32,
    },
    /// An inner node.
    Inner(Vec<NodeId>),
    /// Replaced by a fixed text (its Φ, a new name…).
    Text(StrId),
}

/// One node.
#[derive(Debug, Clone)]
pub struct Node {
    /// The grammar's node kind (`"identifier"`, `"{"`, `"ERROR"`).
    pub kind: &'static str,
    /// Φ: what the node becomes when it is removed.
    pub phi: StrId,
    /// The whitespace before the node's first token, as a source range.
    pub gap: (u32, u32),
    /// Token, children or replacement text.
    pub body: Body,
    /// A line comment: whatever follows must start on a new line.
    pub ends_line: bool,
    /// The grammar's name for the node's place in its parent (`pattern`
    /// in `let PATTERN = …`), if it has one.
    pub field: Option<&'static str>,
    /// A token separating list elements in its parent (`,`): an element
    /// is removed together with one.
    pub separator: bool,
}

/// An arena tree over a source text.
///
/// ```
/// use cargo_reduce::syntax::{build_tree, Lang, Strategy};
///
/// let tree = build_tree(b"fn f() { g(1, 2); }", Lang::Rust, &Strategy::Best.options());
/// let tokens: Vec<&[u8]> = tree.preorder().into_iter().filter_map(|n| tree.leaf_text(n)).collect();
/// assert_eq!(tokens.concat(), b"fnf(){g(1,2);}");
/// ```
#[derive(Debug, Clone)]
pub struct Tree {
    source: Vec<u8>,
    nodes: Vec<Node>,
    strings: Vec<Box<str>>,
    interned: HashMap<Box<str>, StrId>,
    root: NodeId,
    tail: (u32, u32),
    last_end: u32,
}

impl Tree {
    /// An empty tree over `source`; add nodes, then [`Tree::finish`].
    pub fn new(source: Vec<u8>) -> Self {
        let mut tree = Tree {
            source,
            nodes: Vec::new(),
            strings: Vec::new(),
            interned: HashMap::new(),
            root: NodeId(0),
            tail: (0, 0),
            last_end: 0,
        };
        tree.intern("");
        tree
    }

    /// Hidden tokens (a raw string's `r#"`) have no node of their own: the
    /// non-blank text between the last token and `upto` becomes a token of
    /// `parent`, whose Φ is its text.
    pub(crate) fn fill_hidden(&mut self, parent: NodeId, upto: usize) {
        let from = self.last_end as usize;
        let Some(gap) = self.source.get(from..upto) else {
            return;
        };
        let Some(first) = gap.iter().position(|c| !c.is_ascii_whitespace()) else {
            return;
        };
        let last = gap
            .iter()
            .rposition(|c| !c.is_ascii_whitespace())
            .expect("non-blank");
        let (start, end) = (from + first, from + last + 1);
        let phi = self.intern_source(start, end);
        let id = self.add_token(HIDDEN, phi, start, end);
        self.push_child(parent, id);
    }

    /// Adds a node (children are added with [`Tree::push_child`]).
    pub fn add(&mut self, kind: &'static str, phi: StrId, body: Body) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Node {
            kind,
            phi,
            gap: (0, 0),
            body,
            ends_line: false,
            field: None,
            separator: false,
        });
        id
    }

    /// Adds the token `source[start..end]`; tokens must be added in text
    /// order, so that each one's gap is what lies between it and the last.
    pub fn add_token(
        &mut self,
        kind: &'static str,
        phi: StrId,
        start: usize,
        end: usize,
    ) -> NodeId {
        let (start, end) = (start as u32, end as u32);
        let id = self.add(kind, phi, Body::Token { start, end });
        self.nodes[id.0 as usize].gap = (self.last_end.min(start), start);
        self.last_end = self.last_end.max(end);
        id
    }

    /// Appends `child` to `parent`'s children.
    pub fn push_child(&mut self, parent: NodeId, child: NodeId) {
        if let Body::Inner(children) = &mut self.nodes[parent.0 as usize].body {
            children.push(child);
        }
    }

    /// Sets the root and gives each inner node the gap of its first token.
    pub fn finish(&mut self, root: NodeId) {
        self.root = root;
        self.tail = (self.last_end, self.source.len() as u32);
        for id in self.preorder().into_iter().rev() {
            if let Body::Inner(children) = &self.nodes[id.0 as usize].body {
                let gap = children
                    .first()
                    .map_or((0, 0), |c| self.nodes[c.0 as usize].gap);
                self.nodes[id.0 as usize].gap = gap;
            }
        }
    }

    /// Interns `s`.
    pub fn intern(&mut self, s: &str) -> StrId {
        if let Some(&id) = self.interned.get(s) {
            return id;
        }
        let id = StrId(self.strings.len() as u32);
        self.strings.push(s.into());
        self.interned.insert(s.into(), id);
        id
    }

    /// The empty string, interned by [`Tree::new`] before anything else.
    pub fn empty(&self) -> StrId {
        StrId(0)
    }

    /// Interns the source text `start..end` (lossily decoded).
    pub(crate) fn intern_source(&mut self, start: usize, end: usize) -> StrId {
        let text = String::from_utf8_lossy(&self.source[start..end]).into_owned();
        self.intern(&text)
    }

    /// The text of an interned string.
    pub fn str(&self, id: StrId) -> &str {
        &self.strings[id.0 as usize]
    }

    /// The root node.
    pub fn root(&self) -> NodeId {
        self.root
    }

    /// The node `id`.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    /// The node `id`, to change it.
    pub fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id.0 as usize]
    }

    /// Number of nodes ever added (ids are below this).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when the tree has no node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The children of `id` (none for tokens and replaced nodes).
    pub fn children(&self, id: NodeId) -> &[NodeId] {
        match &self.node(id).body {
            Body::Inner(children) => children,
            _ => &[],
        }
    }

    /// Φ of `id`, as text.
    pub fn phi(&self, id: NodeId) -> &str {
        self.str(self.node(id).phi)
    }

    /// The source bytes `range`.
    pub fn source(&self, range: (u32, u32)) -> &[u8] {
        &self.source[range.0 as usize..range.1 as usize]
    }

    /// What follows the last token (usually a final newline).
    pub fn tail(&self) -> (u32, u32) {
        self.tail
    }

    /// The text of a leaf (a token or a replaced node), `None` for an inner
    /// node.
    pub fn leaf_text(&self, id: NodeId) -> Option<&[u8]> {
        match self.node(id).body {
            Body::Token { start, end } => Some(self.source((start, end))),
            Body::Text(s) => Some(self.str(s).as_bytes()),
            Body::Inner(_) => None,
        }
    }

    /// The leaves that render as text, in order: the tokens the output
    /// reads as (a leaf an edit emptied, or made a line break, is no
    /// longer one).
    pub(crate) fn tokens(&self) -> Vec<NodeId> {
        self.tokens_under(self.root)
    }

    /// [`Tree::tokens`] of `id`'s subtree.
    pub(crate) fn tokens_under(&self, id: NodeId) -> Vec<NodeId> {
        let blank = |t: &[u8]| t.iter().all(u8::is_ascii_whitespace);
        let leaves = self.subtree(id).into_iter();
        leaves
            .filter(|&n| self.leaf_text(n).is_some_and(|t| !blank(t)))
            .collect()
    }

    /// The sum of `measure` over the texts of `id`'s leaves: with
    /// `<[u8]>::len`, the length of its text without the gaps.
    pub(crate) fn leaves_sum(&self, id: NodeId, measure: impl Fn(&[u8]) -> usize) -> usize {
        let leaves = self.subtree(id).into_iter();
        leaves.filter_map(|n| self.leaf_text(n)).map(measure).sum()
    }

    /// The live nodes, parents before children, children in order.
    pub fn preorder(&self) -> Vec<NodeId> {
        self.subtree(self.root)
    }

    /// The live nodes of `id`'s subtree, in [`Tree::preorder`]'s order.
    pub(crate) fn subtree(&self, id: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![id];
        while let Some(n) = stack.pop() {
            out.push(n);
            stack.extend(self.children(n).iter().rev());
        }
        out
    }

    /// The live nodes at `depth` (the root is at depth 0), in text order.
    pub fn level(&self, depth: usize) -> Vec<NodeId> {
        let mut level = vec![self.root];
        for _ in 0..depth {
            level = level
                .iter()
                .flat_map(|&id| self.children(id))
                .copied()
                .collect();
        }
        level
    }

    /// The node `id` now reads `text`; its subtree is dropped.
    pub fn replace_with_text(&mut self, id: NodeId, text: StrId) {
        self.node_mut(id).body = Body::Text(text);
    }

    /// The node `id` is removed: it reads its Φ from now on.
    pub fn replace_with_phi(&mut self, id: NodeId) {
        let phi = self.node(id).phi;
        self.replace_with_text(id, phi);
    }

    /// The node `id` takes the place of its ancestor `at` (hoisting): `at`
    /// becomes what `id` is (kind, body) and keeps what belongs to the
    /// place (gap, field, Φ, separator role).
    pub fn hoist(&mut self, at: NodeId, id: NodeId) {
        let Node {
            kind,
            body,
            ends_line,
            ..
        } = self.node(id).clone();
        let at = self.node_mut(at);
        at.kind = kind;
        at.body = body;
        at.ends_line = ends_line;
    }

    /// The node `id` takes the place of its ancestor `at`, wrapped
    /// (`b<X>` → `[X]`): `at` becomes a node of the wrapper's kind whose
    /// children are its opening text, `id` and its closing text.
    pub fn wrap(&mut self, at: NodeId, id: NodeId, wrapper: &Wrapper) {
        let gap = self.node(at).gap;
        // Anonymous tokens are of the kind their text is, and unremovable.
        let [open, close] = [wrapper.open, wrapper.close].map(|text| {
            let s = self.intern(text);
            self.add(text, s, Body::Text(s))
        });
        self.node_mut(open).gap = gap;
        let at = self.node_mut(at);
        at.kind = wrapper.kind;
        at.body = Body::Inner(vec![open, id, close]);
        at.ends_line = false;
    }
}
