//! A crew: the shared memory plus one worker per slot, started together and
//! respawned one by one; rounds are loaded into it and run by `round`
//! (which uses the crew; the crew knows nothing of rounds).

use std::ffi::OsString;
use std::path::Path;
use std::time::{Duration, Instant};

use super::affinity;
use super::call_path::Symbolizer;
use super::cpu_time::{self, wait_for_cpu};
use super::death::{KillReason, NoStack};
use super::error::PoolError;
use super::place::common_stack;
use super::protocol::{
    panic_text, split_panic_text, Request, FLAG_FIXED_RANDOM, FLAG_RESTART_AFTER_FAILURE,
    NOTE_STACK, STACK_SIGNAL,
};
use super::shm::{Batch, RoundParams, SharedMemory};
use super::worker_process::{Launch, Worker};
use super::PoolOptions;

/// How long a worker may take to start and run the target's init code.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);

/// A round expected to take less than this on one worker runs on the
/// first worker alone, beside the parent: waking a worker on another core
/// costs about as much (see `affinity`).
const SMALL_ROUND: Duration = Duration::from_micros(150);

/// How long a test process gets to note its stack before it is killed:
/// it answers in microseconds of its own time, unless it is stuck where
/// the signal waits (blocked, or handled by the target itself). One that
/// has not had a CPU since it was asked (a loaded machine) gets longer
/// (see [`cpu_time::Answer`]).
const STACK_GRACE: Duration = Duration::from_millis(500);

/// Stacks taken of a test that ran out of time (see [`Crew::take_stack`]):
/// a loop that spends a fraction `f` of its time in itself rather than in
/// the functions it calls is placed by a callee with probability
/// `(1 - f)^16` (1 in 65,536 at `f` = 1/2).
const TIMEOUT_SAMPLES: usize = 16;

/// The longest the samples of one timeout are spread over (a tenth of the
/// timeout, up to this): a long timeout of the user's gets no longer.
const MAX_SAMPLING: Duration = Duration::from_secs(1);

/// The samples of a timeout are spaced by the test's CPU time (see
/// `cpu_time`); a gap may take up to this many times its CPU time on the
/// clock (a loaded machine) before the sample is taken anyway ...
const SAMPLING_SLACK: u32 = 20;

/// ... and at least this long.
const MIN_GAP_CAP: Duration = Duration::from_millis(200);

/// Claim granularity: enough chunks per worker to balance the load, few
/// enough that workers rarely touch the shared counter.
fn chunk_size(count: usize, jobs: usize) -> u64 {
    (count / (jobs.max(1) * 64)).clamp(1, 256) as u64
}

/// Workers and their shared memory.
#[derive(Debug)]
pub(crate) struct Crew {
    pub(super) launch: Launch,
    pub(super) shm: SharedMemory,
    pub(super) workers: Vec<Option<Worker>>,
    pub(super) options: PoolOptions,
    pub(super) generation: u64,
    /// Whether the target takes an `Arbitrary` type.
    pub typed: bool,
    /// Whether there is more than one core to choose from.
    several_cores: bool,
    /// The core the first worker was last moved to (see `affinity`).
    first_worker_core: Option<usize>,
    /// Keeps the parent's thread on a core while the crew lives.
    keeper: affinity::Keeper,
    /// A running estimate of one test's time, from the rounds so far.
    pub(super) test_time: Duration,
    /// Names the call paths of the target's panics.
    pub(super) symbols: Symbolizer,
}

impl Crew {
    /// Starts `options.jobs` workers of `binary` with extra environment `env`.
    pub(super) fn start(
        binary: &Path,
        options: &PoolOptions,
        env: Vec<(OsString, OsString)>,
    ) -> Result<Crew, PoolError> {
        let jobs = options.jobs.max(1);
        let shm = SharedMemory::create(jobs)?;
        let flag = |on, flag| if on { flag } else { 0 };
        let flags = flag(options.restart_after_failure, FLAG_RESTART_AFTER_FAILURE)
            | flag(options.reproducible, FLAG_FIXED_RANDOM);
        let mut env = env;
        if options.detect_leaks {
            env.push(("CARGO_REDUCE_DETECT_LEAKS".into(), "1".into()));
        }
        let launch = Launch {
            binary: binary.to_path_buf(),
            shm_fd: shm.fd(),
            flags,
            env,
            asan_options: crate::fuzz::sanitizer::asan_options(options.detect_leaks),
            fixed_layout: options.reproducible,
        };
        let mut crew = Crew {
            launch,
            shm,
            workers: (0..jobs).map(|_| None).collect(),
            options: options.clone(),
            generation: 0,
            typed: false,
            several_cores: affinity::several_cores(),
            first_worker_core: None,
            keeper: affinity::Keeper::new(),
            test_time: Duration::ZERO,
            symbols: Symbolizer::new(binary),
        };
        crew.ensure_all()?;
        crew.typed = crew.workers.iter().flatten().any(|w| w.typed);
        Ok(crew)
    }

