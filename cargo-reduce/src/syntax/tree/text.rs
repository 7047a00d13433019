//! A tree for text without a grammar: balanced brackets and lines.
//!
//! Tokens are runs of word characters or single punctuation bytes;
//! whitespace is the gap between them. `(`…`)`, `[`…`]` and `{`…`}` that
//! balance make a `group` node (bracket, lines, bracket); inside the file
//! and each group, tokens on one line make a `line` node. Lines, groups and
//! tokens have Φ "" (anything may go); a group's brackets have themselves
//! as Φ, so HDD removes a group whole or keeps it balanced (the final token
//! pass may still remove a lone bracket).

use super::{Body, NodeId, StrId, Tree};
use crate::syntax::tokens::word;

/// Builds the bracket-and-line tree of `source`.
pub(crate) fn parse_text(source: &[u8]) -> Tree {
    let mut b = Builder::new(source.to_vec());
    let mut i = 0;
    while i < source.len() {
        let c = source[i];
        if c.is_ascii_whitespace() {
            b.newline |= c == b'\n';
            i += 1;
            continue;
        }
        let end = token_end(source, i);
        b.token(i, end);
        i = end;
    }
    b.finish()
}

fn token_end(source: &[u8], start: usize) -> usize {
    if !word(source[start]) {
        return start + 1;
    }
    start + source[start..].iter().take_while(|&&c| word(c)).count()
}

fn closing(open: u8) -> Option<u8> {
    match open {
        b'(' => Some(b')'),
        b'[' => Some(b']'),
        b'{' => Some(b'}'),
        _ => None,
    }
}

/// One open container: the file or a group, with its current line.
struct Open {
    node: NodeId,
    close: u8,
    line: Option<NodeId>,
}

struct Builder {
    tree: Tree,
    empty: StrId,
    open: Vec<Open>,
    newline: bool,
}

impl Builder {
    fn new(source: Vec<u8>) -> Self {
        let mut tree = Tree::new(source);
        let empty = tree.intern("");
        let root = tree.add("file", empty, Body::Inner(Vec::new()));
        Builder {
            tree,
            empty,
            open: vec![Open {
                node: root,
                close: 0,
                line: None,
            }],
            newline: false,
        }
    }

    /// The current line of the innermost container (a new one after a
    /// newline).
    fn line(&mut self) -> NodeId {
        let newline = std::mem::take(&mut self.newline);
        let top = self.open.last_mut().expect("the file is always open");
        match top.line {
            Some(line) if !newline => line,
            _ => {
                let line = self.tree.add("line", self.empty, Body::Inner(Vec::new()));
                self.tree.push_child(top.node, line);
                top.line = Some(line);
                line
            }
        }
    }

    fn token(&mut self, start: usize, end: usize) {
        let c = self.tree.source((start as u32, end as u32))[0];
        if self.open.len() > 1 && self.open.last().is_some_and(|o| o.close == c) {
            let group = self.open.pop().expect("checked").node;
            let phi = self.tree.intern(&char::from(c).to_string());
            let close = self.tree.add_token("bracket", phi, start, end);
            self.tree.push_child(group, close);
            self.newline = false;
            return;
        }
        let line = self.line();
        if let Some(close) = closing(c) {
            let group = self.tree.add("group", self.empty, Body::Inner(Vec::new()));
            self.tree.push_child(line, group);
            let phi = self.tree.intern(&char::from(c).to_string());
            let open = self.tree.add_token("bracket", phi, start, end);
            self.tree.push_child(group, open);
            self.open.push(Open {
                node: group,
                close,
                line: None,
            });
            return;
        }
        let token = self.tree.add_token("token", self.empty, start, end);
        self.tree.push_child(line, token);
    }

    fn finish(mut self) -> Tree {
        let root = self.open[0].node;
        self.tree.finish(root);
        self.tree
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::tree::render_tree;

    #[test]
    fn text_tree_renders_back_to_its_input_and_groups_brackets() {
        let input = b"a(b, [c]\n  d) {\n e }\nf ) g\n";
        let tree = parse_text(input);
        assert_eq!(render_tree(&tree), input.to_vec());
        let kinds: Vec<&str> = tree.level(3).iter().map(|&id| tree.node(id).kind).collect();
        assert_eq!(
            kinds,
            ["bracket", "line", "line", "bracket", "bracket", "line", "bracket"]
        );
    }
}
