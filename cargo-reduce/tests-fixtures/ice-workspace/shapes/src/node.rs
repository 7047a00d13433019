use crate::{Propagate, Transform};

/// A tree that takes children of type `C`.
pub trait AddChild<C> {
    fn add_child(&self) {}
}

/// A node of the tree, transformed by `T`.
pub struct Node<T>(pub T);

impl<T> AddChild<Box<dyn for<'b> Propagate<T::Output<'b>>>> for Node<T> where T: Transform {}