    /// Asks `slot`'s test process, about to be killed for its time or
    /// memory, where it is (`STACK_SIGNAL`; the harness notes its stack),
    /// and leaves the note for the death to be placed by (see `place`).
    /// Nothing if the test noted a failure of its own already. A test out
    /// of memory is placed by one stack (the allocation that crossed the
    /// line is still on it). An endless test gets [`TIMEOUT_SAMPLES`],
    /// spaced over a tenth of the timeout (at most [`MAX_SAMPLING`]) of its
    /// own CPU time, so that a loaded machine does not bunch them, and
    /// the note keeps their common part: a loop that calls other functions
    /// is in one of them or in itself at any one moment, and in itself at
    /// every one. Why no stack was taken, if none was.
    pub(super) fn take_stack(&mut self, slot: usize, timed_out: bool) -> Option<NoStack> {
        let pid = self.workers[slot].as_ref()?.pids().1;
        if self.shm.note(slot).is_some() || pid == 0 {
            return None;
        }
        let (samples, spacing) = match timed_out {
            true => (
                TIMEOUT_SAMPLES,
                (self.options.timeout / 10).min(MAX_SAMPLING) / (TIMEOUT_SAMPLES as u32 - 1),
            ),
            false => (1, Duration::ZERO),
        };
        let mut stacks = Vec::new();
        for i in 0..samples {
            if i > 0 {
                let ran = wait_for_cpu(pid, spacing, (spacing * SAMPLING_SLACK).max(MIN_GAP_CAP));
                if ran < spacing / 10 {
                    break; // Blocked, not running: every later sample is this one.
                }
                if !self.shm.forget_note(slot, NOTE_STACK) {
                    return None; // The test noted a failure of its own.
                }
            }
            match self.sample_stack(slot, pid) {
                Ok(frames) => stacks.push(frames),
                Err(why) if stacks.is_empty() => return Some(why),
                Err(_) => break,
            }
        }
        if stacks.len() > 1 {
            let common = common_stack(&stacks, &mut self.symbols);
            self.shm
                .replace_note(slot, NOTE_STACK, &panic_text("", "", &common));
        } else if let [only] = stacks.as_slice() {
            // A later sample did not come; the first stands.
            self.shm
                .replace_note(slot, NOTE_STACK, &panic_text("", "", only));
        }
        None
    }

    /// Signals the test process `pid` of `slot` for its stack and waits
    /// for the note, for [`STACK_GRACE`] or for as long as the process has
    /// not had a CPU to answer on ([`cpu_time::Answer`]); its frames, or
    /// why there are none.
    fn sample_stack(&self, slot: usize, pid: u32) -> Result<Vec<u64>, NoStack> {
        // SAFETY: a plain kill(2) of our worker's test process (not reaped
        // yet: the parent kills it next). rustix sends no real-time signal.
        if unsafe { super::sys::kill(pid as super::sys::pid_t, STACK_SIGNAL) } != 0 {
            let errno = std::io::Error::last_os_error().raw_os_error().unwrap_or(0);
            return Err(NoStack::NotSent(errno));
        }
        let answer = cpu_time::Answer::asked(pid);
        loop {
            match self.shm.note(slot) {
                Some(note) if note.kind == NOTE_STACK => {
                    return Ok(split_panic_text(&note.text).frames)
                }
                Some(note) => return Err(NoStack::OtherNote(note.kind)),
                None => match answer.given_up(STACK_GRACE) {
                    Some(silence) => return Err(NoStack::NoAnswer(silence)),
                    None => std::thread::sleep(Duration::from_micros(100)),
                },
            }
        }
    }

    /// Ends each fork server's test process that has run tests, so the
    /// next round starts in processes fresh from the init code, as a
    /// `cargo fuzz run` of one input does (costs a fork per worker). A
    /// worker without a fork server is left as it is: a new one would cost
    /// a process start and the init code.
    pub(super) fn fresh_test_processes(&mut self) {
        for slot in 0..self.jobs() {
            let Some(worker) = self.workers[slot].as_mut() else {
                continue;
            };
            if worker.tested_child() {
                self.end_test(slot);
            }
        }
    }

    /// Kills `slot`'s test process (its worker, without a fork server),
    /// so its next round starts afresh.
    pub(super) fn end_test(&mut self, slot: usize) {
        let Some(worker) = self.workers[slot].as_mut() else {
            return;
        };
        let mut events = Vec::new(); // Left over from earlier rounds.
        if worker
            .kill_test(KillReason::Shutdown, &mut events)
            .is_none()
        {
            self.workers[slot] = None; // Started anew with the next round.
        }
        self.shm.reset_area(slot);
    }

    /// Number of worker slots.
    pub(super) fn jobs(&self) -> usize {
        self.workers.len()
    }

