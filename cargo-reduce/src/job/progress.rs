//! A reduction's progress as the engine reports it: the figures of its
//! best result so far (size, tests run, time), sent as
//! `reduction-progress` messages and shown by the [`View`]; and the tests
//! each pipeline step ran (for the JSON `steps`). Showing it is the CLI's
//! [`View`]; counting it is here, so that every mode reports alike.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::message::{seconds, Improved, StepTests};
use super::{Events, Message};
use crate::engine::{Counters, Observer, Outcome};
use crate::unit::{concat_into, ByteAtom};

/// How progress is shown (a terminal's progress bar, `-v` status lines, or
/// nothing). Every method has a default that shows nothing.
pub(crate) trait View: Sync {
    /// A pass (`line`, an artifact's name) or a pipeline step begins;
    /// `tests` have run so far.
    fn stage(&self, _name: &str, _tests: u64, _is_step: bool) {}
    /// A test ended: `now` are the reduction's figures (its best result
    /// of `original` bytes at first), with `cache_hits` so far.
    fn tested(&self, _now: &Improved, _original: usize, _cache_hits: u64) {}
    /// The best result changed to `now`, `atoms` atoms of `unit`.
    fn reduced(&self, _now: &Improved, _atoms: usize, _unit: &str) {}
    /// `done` of `total` items (a corpus's inputs) went through `what`.
    fn counted(&self, _what: &str, _done: usize, _total: usize) {}
    /// The reduction is over: remove whatever is on screen.
    fn finish(&self) {}
}

/// Nothing shown.
impl View for () {}

/// The shortest time between two `reduction-progress` messages of one
/// reduction: at most ten a second.
const INTERVAL: Duration = Duration::from_millis(100);

/// Counts a reduction's progress, sends its `reduction-progress`
/// messages, and forwards it to a [`View`].
pub(super) struct Progress<'v> {
    view: &'v dyn View,
    events: &'v dyn Events,
    /// The reduction's tests so far.
    counters: &'v Counters,
    /// The input, as `reduction-started` names it.
    input: PathBuf,
    original: usize,
    /// Whether sizes are counted in tokens too (a syntax-aware reduction).
    syntax: bool,
    started: Instant,
    best: Mutex<Best>,
    unit: Mutex<String>,
    steps: Mutex<Steps>,
}

/// A result's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Size {
    bytes: usize,
    tokens: Option<usize>,
}

/// The best result's size so far, and the messages about it still to send.
struct Best {
    size: Size,
    throttle: Throttle,
}

/// When `reduction-progress` messages go out: one at once, then at most
/// one per [`INTERVAL`]. A change that comes sooner waits (a newer one
/// replaces it) until a test ends after the interval, or the reduction
/// ends: the last change is always sent. No timer: the caller says when
/// it is (`now`).
#[derive(Debug, Default)]
struct Throttle {
    last: Option<Instant>,
    pending: Option<Improved>,
}

impl Throttle {
    /// The figures of a change at `now`: what to send now, if anything.
    fn offer(&mut self, figures: Improved, now: Instant) -> Option<Improved> {
        self.pending = Some(figures);
        self.due(now)
    }

    /// The waiting change, if the interval since the last one sent has
    /// passed at `now`.
    fn due(&mut self, now: Instant) -> Option<Improved> {
        if self
            .last
            .is_some_and(|last| now.saturating_duration_since(last) < INTERVAL)
        {
            return None;
        }
        let figures = self.pending.take()?;
        self.last = Some(now);
        Some(figures)
    }

    /// The waiting change, whatever the time: the reduction ends.
    fn flush(&mut self) -> Option<Improved> {
        self.pending.take()
    }
}

