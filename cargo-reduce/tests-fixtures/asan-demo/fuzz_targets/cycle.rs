//! A memory leak in safe Rust: a reference cycle of `Rc`s. A command links
//! one node of a little graph to another with a strong reference; a link
//! that closes a cycle keeps its nodes alive after the graph is dropped.
//! Only LeakSanitizer (libFuzzer's `-detect_leaks=1` on the ASan build)
//! sees it.
#![no_main]

use std::cell::RefCell;
use std::rc::Rc;

use libfuzzer_sys::fuzz_target;

/// A node and the nodes it links to.
struct Node {
    value: u8,
    links: Vec<Rc<RefCell<Node>>>,
}

#[inline(never)]
fn add_node(nodes: &mut Vec<Rc<RefCell<Node>>>, value: u8) {
    let node = Node {
        value,
        links: Vec::new(),
    };
    nodes.push(Rc::new(RefCell::new(node)));
}

/// Links node `from` to node `to`: the planted bug, a strong reference
/// that may close a cycle.
#[inline(never)]
fn link(nodes: &[Rc<RefCell<Node>>], from: u8, to: u8) {
    if nodes.is_empty() {
        return;
    }
    let target = Rc::clone(&nodes[usize::from(to) % nodes.len()]);
    nodes[usize::from(from) % nodes.len()]
        .borrow_mut()
        .links
        .push(target);
}

/// The sum of the values reachable in one step from each node.
fn weight(nodes: &[Rc<RefCell<Node>>]) -> u64 {
    let one = |n: &Rc<RefCell<Node>>| {
        let node = n.borrow();
        u64::from(node.value) + node.links.iter().map(|l| u64::from(l.borrow().value)).sum::<u64>()
    };
    nodes.iter().map(one).sum()
}

fuzz_target!(|data: &[u8]| {
    let mut nodes = Vec::new();
    for op in data.chunks(3) {
        match op {
            [b'n', value, _] => add_node(&mut nodes, *value),
            [b'l', from, to] if from < to => link(&nodes, *from, *to),
            [b'L', from, to] => link(&nodes, *from, *to),
            _ => {}
        }
    }
    std::hint::black_box(weight(&nodes));
});
