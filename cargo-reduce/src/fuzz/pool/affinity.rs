//! Keeping a small round on the parent's core.
//!
//! A round hands work from the parent to its workers and back. Between two
//! cores each hand-over wakes the other core, and on a virtual machine a
//! sleeping virtual CPU is slow to wake, slower than most rounds of a byte
//! search or a typed pass; whether the scheduler had put the worker beside
//! the parent or not made whole reductions take very different times. So before a small round the parent's
//! thread is kept on the core it runs on, and the first worker is moved
//! there: the hand-overs are context switches. A parent that follows its
//! worker is not enough: woken by the worker, it lands on whichever core is
//! idle, the other one. The parent is let go every few tens of
//! milliseconds and kept again where the scheduler puts it, so several
//! cargo-reduce processes (or pools in parallel tests) still spread over
//! the cores; pinning it for good piled them onto one.

use std::time::{Duration, Instant};

use rustix::process::Pid;
use rustix::thread::{sched_getaffinity, sched_getcpu, sched_setaffinity, CpuSet};

/// Whether the process may run on more than one core (else there is
/// nothing to follow).
pub(crate) fn several_cores() -> bool {
    allowed().is_some_and(|set| set.count() > 1)
}

thread_local! {
    /// The core this thread is kept on and since when, and how many crews
    /// of this thread keep it (the last one to go lets it go).
    static KEPT: std::cell::Cell<(Option<(usize, Instant)>, usize)> =
        const { std::cell::Cell::new((None, 0)) };
}

/// How long the parent stays on one core before the scheduler may move it.
const REBALANCE: Duration = Duration::from_millis(50);

/// A crew of this thread that may keep it on a core; dropping it lets the
/// thread go when it was the last.
#[derive(Debug)]
pub(crate) struct Keeper(());

impl Keeper {
    pub(crate) fn new() -> Keeper {
        // Read before any thread is kept anywhere by a keeper: a keeper is
        // made before its thread is kept.
        let _ = allowed();
        KEPT.with(|kept| {
            let (core, crews) = kept.get();
            kept.set((core, crews + 1));
        });
        Keeper(())
    }

    /// Keeps the calling thread on the core it runs on (let go and kept
    /// again every `REBALANCE`, so the scheduler can move it); that core.
    pub(crate) fn keep(&self) -> usize {
        KEPT.with(|kept| {
            let (core, crews) = kept.get();
            let now = Instant::now();
            if let Some((core, since)) = core {
                if now.duration_since(since) <= REBALANCE && current_core() == core {
                    return core;
                }
                unpin_self();
                std::thread::yield_now();
            }
            let here = current_core();
            pin_self(here);
            kept.set((Some((here, now)), crews));
            here
        })
    }
}

impl Drop for Keeper {
    fn drop(&mut self) {
        KEPT.with(|kept| {
            let (core, crews) = kept.get();
            if crews <= 1 {
                if core.is_some() {
                    unpin_self();
                }
                kept.set((None, 0));
            } else {
                kept.set((core, crews - 1));
            }
        });
    }
}

fn pin_self(core: usize) {
    let mut set = CpuSet::new();
    set.set(core);
    let _ = sched_setaffinity(None, &set);
}

fn unpin_self() {
    if let Some(all) = allowed() {
        let _ = sched_setaffinity(None, all);
    }
}

/// The cores the process may use, as they were before any pool kept a
/// thread on one.
fn allowed() -> Option<&'static CpuSet> {
    static ALLOWED: std::sync::OnceLock<Option<CpuSet>> = std::sync::OnceLock::new();
    ALLOWED
        .get_or_init(|| sched_getaffinity(None).ok())
        .as_ref()
}

/// The core the calling thread runs on now.
fn current_core() -> usize {
    sched_getcpu()
}

/// Moves the processes `pids` to `core`; false if the system refused.
pub(crate) fn move_to(pids: &[u32], core: usize) -> bool {
    let mut set = CpuSet::new();
    set.set(core);
    pids.iter().all(|&pid| {
        let pid = i32::try_from(pid).ok().and_then(Pid::from_raw);
        pid.is_some_and(|pid| sched_setaffinity(Some(pid), &set).is_ok())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_a_process_to_a_core() {
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let core = current_core();
        assert!(move_to(&[child.id()], core));
        let pid = Pid::from_raw(child.id() as i32).unwrap();
        let set = sched_getaffinity(Some(pid)).unwrap();
        assert_eq!(set.count(), 1);
        assert!(set.is_set(core));
        child.kill().unwrap();
        child.wait().unwrap();
    }

    #[test]
    fn a_kept_thread_is_let_go_with_its_last_keeper() {
        let before = sched_getaffinity(None).unwrap();
        let first = Keeper::new();
        let second = Keeper::new();
        let core = first.keep();
        assert_eq!(second.keep(), core, "kept where it is");
        if several_cores() {
            assert_eq!(sched_getaffinity(None).unwrap().count(), 1);
        }
        drop(first);
        if several_cores() {
            assert_eq!(
                sched_getaffinity(None).unwrap().count(),
                1,
                "second still keeps it"
            );
        }
        drop(second);
        assert_eq!(sched_getaffinity(None).unwrap(), before);
    }
}
