//! The flag that ends a round at once (Ctrl-C in a replay).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Set, it ends the round in progress: its running tests are killed and
/// the round fails with [`PoolError::Interrupted`](super::PoolError). A
/// replay of thousands of inputs, a reduction's round, or a test that
/// hangs until its timeout stops at once instead of at the round's end
/// (Ctrl-C in every mode that runs a pool). Two flags are equal when
/// they are the same flag.
#[derive(Clone, Debug, Default)]
pub(crate) struct StopFlag(Option<Arc<AtomicBool>>);

impl StopFlag {
    /// A round stops once `flag` is set.
    pub(crate) fn new(flag: Arc<AtomicBool>) -> Self {
        StopFlag(Some(flag))
    }

    pub(super) fn is_set(&self) -> bool {
        self.0.as_ref().is_some_and(|f| f.load(Ordering::SeqCst))
    }
}

impl PartialEq for StopFlag {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        }
    }
}

impl Eq for StopFlag {}
