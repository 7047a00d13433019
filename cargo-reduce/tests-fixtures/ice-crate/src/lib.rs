//! A tiny scene graph: shapes, a layout pass and a renderer to text.
//! Its `scene::graph` module makes rustc 1.95 panic (an internal compiler
//! error), which is what `cargo reduce ice` is tested on.

/// Its items as they are, as `cfg_if::cfg_if!` leaves a branch: a module
/// declared in a macro call is flattened too.
macro_rules! items {
    ($($item:item)*) => { $($item)* };
}

pub mod geometry;
pub mod scene;
items! {
    #[path = "extra/render_text.rs"]
    pub mod render;
}

include!("version.rs");

/// Everything a caller usually needs.
pub mod prelude {
    pub use crate::geometry::{Point, Rect, Size};
    pub use crate::render::render;
    pub use crate::scene::Scene;
}

/// The crate's name and version, for banners.
pub fn banner() -> String {
    format!("scene {}", VERSION)
}

#[cfg(test)]
mod tests {
    use super::prelude::*;

    #[test]
    fn a_rect_contains_its_corner() {
        let r = Rect::new(Point::new(1, 2), Size::new(3, 4));
        assert!(r.contains(Point::new(1, 2)));
        assert!(!r.contains(Point::new(4, 2)));
    }
}
