//! rust-lang/rust#130797 with `equivalent::Equivalent` as the trait of its higher-ranked `dyn`.

pub trait Transform {
    type Output<'a>;
}

pub trait AddChild<C> {
    fn add_child(&self) {}
}

pub struct Node<T>(pub T);

impl<T> AddChild<Box<dyn for<'b> equivalent::Equivalent<T::Output<'b>>>> for Node<T> where T: Transform {}

pub struct Dummy;

impl Transform for Dummy {
    type Output<'a> = ();
}

pub fn make_graph_root() {
    Node(Dummy).add_child()
}
