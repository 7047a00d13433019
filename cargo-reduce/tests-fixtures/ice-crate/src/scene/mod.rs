//! The scene: named shapes, laid out in rows, and the graph of what
//! propagates to what.

mod graph;
pub mod shape;

use std::collections::BTreeMap;

use crate::geometry::{row, Rect, Size};
pub use shape::Shape;

/// Shapes by name, kept in name order.
#[derive(Debug, Default, Clone)]
pub struct Scene {
    shapes: BTreeMap<String, Shape>,
    gap: u32,
}

impl Scene {
    pub fn new(gap: u32) -> Self {
        Scene { shapes: BTreeMap::new(), gap }
    }

    pub fn insert(&mut self, name: &str, shape: Shape) -> Option<Shape> {
        self.shapes.insert(name.to_string(), shape)
    }

    pub fn remove(&mut self, name: &str) -> Option<Shape> {
        self.shapes.remove(name)
    }

    pub fn len(&self) -> usize {
        self.shapes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }

    /// Each shape's rectangle, in name order.
    pub fn layout(&self) -> Vec<(String, Rect)> {
        let sizes: Vec<Size> = self.shapes.values().map(Shape::bounds).collect();
        self.shapes
            .keys()
            .cloned()
            .zip(row(&sizes, self.gap))
            .collect()
    }

    /// The rectangle around every shape.
    pub fn extent(&self) -> Option<Rect> {
        let rects = self.layout();
        let mut it = rects.iter().map(|(_, r)| *r);
        let first = it.next()?;
        Some(it.fold(first, |acc, r| acc.union(&r)))
    }
}
