//! One core for a one-worker pool.
//!
//! A round hands work from the parent to a worker and back. Between two
//! cores each hand-over wakes the other core, and on a virtual machine a
//! sleeping virtual CPU takes 50–70 µs to wake (measured on the 2-core VM
//! of `bench/`), longer than most rounds of a byte search; whether the
//! scheduler put the worker beside the parent or not made whole
//! reductions 2.5× apart. With `-j 1` the parent and its worker never
//! need to run at once, so the thread that runs the pool and every worker
//! it starts stay on the core it was on: a hand-over is then a context
//! switch. The thread's previous affinity comes back with the pool.

use rustix::thread::{sched_getaffinity, sched_getcpu, sched_setaffinity, CpuSet};

/// The calling thread kept on its current core until this is dropped.
#[derive(Debug)]
pub(crate) struct OneCore {
    saved: CpuSet,
}

impl OneCore {
    /// Keeps the calling thread (and the processes it starts from now on)
    /// on the core it runs on; `None` if it may run on one core only
    /// anyway, or the system refuses.
    pub(crate) fn pin() -> Option<OneCore> {
        let saved = sched_getaffinity(None).ok()?;
        if saved.count() <= 1 {
            return None;
        }
        let mut here = CpuSet::new();
        here.set(sched_getcpu());
        sched_setaffinity(None, &here).ok()?;
        Some(OneCore { saved })
    }
}

impl Drop for OneCore {
    fn drop(&mut self) {
        let _ = sched_setaffinity(None, &self.saved);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_to_one_core_and_restores() {
        let before = sched_getaffinity(None).unwrap();
        let pinned = OneCore::pin();
        if before.count() > 1 {
            assert!(pinned.is_some());
            assert_eq!(sched_getaffinity(None).unwrap().count(), 1);
        }
        drop(pinned);
        assert_eq!(sched_getaffinity(None).unwrap(), before);
    }
}
