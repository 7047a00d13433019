//! One round seen from the parent: the event loop that collects failures,
//! lowers the shared `best` index when an outcome is accepted, watches every
//! busy worker (timeout, RSS limit, work that can no longer matter), blames a
//! dead worker's death on the input it was running, respawns it to finish
//! the round, and finally re-runs any input a death left unrun.
//!
//! Passing inputs cost the parent nothing during the round: workers only
//! write their slots, which are read once at the end.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::crew::Crew;
use super::death::{classify_death, reported_failure, KillReason, NoStack, Postmortem};
use super::error::PoolError;
use super::failure::{Failure, FailureKind};
use super::protocol::{Event, NOTE_SIGNAL, SLOT_FAILED, SLOT_PASSED, SLOT_PENDING, SLOT_REJECTED};
use super::worker_process::wait_readable;
use super::Outcome;

/// How long a worker may go on with an input that can no longer be the
/// answer (it lies above an accepted one) before it is killed.
const STALE_GRACE: Duration = Duration::from_millis(20);

/// Deaths without a test running, per round, before the pool gives up.
const MAX_IDLE_DEATHS: usize = 3;

/// How many times the timeout a test whose memory still grows may run: it
/// is filling memory, and given the time it ends or runs out of memory,
/// which does not depend on the machine's speed as a timeout would
/// (libFuzzer's own timeout is 20 minutes, and its RSS check comes every
/// second).
const GROWING_GRACE: u32 = 10;

/// How often the parent looks at the busy workers under `timeout`.
fn tick(timeout: Duration) -> Duration {
    (timeout / 8).clamp(Duration::from_millis(2), Duration::from_millis(50))
}

/// What the parent last saw a busy worker doing.
#[derive(Clone, Copy, Debug)]
struct Watch {
    current: u64,
    since: Instant,
    /// The most resident memory a look saw the test hold, in MB (none
    /// before the first look).
    peak_mb: Option<u64>,
    /// When a later look last saw it above that peak (a loop that frees
    /// what it allocates does not grow).
    grew: Option<Instant>,
}

impl Watch {
    /// A worker starting input `current` (0: none) at `now`.
    fn new(current: u64, now: Instant) -> Self {
        Watch {
            current,
            since: now,
            peak_mb: None,
            grew: None,
        }
    }

    /// Past `timeout`, and not a test still filling memory (a new peak
    /// within the last two looks `tick` apart) within its grace, when it
    /// has one (`grace`).
    fn overdue(&self, now: Instant, timeout: Duration, tick: Duration, grace: bool) -> bool {
        let ran = now.duration_since(self.since);
        let growing = self
            .grew
            .is_some_and(|at| now.duration_since(at) <= tick * 2);
        let graced = grace && growing && ran < timeout * GROWING_GRACE;
        self.current != 0 && ran >= timeout && !graced
    }

    /// Notes the test's resident memory at `now`.
    fn saw(&mut self, rss_mb: u64, now: Instant) {
        if self.peak_mb.is_some_and(|peak| rss_mb > peak) {
            self.grew = Some(now);
        }
        self.peak_mb = self.peak_mb.max(Some(rss_mb));
    }
}

/// Runs the round of `count` inputs loaded into `crew`; the outcome of
/// every input that was run (all those below the lowest accepted one, at
/// least).
pub(crate) fn run_round(
    crew: &mut Crew,
    count: usize,
    accept: &(dyn Fn(&Outcome) -> bool + Sync),
) -> Result<Vec<Option<Outcome>>, PoolError> {
    if crew.options.stop.is_set() {
        return Err(PoolError::Interrupted);
    }
    let started = Instant::now();
    let slots = crew.begin_round(count)?;
    let workers = slots.len();
    let mut round = Round::new(crew, count, accept);
    for slot in slots {
        round.start(slot, None)?;
    }
    let outcomes = round.run()?;
    let ran = outcomes.iter().filter(|o| o.is_some()).count();
    crew.observe_round(ran, workers, started.elapsed());
    Ok(outcomes)
}

