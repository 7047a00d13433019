//! Where a pool's processes run.
//!
//! A round hands work from the parent to its workers and back. Between two
//! cores each hand-over wakes the other core, and on a virtual machine a
//! sleeping virtual CPU takes 50–70 µs to wake (measured on the 2-core VM
//! of `bench/`), longer than most rounds of a byte search or a typed pass;
//! whether the scheduler had put a worker beside the parent or not made
//! whole reductions 2.5× apart. So the thread that runs the pool stays on
//! the core it was on, its first worker with it (a hand-over between them
//! is a context switch), and the other workers on the other cores, for
//! the rounds large enough to share (see `Crew::begin_round`). The
//! thread's previous affinity comes back with the pool.

use std::cell::RefCell;
use std::sync::OnceLock;

use rustix::thread::{sched_getaffinity, sched_getcpu, sched_setaffinity, CpuSet};

/// The cores the process may use, as they were before any pool pinned a
/// thread.
fn allowed() -> Option<&'static CpuSet> {
    static ALLOWED: OnceLock<Option<CpuSet>> = OnceLock::new();
    ALLOWED
        .get_or_init(|| sched_getaffinity(None).ok())
        .as_ref()
}

thread_local! {
    /// This thread's affinity before its first live placement, and how
    /// many placements are live: several pools (one per target) may live
    /// at once, and the last one to go restores the affinity.
    static PINNED: RefCell<Option<(CpuSet, usize)>> = const { RefCell::new(None) };
}

/// The calling thread kept on one core (the *home* core) while this lives.
#[derive(Debug)]
pub(crate) struct Placement {
    home: CpuSet,
    /// The other cores the process may use, if any.
    away: Option<CpuSet>,
}

impl Placement {
    /// Keeps the calling thread (and the processes it starts from now on)
    /// on the core it runs on; `None` if the process may use one core only,
    /// or the system refuses.
    pub(crate) fn pin() -> Option<Placement> {
        let allowed = allowed()?;
        if allowed.count() <= 1 {
            return None;
        }
        let saved = sched_getaffinity(None).ok()?;
        let cpu = sched_getcpu();
        let mut home = CpuSet::new();
        home.set(cpu);
        sched_setaffinity(None, &home).ok()?;
        PINNED.with(|pinned| {
            let mut pinned = pinned.borrow_mut();
            match pinned.as_mut() {
                Some((_, live)) => *live += 1,
                None => *pinned = Some((saved, 1)),
            }
        });
        let mut away = *allowed;
        away.unset(cpu);
        Some(Placement {
            home,
            away: (away.count() > 0).then_some(away),
        })
    }

    /// Runs `spawn` (which starts worker `slot`) so that the worker lands
    /// on the home core (slot 0) or on the others.
    pub(crate) fn spawning<T>(&self, slot: usize, spawn: impl FnOnce() -> T) -> T {
        let Some(away) = self.away.as_ref().filter(|_| slot > 0) else {
            return spawn();
        };
        let _ = sched_setaffinity(None, away);
        let spawned = spawn();
        let _ = sched_setaffinity(None, &self.home);
        spawned
    }
}

impl Drop for Placement {
    fn drop(&mut self) {
        PINNED.with(|pinned| {
            let mut pinned = pinned.borrow_mut();
            if let Some((saved, live)) = pinned.as_mut() {
                *live -= 1;
                if *live == 0 {
                    let _ = sched_setaffinity(None, saved);
                    *pinned = None;
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_to_one_core_places_others_away_and_the_last_restores() {
        let before = sched_getaffinity(None).unwrap();
        let first = Placement::pin();
        let second = Placement::pin();
        if before.count() > 1 {
            let second = second.as_ref().unwrap();
            assert_eq!(sched_getaffinity(None).unwrap().count(), 1);
            let away = second.spawning(1, || sched_getaffinity(None).unwrap());
            assert_eq!(away.count(), before.count() - 1);
            assert_eq!(sched_getaffinity(None).unwrap().count(), 1, "home again");
        }
        // Dropped in either order, the last one restores the affinity.
        drop(first);
        if before.count() > 1 {
            assert_eq!(sched_getaffinity(None).unwrap().count(), 1);
        }
        drop(second);
        assert_eq!(sched_getaffinity(None).unwrap(), before);
    }
}
