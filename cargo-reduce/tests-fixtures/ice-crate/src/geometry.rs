//! Points, sizes and rectangles in whole pixels.

use std::fmt;
use std::ops::{Add, Sub};

/// A point on the canvas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

impl Point {
    pub fn new(x: i32, y: i32) -> Self {
        Point { x, y }
    }

    pub fn manhattan(self, other: Point) -> u32 {
        self.x.abs_diff(other.x) + self.y.abs_diff(other.y)
    }
}

impl Add for Point {
    type Output = Point;
    fn add(self, other: Point) -> Point {
        Point::new(self.x + other.x, self.y + other.y)
    }
}

impl Sub for Point {
    type Output = Point;
    fn sub(self, other: Point) -> Point {
        Point::new(self.x - other.x, self.y - other.y)
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

/// A width and a height.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Size {
    pub w: u32,
    pub h: u32,
}

impl Size {
    pub fn new(w: u32, h: u32) -> Self {
        Size { w, h }
    }

    pub fn area(self) -> u64 {
        u64::from(self.w) * u64::from(self.h)
    }
}

/// An axis-aligned rectangle: its top-left corner and its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Rect {
    pub origin: Point,
    pub size: Size,
}

impl Rect {
    pub fn new(origin: Point, size: Size) -> Self {
        Rect { origin, size }
    }

    pub fn contains(&self, p: Point) -> bool {
        let d = p - self.origin;
        d.x >= 0 && d.y >= 0 && (d.x as u32) < self.size.w && (d.y as u32) < self.size.h
    }

    pub fn union(&self, other: &Rect) -> Rect {
        let x0 = self.origin.x.min(other.origin.x);
        let y0 = self.origin.y.min(other.origin.y);
        let x1 = (self.origin.x + self.size.w as i32).max(other.origin.x + other.size.w as i32);
        let y1 = (self.origin.y + self.size.h as i32).max(other.origin.y + other.size.h as i32);
        Rect::new(Point::new(x0, y0), Size::new((x1 - x0) as u32, (y1 - y0) as u32))
    }
}

/// Rectangles that never overlap are laid out left to right.
pub fn row(sizes: &[Size], gap: u32) -> Vec<Rect> {
    let mut x = 0i32;
    sizes
        .iter()
        .map(|s| {
            let r = Rect::new(Point::new(x, 0), *s);
            x += (s.w + gap) as i32;
            r
        })
        .collect()
}