/// The state of the round in progress.
struct Round<'a> {
    crew: &'a mut Crew,
    accept: &'a (dyn Fn(&Outcome) -> bool + Sync),
    outcomes: Vec<Option<Outcome>>,
    busy: Vec<bool>,
    watch: Vec<Watch>,
    best_at: Option<Instant>,
    idle_deaths: usize,
}

impl<'a> Round<'a> {
    fn new(
        crew: &'a mut Crew,
        count: usize,
        accept: &'a (dyn Fn(&Outcome) -> bool + Sync),
    ) -> Self {
        let jobs = crew.jobs();
        let watch = Watch::new(0, Instant::now());
        Round {
            crew,
            accept,
            outcomes: vec![None; count],
            busy: vec![false; jobs],
            watch: vec![watch; jobs],
            best_at: None,
            idle_deaths: 0,
        }
    }

    /// Sends the round to `slot` (respawning its worker if needed, or if the
    /// old one turns out to be dead).
    fn start(&mut self, slot: usize, resume: Option<(u64, u64)>) -> Result<(), PoolError> {
        if let Err(err) = self.crew.send_round(slot, resume) {
            let PoolError::Io(_) = err else {
                return Err(err);
            };
            // Died while idle: its pipe is closed. Replace it and try once more.
            if let Some(mut dead) = self.crew.workers[slot].take() {
                dead.reap_exited();
            }
            self.crew.send_round(slot, resume)?;
        }
        self.busy[slot] = true;
        self.watch[slot] = Watch::new(0, Instant::now());
        Ok(())
    }

    /// Runs the event loop until every needed input has an outcome.
    fn run(mut self) -> Result<Vec<Option<Outcome>>, PoolError> {
        let tick = tick(self.crew.options.timeout);
        let mut next_watch = Instant::now() + tick;
        loop {
            let busy: Vec<usize> = (0..self.busy.len()).filter(|&s| self.busy[s]).collect();
            if busy.is_empty() {
                if self.mop_up()? {
                    continue;
                }
                return Ok(self.finish());
            }
            if self.crew.options.stop.is_set() {
                // Its test process, then the worker: none goes on with
                // the round, and the next one starts afresh.
                for slot in busy {
                    self.crew.end_test(slot);
                    self.crew.workers[slot] = None;
                }
                return Err(PoolError::Interrupted);
            }
            let wait = next_watch.saturating_duration_since(Instant::now());
            for slot in self.wait_busy(&busy, wait)? {
                self.drain(slot)?;
            }
            if Instant::now() >= next_watch {
                self.watchdog()?;
                next_watch = Instant::now() + tick;
            }
        }
    }

    /// Waits up to `wait` for events of the `busy` slots' workers; the
    /// slots that have some (a busy slot without a worker is skipped).
    fn wait_busy(&self, busy: &[usize], wait: Duration) -> Result<Vec<usize>, PoolError> {
        let (slots, fds): (Vec<usize>, Vec<_>) = busy
            .iter()
            .filter_map(|&s| Some((s, self.crew.workers[s].as_ref()?.event_fd())))
            .unzip();
        let ready = wait_readable(&fds, wait.as_millis() as i32)?;
        Ok(ready.into_iter().map(|i| slots[i]).collect())
    }

    /// Inputs below this index are needed: all of them, or those below the
    /// lowest accepted one.
    fn needed(&self) -> usize {
        self.crew
            .shm
            .best()
            .map_or(self.outcomes.len(), |b| b.min(self.outcomes.len()))
    }

    fn record(&mut self, index: usize, outcome: Outcome) {
        if (self.accept)(&outcome) {
            self.crew.shm.lower_best(index);
            self.best_at = Some(Instant::now());
        }
        self.outcomes[index] = Some(outcome);
    }