/// Whether a result larger than the best so far is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Grows {
    /// In the course of the reduction: not shown.
    Hidden,
    /// The result at the end: shown.
    Shown,
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
    /// Progress of reducing `input` (`original` its bytes), its tests
    /// counted by `counters`, sent to `events` and shown by `view`; its
    /// time counts from `started`, its sizes in tokens too when `syntax`.
    pub(super) fn new(
        (view, events): (&'v dyn View, &'v dyn Events),
        counters: &'v Counters,
        (input, original): (PathBuf, &[u8]),
        syntax: bool,
        started: Instant,
    ) -> Self {
        let size = Size {
            bytes: original.len(),
            tokens: syntax.then(|| crate::syntax::count_tokens(original)),
        };
        Progress {
            view,
            events,
            counters,
            input,
            original: original.len(),
            syntax,
            started,
            best: Mutex::new(Best {
                size,
                throttle: Throttle::default(),
            }),
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
    pub(super) fn steps(&self) -> Vec<StepTests> {
        let mut steps = self.steps.lock().expect("steps lock");
        steps.close(self.counters.tests());
        steps.current = None;
        let with_time = |(step, elapsed): &(StepTests, Duration)| StepTests {
            elapsed_s: seconds(*elapsed, 6),
            ..step.clone()
        };
        steps.list.iter().map(with_time).collect()
    }

    /// The reduction is over, its result `bytes` (a step that is no
    /// reduction, as `ice`'s formatting, may have changed it unseen): the
    /// last change is sent, and the progress display removed.
    pub(super) fn finish(&self, bytes: &[u8]) {
        let size = self.size(bytes);
        let mut best = self.best.lock().expect("best lock");
        let now = Instant::now();
        self.changed(&mut best, size, (self.counters.tests(), now), Grows::Shown);
        if let Some(figures) = best.throttle.flush() {
            self.events.emit(&Message::ReductionProgress(figures));
        }
        drop(best);
        self.view.finish();
    }

    /// The size of the configuration `atoms`.
    fn size<A: ByteAtom>(&self, atoms: &[A]) -> Size {
        let bytes = atoms.iter().map(|a| a.bytes().len()).sum();
        let tokens = self.syntax.then(|| {
            let mut text = Vec::with_capacity(bytes);
            concat_into(atoms, &mut text);
            crate::syntax::count_tokens(&text)
        });
        Size { bytes, tokens }
    }

    /// The figures of a best result of `size` after `tests`, at `now`.
    fn figures(&self, size: Size, tests: u64, now: Instant) -> Improved {
        Improved {
            input: self.input.clone(),
            bytes: size.bytes,
            tokens: size.tokens,
            tests_run: tests,
            elapsed_s: seconds(now.saturating_duration_since(self.started), 3),
        }
    }

    /// Makes `size` the best result's, sending the change if it is one
    /// and the throttle lets it through (under the lock, so that the
    /// messages go out in order). A larger result in the course of the
    /// reduction is not shown (a syntax pass may commit a text a few bytes
    /// longer than the candidate it showed, the same tokens laid out
    /// otherwise): the best so far never grows; the result at the end is
    /// shown whatever its size. Returns whether the best size changed.
    fn changed(
        &self,
        best: &mut Best,
        size: Size,
        (tests, now): (u64, Instant),
        grows: Grows,
    ) -> bool {
        let larger = size.bytes > best.size.bytes;
        if size == best.size || (larger && grows == Grows::Hidden) {
            return false;
        }
        best.size = size;
        if let Some(figures) = best.throttle.offer(self.figures(size, tests, now), now) {
            self.events.emit(&Message::ReductionProgress(figures));
        }
        true
    }
}

impl<A: ByteAtom> Observer<A> for Progress<'_> {
    fn tested(&self, _outcome: Outcome, counters: &Counters) {
        let now = Instant::now();
        let mut best = self.best.lock().expect("best lock");
        if let Some(figures) = best.throttle.due(now) {
            self.events.emit(&Message::ReductionProgress(figures));
        }
        let figures = self.figures(best.size, counters.tests(), now);
        drop(best);
        self.view
            .tested(&figures, self.original, counters.cache_hits());
    }

    fn step(&self, name: &'static str, counters: &Counters) {
        let tests = counters.tests();
        self.steps.lock().expect("steps lock").open(name, tests);
        self.view.stage(name, tests, true);
    }

    fn reduced(&self, atoms: &[A]) {
        let (size, tests, now) = (self.size(atoms), self.counters.tests(), Instant::now());
        let mut best = self.best.lock().expect("best lock");
        // A same-size change (values lowered) is not a line of its own.
        if !self.changed(&mut best, size, (tests, now), Grows::Hidden) {
            return;
        }
        let figures = self.figures(best.size, tests, now);
        drop(best);
        let unit = self.unit.lock().expect("unit lock").clone();
        self.view.reduced(&figures, atoms.len(), &unit);
    }
}

/// The observer of a reduction of something besides the result (an ICE's
/// auxiliary crate): its tests and steps count in the [`Progress`], its
/// sizes are not the result's.
pub(super) struct TestsOnly<'p>(pub(super) &'p Progress<'p>);

