//! Arithmetic on quantities.

use crate::Quantity;
use std::ops::Mul;

/// Scales a quantity by a plain factor.
pub fn scale(q: Quantity<f32>, by: f32) -> Quantity<f32> {
    Quantity(q.0 * by)
}

impl<S> Mul<Quantity<<f32 as Mul<S>>::Output>> for f32
where
    Quantity<Self::Output>:,
{
    type Output = ();
    fn mul(self, _: Quantity<<f32 as Mul<S>>::Output>) {}
}
