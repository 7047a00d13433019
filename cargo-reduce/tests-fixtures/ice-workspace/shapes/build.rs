//! Writes the tree's node types into `OUT_DIR`, as a code generator
//! (prost, bindgen) writes what `include!(concat!(env!("OUT_DIR"), …))`
//! then reads.

/// The generated module.
const NODE: &str = r#"use {Propagate, Transform};

/// A tree that takes children of type `C`.
pub trait AddChild<C> {
    fn add_child(&self) {}
}

/// A node of the tree, transformed by `T`.
pub struct Node<T>(pub T);

impl<T> AddChild<Box<dyn for<'b> Propagate<T::Output<'b>>>> for Node<T> where T: Transform {}
"#;

fn main() {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(format!("{out}/node.rs"), NODE).expect("OUT_DIR is writable");
}
