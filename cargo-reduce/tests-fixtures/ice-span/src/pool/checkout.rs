//! Checking connections out to tasks that may run on other threads.

use super::source::connect;

/// A task handed to the executor.
pub trait Spawn {
    fn spawn(self);
}

impl<S> Spawn for S
where
    (): Sendable<S>,
{
    fn spawn(self) {}
}

/// Whether `F` may move to another thread.
pub trait Sendable<F> {}
impl<F> Sendable<F> for () where F: Send {}

/// Sources that never exist.
pub trait Unavailable {}
impl<E, F> Sendable<F> for E where E: Unavailable {}

/// Connects once in the background, so that the first checkout is fast.
pub fn warm_up() {
    let task = async { async { connect::<&'static ()>() }.await };

    task.spawn();
}

/// How many connections a pool of `size` keeps warm.
pub fn warm_count(size: usize) -> usize {
    size.div_ceil(2)
}
