//! Which node's output propagates to which child: a node accepts children
//! that can take its output for any lifetime.

use super::Shape;

/// Turns a node's input into its output, which may borrow.
pub trait Transform {
    type Output<'a>;
}

/// Something that takes a node's output.
pub trait Propagate<O> {}

/// A node that can take a child of kind `C`.
pub trait AddChild<C> {
    fn add_child(&self) {}
}

/// A graph node around a transform.
pub struct Node<T>(T);

/// Lets each kind of node take children whose input is its output (one
/// kind so far).
macro_rules! accepts_children {
    ($($node:ident),*) => {
        $(impl<T> AddChild<Box<dyn for<'b> Propagate<T::Output<'b>>>> for $node<T> where T: Transform {})*
    };
}

accepts_children!(Node);

/// The root of a scene's graph.
pub fn make_graph_root() {
    Node(Outline).add_child()
}

/// Draws a shape's outline.
struct Outline;

impl Transform for Outline {
    type Output<'a> = ();
}

/// How many nodes a shape adds to the graph.
pub fn weight(shape: &Shape) -> usize {
    match shape {
        Shape::Square(_) => 1,
        Shape::Box { .. } => 2,
        Shape::Label(text) => text.len().max(1),
    }
}