    /// Starts every missing worker; their init code runs in parallel.
    fn ensure_all(&mut self) -> Result<(), PoolError> {
        let missing: Vec<usize> = (0..self.jobs())
            .filter(|&s| self.workers[s].is_none())
            .collect();
        for &slot in &missing {
            self.shm.reset_area(slot);
            self.workers[slot] = Some(self.spawn(slot)?);
        }
        let deadline = Instant::now() + STARTUP_TIMEOUT;
        for slot in missing {
            self.handshake(slot, deadline)?;
        }
        Ok(())
    }

    /// Starts the worker of `slot` (which must be missing).
    pub(super) fn respawn(&mut self, slot: usize) -> Result<&mut Worker, PoolError> {
        self.shm.reset_area(slot);
        self.workers[slot] = Some(self.spawn(slot)?);
        self.handshake(slot, Instant::now() + STARTUP_TIMEOUT)?;
        Ok(self.workers[slot].as_mut().expect("just started"))
    }

    /// Starts the worker of `slot`.
    fn spawn(&mut self, slot: usize) -> Result<Worker, PoolError> {
        if slot == 0 {
            self.first_worker_core = None;
        }
        Worker::spawn(&self.launch, slot)
    }

    /// Keeps the parent's thread on its core and moves the first worker
    /// (its fork server and test process) there, unless it is there
    /// already.
    fn follow_parent(&mut self) {
        if !self.several_cores {
            return;
        }
        let core = self.keeper.keep();
        if self.first_worker_core == Some(core) {
            return;
        }
        let Some(worker) = &self.workers[0] else {
            return;
        };
        let (server, child) = worker.pids();
        if affinity::move_to(&[server, child], core) {
            self.first_worker_core = Some(core);
        }
    }

    fn handshake(&mut self, slot: usize, deadline: Instant) -> Result<(), PoolError> {
        let worker = self.workers[slot].as_mut().expect("spawned");
        let result = worker.handshake(deadline);
        if result.is_err() {
            self.workers[slot] = None;
        }
        result
    }

    /// Writes `batch` as the next round's inputs.
    pub(super) fn load(&mut self, batch: &Batch, accept_pass: bool) -> Result<(), PoolError> {
        let params = RoundParams {
            chunk: chunk_size(batch.len(), self.jobs()),
            accept_pass,
            malloc_limit: self.options.malloc_limit_mb() << 20,
        };
        Ok(self.shm.load_round(batch, params)?)
    }

    /// Prepares the next round of `count` inputs: starts missing workers,
    /// counts the generation, and returns the slots to send it to. A round
    /// known to be small (by the tests so far; a first round is not) goes
    /// to the first worker alone, beside the parent. A fork
    /// server's new child that has not said hello yet joins a later round
    /// rather than holding this one up, unless no worker is ready at all.
    pub(super) fn begin_round(&mut self, count: usize) -> Result<Vec<usize>, PoolError> {
        self.ensure_all()?;
        self.generation += 1;
        let mut ready: Vec<usize> = (0..self.jobs())
            .filter(|&s| self.workers[s].as_mut().is_some_and(Worker::ready))
            .collect();
        let small = !self.test_time.is_zero() && self.test_time * count as u32 <= SMALL_ROUND;
        if (small || self.jobs() == 1) && ready.first() == Some(&0) {
            ready.truncate(1);
            self.follow_parent();
        }
        Ok(if ready.is_empty() {
            (0..self.jobs()).collect()
        } else {
            ready
        })
    }

    /// Updates the estimate of one test's time with a round of `ran` tests
    /// that took `elapsed` on `workers` workers.
    pub(super) fn observe_round(&mut self, ran: usize, workers: usize, elapsed: Duration) {
        if ran == 0 {
            return;
        }
        let per_test = elapsed * workers as u32 / ran as u32;
        // A moving average that follows a target getting faster as its
        // input shrinks.
        self.test_time = if self.test_time.is_zero() {
            per_test
        } else {
            (self.test_time * 3 + per_test) / 4
        };
    }

    /// Sends the current round to `slot`'s worker (starting one if the slot
    /// is empty), first giving it `resume`: a range to run before claiming.
    pub(super) fn send_round(
        &mut self,
        slot: usize,
        resume: Option<(u64, u64)>,
    ) -> Result<(), PoolError> {
        let ready = match &self.workers[slot] {
            None => false,
            // A fork server's new child: wait for its hello; if none comes
            // (the server died), start a new worker.
            Some(worker) if worker.awaiting_hello() => self
                .handshake(slot, Instant::now() + STARTUP_TIMEOUT)
                .is_ok(),
            Some(_) => true,
        };
        if !ready {
            self.workers[slot] = None;
            self.respawn(slot)?;
        }
        let area = self.shm.area(slot);
        let (from, to) = resume.unwrap_or((0, 0));
        area.resume_from
            .store(from, std::sync::atomic::Ordering::Relaxed);
        area.resume_to
            .store(to, std::sync::atomic::Ordering::Release);
        let command = Request::Round {
            generation: self.generation,
            shm_len: self.shm.len(),
        };
        let worker = self.workers[slot].as_mut().expect("started above");
        worker.trim_stderr();
        worker.send(&command)?;
        Ok(())
    }
}