impl<A> Observer<A> for TestsOnly<'_> {
    fn tested(&self, outcome: Outcome, counters: &Counters) {
        Observer::<u8>::tested(self.0, outcome, counters);
    }

    fn step(&self, name: &'static str, counters: &Counters) {
        Observer::<u8>::step(self.0, name, counters);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The messages a reduction sends, kept in order.
    #[derive(Default)]
    struct Sent(Mutex<Vec<Message>>);

    impl Events for Sent {
        fn emit(&self, message: &Message) {
            self.0.lock().unwrap().push(message.clone());
        }

        fn view(&self) -> Box<dyn View + '_> {
            Box::new(())
        }
    }

    impl Sent {
        /// The `reduction-progress` messages' (bytes, tokens, tests).
        fn progress(&self) -> Vec<(usize, Option<usize>, u64)> {
            let sent = self.0.lock().unwrap();
            let figures = sent.iter().filter_map(|m| match m {
                Message::ReductionProgress(f) => Some((f.bytes, f.tokens, f.tests_run)),
                _ => None,
            });
            figures.collect()
        }
    }

    fn figures(bytes: usize) -> Improved {
        Improved {
            input: "in".into(),
            bytes,
            tokens: None,
            tests_run: 0,
            elapsed_s: 0.0,
        }
    }

    #[test]
    fn a_step_begun_after_a_stop_is_not_listed() {
        let (sent, counters) = (Sent::default(), Counters::default());
        let input = ("in".into(), &b"0123456789"[..]);
        let progress = Progress::new((&(), &sent), &counters, input, false, Instant::now());
        let limits = crate::engine::Limits::none();
        let ctx = crate::engine::Context::<u8> {
            jobs: 1,
            limits: &limits,
            cache: None,
            counters: &counters,
            observer: &progress,
        };
        ctx.step("ddmin");
        counters.add_test();
        limits.stop(crate::engine::StopReason::Interrupted);
        ctx.step("canonical");
        let steps = progress.steps();
        let pairs: Vec<(&str, u64)> = steps.iter().map(|s| (s.step.as_str(), s.tests)).collect();
        assert_eq!(pairs, [("ddmin", 1)]);
    }

    #[test]
    fn steps_are_charged_the_tests_run_while_they_were_current() {
        let (sent, counters) = (Sent::default(), Counters::default());
        let input = ("in".into(), &b"0123456789"[..]);
        let progress = Progress::new((&(), &sent), &counters, input, false, Instant::now());
        let observer: &dyn Observer<u8> = &progress;
        observer.step("hdd", &counters);
        for _ in 0..3 {
            counters.add_test();
        }
        observer.step("tokens", &counters);
        counters.add_test();
        observer.step("hdd", &counters);
        counters.add_test();
        let steps = progress.steps();
        let pairs: Vec<(&str, u64)> = steps.iter().map(|s| (s.step.as_str(), s.tests)).collect();
        assert_eq!(pairs, [("hdd", 4), ("tokens", 1)]);
        assert!(steps
            .iter()
            .all(|s| s.elapsed_s >= 0.0 && s.elapsed_s < 10.0));
    }

    /// A pass that commits a text a little longer than the one it showed
    /// does not make the best so far grow; the result at the end is shown
    /// as it is.
    #[test]
    fn the_best_so_far_never_grows_until_the_end() {
        let (sent, counters) = (Sent::default(), Counters::default());
        let input = ("in".into(), &[b'x'; 100][..]);
        let progress = Progress::new((&(), &sent), &counters, input, false, Instant::now());
        let observer: &dyn Observer<u8> = &progress;
        observer.reduced(&[b'x'; 50]);
        std::thread::sleep(INTERVAL);
        observer.reduced(&[b'x'; 56]);
        std::thread::sleep(INTERVAL);
        observer.reduced(&[b'x'; 40]);
        std::thread::sleep(INTERVAL);
        progress.finish(&[b'x'; 45]);
        let bytes: Vec<usize> = sent.progress().iter().map(|p| p.0).collect();
        assert_eq!(bytes, [50, 40, 45]);
    }

    /// The view's `Reduced` lines (`-v`) say the size changed: a value
    /// lowered at the same size is not one (helper-41: `Reduced 6 bytes`
    /// again and again).
    #[test]
    fn the_view_hears_of_new_sizes_only() {
        #[derive(Default)]
        struct Lines(Mutex<Vec<usize>>);
        impl View for Lines {
            fn reduced(&self, now: &Improved, _: usize, _: &str) {
                self.0.lock().unwrap().push(now.bytes);
            }
        }
        let (lines, sent, counters) = (Lines::default(), Sent::default(), Counters::default());
        let input = ("in".into(), &[b'x'; 100][..]);
        let progress = Progress::new((&lines, &sent), &counters, input, false, Instant::now());
        let observer: &dyn Observer<u8> = &progress;
        for atoms in [&[b'x'; 50][..], &[b'0'; 50], &[b'0'; 6], &[b'\0'; 6]] {
            observer.reduced(atoms);
        }
        assert_eq!(*lines.0.lock().unwrap(), [50, 6]);
    }

    /// An ICE's auxiliary crate shrinking is not the result shrinking:
    /// its steps count, its sizes send nothing.
    #[test]
    fn a_side_reduction_s_sizes_are_not_the_result_s() {
        let (sent, counters) = (Sent::default(), Counters::default());
        let input = ("mcve.rs".into(), &b"fn main() {}"[..]);
        let progress = Progress::new((&(), &sent), &counters, input, true, Instant::now());
        let side: &dyn Observer<u8> = &TestsOnly(&progress);
        side.step("hdd", &counters);
        counters.add_test();
        side.tested(Outcome::Interesting, &counters);
        side.reduced(b"a");
        progress.finish(b"fn main() {}");
        assert_eq!(sent.progress(), []);
        let steps = progress.steps();
        assert_eq!((steps[0].step.as_str(), steps[0].tests), ("hdd", 1));
    }

    /// The first change goes out at once; those within the interval wait,
    /// the newest replacing the older, until a test ends after it.
    #[test]
    fn the_throttle_sends_at_most_one_change_per_interval() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut throttle = Throttle::default();
        let bytes = |f: Option<Improved>| f.map(|f| f.bytes);
        assert_eq!(bytes(throttle.offer(figures(90), at(0))), Some(90));
        assert_eq!(bytes(throttle.offer(figures(80), at(30))), None);
        assert_eq!(bytes(throttle.offer(figures(70), at(60))), None);
        assert_eq!(bytes(throttle.due(at(99))), None);
        assert_eq!(bytes(throttle.due(at(100))), Some(70));
        // Nothing waits: a test's end sends nothing.
        assert_eq!(bytes(throttle.due(at(500))), None);
        assert_eq!(bytes(throttle.offer(figures(60), at(500))), Some(60));
        assert_eq!(bytes(throttle.flush()), None);
    }

    /// Whatever the timing, the reduction's last change is sent when it
    /// ends; and changes every millisecond for two seconds make at most
    /// ten messages in any second.
    #[test]
    fn the_last_change_is_always_sent_and_ten_a_second_at_most() {
        let t0 = Instant::now();
        let mut throttle = Throttle::default();
        let mut sent = Vec::new();
        for ms in 0..2000u64 {
            let now = t0 + Duration::from_millis(ms);
            sent.extend(
                throttle
                    .offer(figures(10_000 - ms as usize), now)
                    .map(|_| ms),
            );
            // A test ends between two changes.
            let later = now + Duration::from_micros(500);
            sent.extend(throttle.due(later).map(|_| ms));
        }
        let last = throttle.flush().map(|f| f.bytes);
        assert_eq!(last, Some(10_000 - 1999), "the last change waited");
        assert!(sent.len() >= 19, "{sent:?}");
        for (i, &start) in sent.iter().enumerate() {
            let within = sent[i..].iter().take_while(|&&ms| ms < start + 1000);
            assert!(within.count() <= 10, "{sent:?}");
        }
        assert_eq!(throttle.flush().map(|f| f.bytes), None);
    }

    /// A reduction's progress messages end with its result's size (a
    /// change no observer saw, as `ice`'s formatting, included), only
    /// shrink while the engine reduces, and count tokens in a syntax-aware
    /// reduction; however fast the machine runs them.
    #[test]
    fn the_messages_end_with_the_result_s_size() {
        let text = b"fn main() { let x = 1; let y = 2; }";
        for syntax in [false, true] {
            let (sent, counters) = (Sent::default(), Counters::default());
            let input = ("in.rs".into(), &text[..]);
            let progress = Progress::new((&(), &sent), &counters, input, syntax, Instant::now());
            let observer: &dyn Observer<u8> = &progress;
            // The syntax reducer's first acceptance: the input, no change.
            observer.reduced(text);
            for end in (12..text.len()).rev() {
                counters.add_test();
                observer.reduced(&text[..end]);
                observer.tested(Outcome::Interesting, &counters);
            }
            progress.finish(b"fn main() {}");
            let figures = sent.progress();
            assert!(!figures.is_empty() && figures.len() <= text.len() - 12 + 1);
            assert!(figures
                .windows(2)
                .all(|w| w[0].0 >= w[1].0 && w[0].2 <= w[1].2));
            let tokens = syntax.then_some(6);
            assert_eq!(figures.last(), Some(&(12, tokens, 23)), "{figures:?}");
            assert_eq!(
                figures[0].1,
                syntax.then(|| crate::syntax::count_tokens(&text[..34]))
            );
        }
    }
}
