//! A reduction's progress as the engine reports it: the current size, the
//! tests each pipeline step ran (for the JSON `steps`), and what to show.
//! Showing it is the CLI's [`View`]; counting it is here, so that every
//! mode reports steps alike.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::message::{seconds, StepTests};
use crate::engine::{Counters, Observer, Outcome};
use crate::unit::ByteAtom;

/// How progress is shown (a terminal's progress bar, `-v` status lines, or
/// nothing). Every method has a default that shows nothing.
pub(crate) trait View: Sync {
    /// A pass (`line`, an artifact's name) or a pipeline step begins;
    /// `tests` have run so far.
    fn stage(&self, _name: &str, _tests: u64, _is_step: bool) {}
    /// A test ended; the configuration is `current` of `original` bytes.
    fn tested(&self, _current: usize, _original: usize, _counters: &Counters) {}
    /// The configuration shrank to `bytes` in `atoms` atoms of `unit`.
    fn reduced(&self, _bytes: usize, _atoms: usize, _unit: &str) {}
    /// `done` of `total` items (a corpus's inputs) went through `what`.
    fn counted(&self, _what: &str, _done: usize, _total: usize) {}
    /// The reduction is over: remove whatever is on screen.
    fn finish(&self) {}
}

/// Nothing shown.
impl View for () {}

/// Counts a reduction's progress and forwards it to a [`View`].
pub(super) struct Progress<'v> {
    view: &'v dyn View,
    original: usize,
    current: AtomicUsize,
    unit: Mutex<String>,
    steps: Mutex<Steps>,
}

/// Tests and time per step so far: the steps in the order they first ran,
/// the one running, and the test count and instant where it (last) began.
#[derive(Default)]
struct Steps {
    list: Vec<(StepTests, Duration)>,
    current: Option<usize>,
    since: u64,
    since_time: Option<Instant>,
}

impl Steps {
    /// Charges the tests and time since the current step began to it.
    fn close(&mut self, tests: u64) {
        let now = Instant::now();
        if let (Some(i), Some(began)) = (self.current, self.since_time) {
            self.list[i].0.tests += tests - self.since;
            self.list[i].1 += now.duration_since(began);
        }
        self.since = tests;
        self.since_time = Some(now);
    }

    /// Makes `name` the current step (a new one at the end if unseen).
    fn open(&mut self, name: &'static str, tests: u64) {
        self.close(tests);
        let index = match self.list.iter().position(|(s, _)| s.step == name) {
            Some(i) => i,
            None => {
                let step = StepTests {
                    step: name.to_string(),
                    tests: 0,
                    elapsed_s: 0.0,
                };
                self.list.push((step, Duration::ZERO));
                self.list.len() - 1
            }
        };
        self.current = Some(index);
    }
}

impl<'v> Progress<'v> {
    /// Progress of reducing `original` bytes, shown by `view`.
    pub(super) fn new(view: &'v dyn View, original: usize) -> Self {
        Progress {
            view,
            original,
            current: AtomicUsize::new(original),
            unit: Mutex::new(String::new()),
            steps: Mutex::new(Steps::default()),
        }
    }

    /// A new pass (over `unit` atoms, or of one artifact) begins.
    pub(super) fn start_pass(&self, unit: &str) {
        *self.unit.lock().expect("unit lock") = unit.to_string();
        self.view.stage(unit, 0, false);
    }

    /// Tests per step, in the order the steps first ran, the current step
    /// ending now; call it when the reduction is over.
    pub(super) fn steps(&self, counters: &Counters) -> Vec<StepTests> {
        let mut steps = self.steps.lock().expect("steps lock");
        steps.close(counters.tests());
        steps.current = None;
        let with_time = |(step, elapsed): &(StepTests, Duration)| StepTests {
            elapsed_s: seconds(*elapsed, 6),
            ..step.clone()
        };
        steps.list.iter().map(with_time).collect()
    }

    /// Removes the progress display.
    pub(super) fn finish(&self) {
        self.view.finish();
    }
}

impl<A: ByteAtom> Observer<A> for Progress<'_> {
    fn tested(&self, _outcome: Outcome, counters: &Counters) {
        let current = self.current.load(Ordering::SeqCst);
        self.view.tested(current, self.original, counters);
    }

    fn step(&self, name: &'static str, counters: &Counters) {
        let tests = counters.tests();
        self.steps.lock().expect("steps lock").open(name, tests);
        self.view.stage(name, tests, true);
    }

    fn reduced(&self, atoms: &[A]) {
        let bytes = atoms.iter().map(|a| a.bytes().len()).sum();
        self.current.store(bytes, Ordering::SeqCst);
        let unit = self.unit.lock().expect("unit lock").clone();
        self.view.reduced(bytes, atoms.len(), &unit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_charged_the_tests_run_while_they_were_current() {
        let progress = Progress::new(&(), 10);
        let counters = Counters::default();
        let observer: &dyn Observer<u8> = &progress;
        observer.step("hdd", &counters);
        for _ in 0..3 {
            counters.add_test();
        }
        observer.step("tokens", &counters);
        counters.add_test();
        observer.step("hdd", &counters);
        counters.add_test();
        let steps = progress.steps(&counters);
        let pairs: Vec<(&str, u64)> = steps.iter().map(|s| (s.step.as_str(), s.tests)).collect();
        assert_eq!(pairs, [("hdd", 4), ("tokens", 1)]);
        assert!(steps
            .iter()
            .all(|s| s.elapsed_s >= 0.0 && s.elapsed_s < 10.0));
    }
}
