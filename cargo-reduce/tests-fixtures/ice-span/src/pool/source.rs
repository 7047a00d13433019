//! Where connections come from.

/// Something that hands out connections.
pub trait Acquire {
    type Connection;
}

/// The process-wide source.
impl Acquire for &'static () {
    type Connection = ();
}

/// A connection that is ready.
pub trait Ready {}
impl Ready for () {}

/// Never returns: a stand-in for a real connect.
pub fn pending<T>() -> T {
    loop {}
}

/// A connection from source `T`.
pub fn connect<T>() -> impl Ready
where
    T: Acquire,
    T::Connection: Ready,
{
    pending::<T::Connection>()
}