    /// Reads `slot`'s events; handles the death of its test process, or of
    /// the whole worker if it closed the pipe.
    fn drain(&mut self, slot: usize) -> Result<(), PoolError> {
        let mut events = Vec::new();
        let worker = self.crew.workers[slot]
            .as_mut()
            .expect("busy worker exists");
        let eof = worker.read_events(&mut events)?;
        let death = worker.take_death();
        self.handle(slot, events);
        if let Some(death) = death {
            self.blame(slot, death.kill_reason, None, death.status, String::new)?;
        }
        if eof && self.crew.workers[slot].is_some() {
            self.on_death(slot, None)?;
        }
        Ok(())
    }

    /// Records the failures and idleness `slot`'s worker reported. A
    /// failure's text is the worker's note, which it keeps until told to
    /// go on.
    fn handle(&mut self, slot: usize, events: Vec<Event>) {
        for event in events {
            match event {
                Event::Failed {
                    generation,
                    index,
                    kind,
                } => {
                    let index = index as usize;
                    if generation == self.crew.generation && index < self.outcomes.len() {
                        self.record_reported(slot, index, kind);
                    }
                    if let Some(worker) = self.crew.workers[slot].as_mut() {
                        worker.resume();
                    }
                }
                Event::Idle { generation } if generation == self.crew.generation => {
                    self.busy[slot] = false;
                }
                _ => {} // Left over from an earlier round.
            }
        }
    }

    /// Records the failure of `index` that `slot`'s worker reported (of
    /// `kind`), or marked in its slot before it died: the note says what.
    fn record_reported(&mut self, slot: usize, index: usize, kind: u32) {
        let (arg, text) = match self.crew.shm.note(slot) {
            Some(note) => (note.arg, note.text),
            None => (0, Vec::new()),
        };
        let symbols = Some(&mut self.crew.symbols);
        let failure = reported_failure(kind, arg, &text, symbols);
        self.record(index, Outcome::Failed(failure));
    }

    /// Kills busy workers whose test ran too long, whose memory grew too
    /// large, or whose test can no longer change the answer.
    fn watchdog(&mut self) -> Result<(), PoolError> {
        let now = Instant::now();
        let options = self.crew.options.clone();
        if self.best_at.is_none() && self.crew.shm.best().is_some() {
            self.best_at = Some(now); // Lowered by the workers (accepted passes).
        }
        for slot in 0..self.busy.len() {
            if !self.busy[slot] {
                continue;
            }
            let current = self.crew.shm.area(slot).current.load(Ordering::Relaxed);
            let watch = &mut self.watch[slot];
            if current != watch.current {
                *watch = Watch::new(current, now);
            }
            let running = current != 0;
            let rss_mb = self.crew.workers[slot]
                .as_ref()
                .and_then(|w| w.rss_mb())
                .unwrap_or(0);
            watch.saw(rss_mb, now);
            // Only a limit can make a test that fills memory fail by it:
            // without one, growing is no reason to wait.
            let grace = options.memory_grace && options.rss_limit_mb > 0;
            let overdue = watch.overdue(now, options.timeout, tick(options.timeout), grace);
            let stale = running
                && self
                    .crew
                    .shm
                    .best()
                    .is_some_and(|best| current - 1 > best as u64)
                && self
                    .best_at
                    .is_some_and(|at| now.duration_since(at) >= STALE_GRACE);
            // Memory first: a test over the limit is out of memory even if
            // it is overdue too (on a loaded machine the watchdog's tick can
            // come late enough to see both), as libFuzzer's RSS thread
            // would have said.
            let reason = if options.rss_limit_mb > 0 && rss_mb > options.rss_limit_mb {
                Some(KillReason::Rss {
                    rss_mb,
                    limit_mb: options.rss_limit_mb,
                })
            } else if overdue {
                Some(KillReason::Timeout(options.timeout))
            } else if stale {
                Some(KillReason::Stale)
            } else {
                None
            };
            if let Some(reason) = reason {
                self.on_death(slot, Some(reason))?;
            }
        }
        Ok(())
    }

