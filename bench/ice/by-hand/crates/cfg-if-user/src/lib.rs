//! rust-lang/rust#148095 inside a `cfg_if!` call, as a crate using cfg-if writes it.

cfg_if::cfg_if! {
    if #[cfg(all())] {
        use core::ops::Mul;

        pub struct Quantity<S>(pub S);

        impl<S> Mul<Quantity<<f32 as Mul<S>>::Output>> for f32
        where
            Quantity<Self::Output>:,
        {
            type Output = ();
            fn mul(self, _: Quantity<<f32 as Mul<S>>::Output>) {}
        }
    } else {
        pub struct Quantity<S>(pub S);
    }
}
