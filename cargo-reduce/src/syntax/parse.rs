//! The tree of a grammar language: tree-sitter's parse turned into the
//! arena ([`super::tree`]), with Φ of every node from the language's
//! [`Spec`], and optional sequences of the grammar wrapped as nodes of
//! their own ([`wrap_groups`], the groups found by [`super::grammar`]).

use std::collections::HashMap;

use super::grammar::{Group, Member};
use super::lang::Spec;
use super::tree::{Body, NodeId, StrId, Tree};

/// tree-sitter's own tree of Rust `text`, for the readers of a source
/// file outside the reducer (a fuzz target's input type, ice mode's edits,
/// a coverage report's derived items).
pub(crate) fn parse_rust(text: impl AsRef<[u8]>) -> Option<tree_sitter::Tree> {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_rust::LANGUAGE.into())
        .expect("the Rust grammar loads");
    parser.parse(text, None)
}

/// Parses `source` with the language of `spec`. `slots`: a node's Φ
/// is that of the slot it fills in its parent where that is shorter
/// (list elements read as "" either way).
pub(super) fn parse(source: &[u8], spec: &Spec, slots: bool) -> Option<Tree> {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&spec.language).ok()?;
    let ts = parser.parse(source, None)?;
    let mut tree = Tree::new(source.to_vec());
    let mut phis: Vec<Option<Option<StrId>>> = vec![None; spec.phis.len()];
    let mut in_parent_phis: HashMap<(u16, u16), Option<StrId>> = HashMap::new();
    let mut cursor = ts.walk();
    let mut parents: Vec<(NodeId, usize, u16)> = Vec::new();
    loop {
        let n = cursor.node();
        let kind = usize::from(n.kind_id());
        let kind_phi = match phis.get_mut(kind) {
            Some(slot) => {
                *slot.get_or_insert_with(|| spec.phis[kind].as_deref().map(|p| tree.intern(p)))
            }
            None => None,
        };
        let in_parent = parents.last().and_then(|p| {
            let key = (p.2, n.kind_id());
            *in_parent_phis.entry(key).or_insert_with(|| {
                let phi = spec
                    .child_phis
                    .get(&key)
                    .filter(|phi| slots || phi.is_empty());
                phi.map(|phi| tree.intern(phi))
            })
        });
        let phi = match (in_parent, kind_phi) {
            (Some(phi), _) if !n.is_missing() => phi,
            (_, Some(phi)) if !n.is_error() && !n.is_missing() => phi,
            _ => tree.intern_source(n.start_byte(), n.end_byte()),
        };
        if let Some(&(parent, _, _)) = parents.last() {
            tree.fill_hidden(parent, n.start_byte());
        }
        let id = if n.child_count() == 0 {
            tree.add_token(n.kind(), phi, n.start_byte(), n.end_byte())
        } else {
            tree.add(n.kind(), phi, Body::Inner(Vec::new()))
        };
        if let Some(&(parent, _, _)) = parents.last() {
            tree.push_child(parent, id);
        }
        let node = tree.node_mut(id);
        node.ends_line = n.is_extra() && source[n.start_byte()..].starts_with(b"//");
        node.field = cursor.field_name();
        node.separator = !n.is_named()
            && parents
                .last()
                .is_some_and(|p| spec.separators.contains(&(p.2, n.kind_id())));
        if cursor.goto_first_child() {
            parents.push((id, n.end_byte(), n.kind_id()));
            continue;
        }
        while !cursor.goto_next_sibling() {
            let Some((parent, end, _)) = parents.pop() else {
                tree.finish(NodeId(0));
                return Some(tree);
            };
            tree.fill_hidden(parent, end);
            cursor.goto_parent();
        }
    }
}

/// Wraps every run of children that matches one of its parent's groups
/// (the longest, where several do) in a node of the group's kind, Φ "".
pub(super) fn wrap_groups(tree: &mut Tree, groups: &HashMap<String, Vec<Group>>) {
    for id in tree.preorder() {
        let Some(groups) = groups.get(tree.node(id).kind) else {
            continue;
        };
        let children = tree.children(id).to_vec();
        let mut wrapped = Vec::with_capacity(children.len());
        let mut i = 0;
        while i < children.len() {
            let best = groups
                .iter()
                .filter_map(|g| {
                    let (end, pieces) = matches(tree, &g.members, &children, i)?;
                    Some((end, g.kind, pieces))
                })
                .max_by_key(|(end, _, _)| *end);
            match best {
                Some((end, kind, pieces)) if end - i >= 2 => {
                    wrapped.push(build(tree, kind, pieces));
                    i = end;
                }
                _ => {
                    wrapped.push(children[i]);
                    i += 1;
                }
            }
        }
        tree.node_mut(id).body = Body::Inner(wrapped);
    }
    let root = tree.root();
    tree.finish(root);
}

/// A matched child, or a nested group's match.
enum Piece {
    Child(NodeId),
    Group(&'static str, Vec<Piece>),
}

/// Matches `members` against `children` from `at` (greedily, nested
/// optional sequences taken where they match): the end and the pieces.
fn matches(
    tree: &Tree,
    members: &[Member],
    children: &[NodeId],
    at: usize,
) -> Option<(usize, Vec<Piece>)> {
    let mut pos = at;
    let mut pieces = Vec::new();
    for member in members {
        match member {
            Member::One(kinds) => {
                let child = *children.get(pos)?;
                let node = tree.node(child);
                if node.separator || !kinds.contains(node.kind) {
                    return None;
                }
                pieces.push(Piece::Child(child));
                pos += 1;
            }
            Member::Optional(inner) => {
                if let Some((end, inner_pieces)) = matches(tree, &inner.members, children, pos) {
                    match inner_pieces.len() {
                        0 => {}
                        1 => pieces.extend(inner_pieces),
                        _ => pieces.push(Piece::Group(inner.kind, inner_pieces)),
                    }
                    pos = end;
                }
            }
        }
    }
    Some((pos, pieces))
}

fn build(tree: &mut Tree, kind: &'static str, pieces: Vec<Piece>) -> NodeId {
    let children = pieces
        .into_iter()
        .map(|p| match p {
            Piece::Child(c) => c,
            Piece::Group(kind, inner) => build(tree, kind, inner),
        })
        .collect();
    let empty = tree.empty();
    tree.add(kind, empty, Body::Inner(children))
}
