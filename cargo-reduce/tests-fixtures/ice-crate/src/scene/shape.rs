//! What a scene is made of.

use crate::geometry::Size;

/// One shape; its bounds decide the layout.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    Square(u32),
    Box { w: u32, h: u32 },
    Label(String),
}

impl Shape {
    pub fn bounds(&self) -> Size {
        match self {
            Shape::Square(side) => Size::new(*side, *side),
            Shape::Box { w, h } => Size::new(*w, *h),
            Shape::Label(text) => Size::new(text.chars().count() as u32, 1),
        }
    }

    pub fn glyph(&self) -> char {
        match self {
            Shape::Square(_) => '#',
            Shape::Box { .. } => '+',
            Shape::Label(_) => '"',
        }
    }
}
