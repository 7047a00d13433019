//! Draws an outline.

use shapes::AddChild;

/// The outline's transform.
pub struct Outline;

impl shapes::Transform for Outline {
    type Output<'a> = ();
}

/// The outline's root node, with its first child.
pub fn root() {
    shapes::Node(Outline).add_child()
}

/// Twice the area of a `w` × `h` rectangle.
pub fn double_area(w: u32, h: u32) -> u32 {
    2 * shapes::area(w, h)
}
