//! Units of measure, documented: `cargo doc` crashes rustdoc on the
//! multiplication impl in `ops` (rust-lang/rust#148095).

pub mod ops;

/// A value with a unit.
pub struct Quantity<S>(pub S);

impl<S: Copy> Quantity<S> {
    /// The value without its unit.
    pub fn value(&self) -> S {
        self.0
    }
}

/// A unit's name, for display.
pub fn unit_name(meters: bool) -> &'static str {
    if meters {
        "m"
    } else {
        "ft"
    }
}
