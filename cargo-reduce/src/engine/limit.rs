//! Budgets: a test count, a deadline, and an interrupt flag (Ctrl-C).
//!
//! Limits are checked before a test starts (a refused test is never run)
//! and by running tests through [`super::Cancel`], so a long test is
//! abandoned at the deadline or on Ctrl-C. The first reason to stop is
//! remembered; a reduction that stopped is reported as not 1-minimal.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Why a reduction stopped before it was done.
///
/// ```
/// use cargo_reduce::{Candidate, Reducer, StopReason};
///
/// let reducer = Reducer::new().max_tests(1);
/// let has_bang = |c: &Candidate<'_, u8>| c.iter().any(|&b| b == b'!');
/// let reduced = reducer.ddmin(b"ab!cd".to_vec(), &has_bang).unwrap();
/// assert_eq!(reduced.stopped, Some(StopReason::MaxTests));
/// assert_eq!((reducer.stop_reason(), StopReason::MaxTests.name()), (reduced.stopped, "max-tests"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum StopReason {
    /// The test budget (`--max-tests`) was used up.
    MaxTests,
    /// The time budget (`--max-time`) ran out.
    MaxTime,
    /// The user interrupted (Ctrl-C).
    Interrupted,
    /// Not a stop: one pass of recursive ddmin ([`super::Algorithm::Ddrmin`]
    /// without `dd_star`) ran to its end, and its result is 1-minimal only
    /// when the oracle is monotone, which nothing checks.
    OnePass,
}

impl StopReason {
    /// A short kebab-case name, for messages and JSON.
    pub fn name(self) -> &'static str {
        match self {
            StopReason::MaxTests => "max-tests",
            StopReason::MaxTime => "max-time",
            StopReason::Interrupted => "interrupted",
            StopReason::OnePass => "one-pass",
        }
    }

    fn code(self) -> u8 {
        self as u8 + 1
    }

    fn from_code(code: u8) -> Option<Self> {
        [
            StopReason::MaxTests,
            StopReason::MaxTime,
            StopReason::Interrupted,
            StopReason::OnePass,
        ]
        .into_iter()
        .find(|r| r.code() == code)
    }
}

/// The limits of one reduction.
#[derive(Debug, Default)]
pub struct Limits {
    max_tests: Option<u64>,
    deadline: Option<Instant>,
    interrupt: Option<Arc<AtomicBool>>,
    stopped: AtomicU8,
}

impl Limits {
    /// No limit at all.
    pub fn none() -> Self {
        Self::default()
    }

    /// At most `n` tests in all (counted by [`super::Counters::tests`]).
    pub fn with_max_tests(mut self, n: u64) -> Self {
        self.max_tests = Some(n);
        self
    }

    /// Stop once `d` has passed from now.
    pub fn with_max_time(mut self, d: Duration) -> Self {
        self.deadline = Some(Instant::now() + d);
        self
    }

    /// Stop once `flag` is set (by a signal handler, say).
    pub fn with_interrupt(mut self, flag: Arc<AtomicBool>) -> Self {
        self.interrupt = Some(flag);
        self
    }

    /// Why the reduction stopped, once it has.
    pub fn stop_reason(&self) -> Option<StopReason> {
        StopReason::from_code(self.stopped.load(Ordering::SeqCst))
    }

    /// Tests the budget still allows, `tests` having run.
    pub fn remaining_tests(&self, tests: u64) -> u64 {
        self.max_tests
            .map_or(u64::MAX, |max| max.saturating_sub(tests))
    }

    /// Records that the run stops for `reason` (the first reason wins).
    pub fn stop(&self, reason: StopReason) {
        let _ = self
            .stopped
            .compare_exchange(0, reason.code(), Ordering::SeqCst, Ordering::SeqCst);
    }

    /// True once the interrupt flag is set or the deadline has passed
    /// (recording why); cheap enough to poll while a test runs.
    pub fn should_stop(&self) -> bool {
        if self
            .interrupt
            .as_ref()
            .is_some_and(|f| f.load(Ordering::SeqCst))
        {
            self.stop(StopReason::Interrupted);
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.stop(StopReason::MaxTime);
        }
        self.stop_reason().is_some()
    }

    /// Counts one more test in `tests` if the budget allows it.
    pub(crate) fn try_charge(&self, tests: &AtomicU64) -> bool {
        if self.should_stop() {
            return false;
        }
        let before = tests.fetch_add(1, Ordering::SeqCst);
        if self.max_tests.is_some_and(|max| before >= max) {
            tests.fetch_sub(1, Ordering::SeqCst);
            self.stop(StopReason::MaxTests);
            return false;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_budget_refuses_past_the_maximum() {
        let limits = Limits::none().with_max_tests(2);
        let tests = AtomicU64::new(0);
        assert!(limits.try_charge(&tests));
        assert!(limits.try_charge(&tests));
        assert!(!limits.try_charge(&tests));
        assert_eq!(tests.load(Ordering::SeqCst), 2);
        assert_eq!(limits.stop_reason(), Some(StopReason::MaxTests));
    }

    #[test]
    fn interrupt_is_the_first_reason_recorded() {
        let flag = Arc::new(AtomicBool::new(false));
        let limits = Limits::none()
            .with_interrupt(flag.clone())
            .with_max_time(Duration::ZERO);
        flag.store(true, Ordering::SeqCst);
        assert!(limits.should_stop());
        assert_eq!(limits.stop_reason(), Some(StopReason::Interrupted));
    }

    #[test]
    fn deadline_stops() {
        let limits = Limits::none().with_max_time(Duration::ZERO);
        assert!(!limits.try_charge(&AtomicU64::new(0)));
        assert_eq!(limits.stop_reason(), Some(StopReason::MaxTime));
    }
}
