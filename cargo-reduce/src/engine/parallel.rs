//! Running one round's candidates, possibly in parallel.
//!
//! A round is an ordered list of candidates; the answer is the *lowest*
//! index whose test is interesting. With `jobs > 1`, threads take indices in
//! order; once index `k` is found interesting, no index above `k` is
//! started, running ones above `k` are cancelled, and running ones below `k`
//! are awaited, since one of them may still win. Every index below the
//! answer has therefore been tested, so a parallel run picks exactly the
//! candidate a sequential run would: `-j N` changes wall time, never the
//! result (Hodován's Listing 1 takes any interesting candidate; taking the
//! lowest costs at most `jobs - 1` waits and buys determinism).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use super::limit::Limits;
use super::Outcome;

/// Tells a running test whether its result is still wanted.
///
/// ```
/// use cargo_reduce::{Cancel, Candidate, Oracle, OracleError, Outcome, Reducer};
///
/// struct Slow;
/// impl Oracle<u8> for Slow {
///     fn test(&self, c: &Candidate<'_, u8>, cancel: &Cancel<'_>) -> Result<Option<Outcome>, OracleError> {
///         if cancel.is_cancelled() {
///             return Ok(None); // another candidate won the round: unknown, not cached
///         }
///         Ok(Some(Outcome::from_bool(c.iter().any(|&b| b == b'x'))))
///     }
/// }
/// assert_eq!(Reducer::new().jobs(4).ddmin(b"abcxdef".to_vec(), &Slow).unwrap().atoms, b"x");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Cancel<'a> {
    index: usize,
    state: Option<&'a RoundState>,
    limits: &'a Limits,
}

impl<'a> Cancel<'a> {
    /// A token that is cancelled only by `limits` (deadline, interrupt).
    pub fn by_limits(limits: &'a Limits) -> Self {
        Cancel {
            index: 0,
            state: None,
            limits,
        }
    }

    /// True when the test should stop now: a lower-index candidate already
    /// won the round, another test failed, or a limit was reached.
    pub fn is_cancelled(&self) -> bool {
        self.state.is_some_and(|s| {
            s.found.load(Ordering::SeqCst) < self.index || s.failed.load(Ordering::SeqCst)
        }) || self.limits.should_stop()
    }
}

/// Shared by the threads of one round.
#[derive(Debug)]
pub(crate) struct RoundState {
    next: AtomicUsize,
    found: AtomicUsize,
    failed: AtomicBool,
}

/// Tests candidates `0..count` with `test`, on up to `jobs` threads, and
/// returns the lowest index found interesting. `test` returns `Ok(None)`
/// for a test that did not run to completion (cancelled, or refused by a
/// limit). The first error stops the round.
pub(crate) fn first_interesting<E, F>(
    count: usize,
    jobs: usize,
    limits: &Limits,
    test: F,
) -> Result<Option<usize>, E>
where
    E: Send,
    F: Fn(usize, &Cancel<'_>) -> Result<Option<Outcome>, E> + Sync,
{
    let state = RoundState {
        next: AtomicUsize::new(0),
        found: AtomicUsize::new(usize::MAX),
        failed: AtomicBool::new(false),
    };
    let error = Mutex::new(None);
    let worker = || loop {
        let i = state.next.fetch_add(1, Ordering::SeqCst);
        if i >= count
            || i > state.found.load(Ordering::SeqCst)
            || state.failed.load(Ordering::SeqCst)
        {
            break;
        }
        if limits.should_stop() {
            break;
        }
        let cancel = Cancel {
            index: i,
            state: Some(&state),
            limits,
        };
        match test(i, &cancel) {
            Ok(Some(Outcome::Interesting)) => {
                state.found.fetch_min(i, Ordering::SeqCst);
            }
            Ok(_) => {}
            Err(e) => {
                state.failed.store(true, Ordering::SeqCst);
                error.lock().expect("round error lock").get_or_insert(e);
                break;
            }
        }
    };
    let threads = jobs.clamp(1, count.max(1));
    if threads == 1 {
        worker();
    } else {
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(worker);
            }
        });
    }
    if let Some(e) = error.into_inner().expect("round error lock") {
        return Err(e);
    }
    let found = state.found.load(Ordering::SeqCst);
    Ok((found != usize::MAX).then_some(found))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn run(jobs: usize, interesting: &[usize], count: usize) -> Option<usize> {
        first_interesting::<(), _>(count, jobs, &Limits::none(), |i, _| {
            // Later indices finish first, to provoke out-of-order completion.
            std::thread::sleep(Duration::from_micros(((count - i) * 200) as u64));
            Ok(Some(Outcome::from_bool(interesting.contains(&i))))
        })
        .unwrap()
    }

    #[test]
    fn parallel_rounds_pick_the_lowest_interesting_index() {
        for jobs in [1, 2, 3, 8] {
            assert_eq!(run(jobs, &[3, 5, 9], 12), Some(3), "jobs={jobs}");
            assert_eq!(run(jobs, &[], 12), None);
            assert_eq!(run(jobs, &[0], 12), Some(0));
            assert_eq!(run(jobs, &[11], 12), Some(11));
        }
    }

    /// Index 1 runs until it is cancelled; index 0 becomes interesting
    /// once index 1 is running. No index above 1 is started.
    #[test]
    fn indices_above_the_winner_are_cancelled() {
        let running = (std::sync::Mutex::new(false), std::sync::Condvar::new());
        let started = AtomicUsize::new(0);
        let found = first_interesting::<(), _>(4, 2, &Limits::none(), |i, cancel| {
            started.fetch_add(1, Ordering::SeqCst);
            let (flag, changed) = &running;
            if i == 0 {
                let mut flag = flag.lock().unwrap();
                while !*flag {
                    flag = changed.wait(flag).unwrap();
                }
                return Ok(Some(Outcome::Interesting));
            }
            *flag.lock().unwrap() = true;
            changed.notify_all();
            while !cancel.is_cancelled() {
                std::thread::yield_now();
            }
            Ok(None)
        });
        assert_eq!(found, Ok(Some(0)));
        assert_eq!(started.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn an_error_stops_the_round() {
        let r = first_interesting(10, 2, &Limits::none(), |i, _| {
            if i == 2 {
                Err("boom")
            } else {
                Ok(Some(Outcome::NotInteresting))
            }
        });
        assert_eq!(r, Err("boom"));
    }
}