    /// Handles the death of `slot`'s worker (killed for `reason`, or on its
    /// own): blames the input it was running, then lets a new worker finish
    /// its range if that range or the round still needs work.
    fn on_death(&mut self, slot: usize, reason: Option<KillReason>) -> Result<(), PoolError> {
        let no_stack = match reason {
            Some(KillReason::Timeout(_) | KillReason::Rss { .. }) => {
                let timed_out = matches!(reason, Some(KillReason::Timeout(_)));
                self.crew.take_stack(slot, timed_out)
            }
            _ => None,
        };
        if let Some(reason) = reason {
            // Under a fork server only the test process is killed.
            let mut events = Vec::new();
            let worker = self.crew.workers[slot].as_mut().expect("busy worker");
            let death = worker.kill_test(reason, &mut events);
            self.handle(slot, events);
            if let Some(death) = death {
                return self.blame(slot, death.kill_reason, no_stack, death.status, String::new);
            }
        }
        let mut worker = self.crew.workers[slot].take().expect("dying worker exists");
        let status = match reason {
            Some(reason) => worker.reap(reason),
            None => worker.reap_exited(),
        };
        let kill_reason = worker.kill_reason;
        let stderr = move || worker.stderr_since_last_death();
        self.blame(slot, kill_reason, no_stack, status, stderr)
    }

    /// Blames the death of `slot`'s test process (killed for `kill_reason`,
    /// its stack not taken for `no_stack`, or on its own) on the input it
    /// was running, then lets the slot's next process finish its range if
    /// that range or the round still needs work.
    fn blame(
        &mut self,
        slot: usize,
        kill_reason: Option<KillReason>,
        no_stack: Option<NoStack>,
        status: std::process::ExitStatus,
        mut stderr: impl FnMut() -> String,
    ) -> Result<(), PoolError> {
        self.busy[slot] = false;
        let area = self.crew.shm.area(slot);
        let current = area.current.load(Ordering::Acquire) as usize;
        let range_end = area.range_end.load(Ordering::Acquire);
        let mut resume = None;
        if current == 0 || current > self.outcomes.len() {
            self.idle_deaths += 1;
            if self.idle_deaths > MAX_IDLE_DEATHS {
                let stderr = stderr();
                return Err(PoolError::died(status, stderr));
            }
        } else {
            self.judge(
                slot,
                current - 1,
                kill_reason,
                no_stack,
                status,
                &mut stderr,
            );
            resume = Some((current as u64, range_end));
        }
        self.crew.shm.reset_area(slot);
        let needed = self.needed();
        let range_needed = resume.is_some_and(|(from, to)| from < to && (from as usize) < needed);
        if range_needed || self.crew.shm.next_unclaimed() < needed {
            self.start(slot, resume)?;
        }
        Ok(())
    }

    /// Records how the test at `index` ended when `slot`'s process died
    /// running it, unless it had ended before (a reduction's failing tests
    /// end with their report) or a timeout's watchdog saw another test.
    fn judge(
        &mut self,
        slot: usize,
        index: usize,
        kill_reason: Option<KillReason>,
        no_stack: Option<NoStack>,
        status: std::process::ExitStatus,
        stderr: &mut impl FnMut() -> String,
    ) {
        let note = self.crew.shm.note(slot);
        // Marked failed, killed before its event was out.
        if self.outcomes[index].is_none() && self.crew.shm.slot(index) == SLOT_FAILED {
            if let Some(note) = &note {
                self.record_reported(slot, index, note.kind);
            }
        }
        let unresolved =
            self.outcomes[index].is_none() && self.crew.shm.slot(index) == SLOT_PENDING;
        // A timeout is about the test the watchdog saw; if that one
        // finished just before the kill, the next one is rerun instead.
        let timed_out = matches!(kill_reason, Some(KillReason::Timeout(_)));
        let moved_on = timed_out && self.watch[slot].current != index as u64 + 1;
        let blamed = unresolved && !moved_on;
        // What the test printed: a panic the recording hook missed
        // (the target replaced it during the test) is read from there.
        // Only a death without a note that explains it (a signal's note
        // only places it) needs it; the others (every
        // failing test of a reduction) just move the mark past it.
        let explained = note.as_ref().is_some_and(|n| n.kind != NOTE_SIGNAL);
        let printed = match (blamed && !explained, self.crew.workers[slot].as_mut()) {
            (true, Some(worker)) => worker.stderr_since_last_death(),
            (true, None) => stderr(),
            (false, Some(worker)) => {
                worker.skip_stderr();
                String::new()
            }
            (false, None) => String::new(),
        };
        if blamed {
            let symbols = &mut self.crew.symbols;
            let postmortem = Postmortem {
                reason: kill_reason,
                no_stack,
                note: note.as_ref(),
                status,
                printed: &printed,
            };
            let exits = self.crew.options.exits;
            match classify_death(&postmortem, symbols) {
                // An exit the engine does not count as a crash ends the
                // test as a pass.
                Some(Failure {
                    kind: FailureKind::Exit(status),
                    ..
                }) if !exits.fails(status) => self.record(index, Outcome::Passed),
                Some(failure) => self.record(index, Outcome::Failed(failure)),
                None => {}
            }
        }
    }

