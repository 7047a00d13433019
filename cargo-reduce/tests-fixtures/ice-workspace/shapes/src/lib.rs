//! Shapes, and how a transform propagates through a tree of them.
#![forbid(unsafe_code)]

/// The tree's nodes, which the build script generates.
mod node {
    include!(concat!(env!("OUT_DIR"), "/node.rs"));
}

pub use node::{AddChild, Node};

/// A transform, and what it makes of a shape borrowed for `'a`.
pub trait Transform {
    type Output<'a>;
}

/// Passes `O` on to the children.
pub trait Propagate<O> {}

/// The area of a `w` × `h` rectangle.
pub fn area(w: u32, h: u32) -> u32 {
    w * h
}
