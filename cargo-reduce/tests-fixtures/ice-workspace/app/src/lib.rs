//! Draws an outline.

use shapes::AddChild;

// `Outline` and its transform, which the build script generates.
include!(concat!(env!("OUT_DIR"), "/outline.rs"));

/// The outline's root node, with its first child.
pub fn root() {
    shapes::Node(Outline).add_child()
}

/// Twice the area of a `w` × `h` rectangle.
pub fn double_area(w: u32, h: u32) -> u32 {
    2 * shapes::area(w, h)
}