    /// Hands needed inputs that no worker ran (a death cut their range short
    /// and no replacement was started) to idle workers; false if none.
    fn mop_up(&mut self) -> Result<bool, PoolError> {
        let needed = self.needed();
        let mut runs: Vec<(u64, u64)> = Vec::new();
        for index in 0..needed {
            if self.outcomes[index].is_some() || self.crew.shm.slot(index) != SLOT_PENDING {
                continue;
            }
            match runs.last_mut() {
                Some((_, end)) if *end == index as u64 => *end += 1,
                _ => runs.push((index as u64, index as u64 + 1)),
            }
        }
        if runs.is_empty() {
            return Ok(false);
        }
        for (slot, run) in runs.into_iter().take(self.busy.len()).enumerate() {
            self.start(slot, Some(run))?;
        }
        Ok(true)
    }

    /// Every outcome observed: failures as recorded, passes from the slots.
    fn finish(mut self) -> Vec<Option<Outcome>> {
        for (index, outcome) in self.outcomes.iter_mut().enumerate() {
            if outcome.is_none() {
                let slot = self.crew.shm.slot(index);
                if slot == SLOT_PASSED || slot == SLOT_REJECTED {
                    *outcome = Some(Outcome::Passed);
                }
            }
        }
        self.outcomes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A test is overdue at the timeout unless a look after the first saw
    /// its memory reach a new peak within the last two ticks; then not
    /// before ten times the timeout. What the first look sees is no growth
    /// (a test whose process already held memory is not filling it).
    #[test]
    fn only_a_test_whose_memory_grows_runs_past_the_timeout() {
        let (timeout, tick) = (Duration::from_millis(100), Duration::from_millis(10));
        let start = Instant::now();
        let at = |ms: u64| start + Duration::from_millis(ms);
        let mut held = Watch::new(1, start);
        held.saw(900, at(10));
        held.saw(900, at(90));
        assert!(held.overdue(at(100), timeout, tick, true));
        let mut growing = Watch::new(1, start);
        growing.saw(100, at(10));
        growing.saw(400, at(95));
        assert!(!growing.overdue(at(100), timeout, tick, true));
        assert!(growing.overdue(at(100), timeout, tick, false), "no grace");
        assert!(
            growing.overdue(at(116), timeout, tick, true),
            "two ticks without a new peak"
        );
        growing.saw(300, at(120));
        assert!(
            growing.overdue(at(121), timeout, tick, true),
            "below the peak"
        );
        growing.saw(2000, at(990));
        assert!(!growing.overdue(at(995), timeout, tick, true));
        assert!(
            growing.overdue(at(1000), timeout, tick, true),
            "ten times the timeout"
        );
        assert!(
            !Watch::new(0, start).overdue(at(5000), timeout, tick, true),
            "no test"
        );
    }
}
