//! Runs a fuzz target's inputs in long-lived worker processes.
//!
//! The target is built against cargo-reduce's `libfuzzer-sys` stand-in (the
//! `harness/` crate, see [`crate::fuzz::standin`]), whose `main` turns the binary into a
//! worker. A round of inputs is written once into shared memory; workers
//! claim chunks of indices from a shared counter, skip every index above the
//! lowest accepted one found so far, and report only failures, so a passing
//! test costs a function call plus a few memory writes instead of a pipe
//! round trip or a process. Each worker writes the index it is running into
//! its area of the shared memory before each test: when a test kills its
//! process (abort, segfault, stack overflow, timeout, OOM) the parent knows
//! which input did it, classifies the death ([`Failure`]), starts a new
//! worker and the round goes on. All workers are killed on drop.

mod affinity;
mod asan_bug;
mod asan_report;
mod call_path;
mod coverage;
mod cpu_time;
mod crew;
mod death;
mod decode_crew;
mod error;
mod exits;
mod failure;
mod forks;
mod leak_report;
mod location;
mod pc_table;
mod place;
#[allow(dead_code)] // Shared with the worker side, which uses other parts.
mod protocol;
mod round;
mod severity;
mod shm;
mod stop;
mod symbol_name;
/// The C library as the harness declares it (`protocol` maps memory with it).
#[allow(dead_code)]
#[path = "../../../harness/src/sys.rs"]
mod sys;
#[cfg(test)]
pub(crate) mod tests;
mod worker_process;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

pub(crate) use coverage::{CoveragePool, Replayed};
pub(crate) use error::PoolError;
pub(crate) use exits::Exits;
pub(crate) use failure::{
    keeps_request, portable_location, split_location, Failure, FailureKind, MessageForm,
    OverflowDepth, Signature,
};
pub(crate) use pc_table::{PcTable, PcTableFile};
pub(crate) use severity::Severity;
pub(crate) use stop::StopFlag;

use crew::Crew;
pub(crate) use decode_crew::DecodeCrew;
use round::run_round;
use shm::Batch;

/// A round's inputs are written to shared memory in parts of about this
/// many bytes, so a round of many large candidates never needs them all at
/// once (and a part after an accepted input is never built).
const ROUND_BYTES: usize = 64 << 20;

/// How to run workers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PoolOptions {
    /// Worker processes (tests run in parallel).
    pub jobs: usize,
    /// A test running longer than this is killed and fails as a timeout
    /// (one whose memory still grows, up to ten times later: see
    /// `memory_grace`).
    pub timeout: Duration,
    /// Whether a test past the timeout whose memory still grows runs on
    /// (`round.rs`): off where the input's failure is the timeout itself
    /// (a timeout artifact, an AFL++ hang), which a test filling memory
    /// slowly is too.
    pub memory_grace: bool,
    /// A worker whose resident set grows past this many megabytes is killed
    /// and its test fails as out-of-memory (libFuzzer's `-rss_limit_mb`; 0:
    /// no limit). The parent polls `/proc/PID/statm` of busy workers every
    /// few milliseconds: unlike `setrlimit(RLIMIT_AS)` this measures what
    /// libFuzzer measures, and cannot fail the big virtual reservations some
    /// targets make.
    pub rss_limit_mb: u64,
    /// A single allocation above this many megabytes fails the test as
    /// out-of-memory at once (libFuzzer's `-malloc_limit_mb`); `None`: the
    /// RSS limit, as in libFuzzer.
    pub malloc_limit_mb: Option<u64>,
    /// End the test process after each failing test, as libFuzzer and
    /// AFL++ end theirs at a crash: no later test runs in a process whose
    /// state the failure left broken (a lock it poisoned, a lazily built
    /// static whose initializer panicked), so an artifact fails alike on
    /// every run. Under a fork server a failure costs a fork; otherwise
    /// (the target's init code started threads) a process start and the
    /// init code. On by default; passing tests never cost a process.
    pub restart_after_failure: bool,
    /// Which exits of a test process (`process::exit` in the target) fail
    /// the test: every one for libFuzzer, as the engine's own; for
    /// AFL++ only `AFL_CRASH_EXITCODE`'s.
    pub exits: Exits,
    /// Look for memory leaks after each passing test, as libFuzzer's
    /// `-detect_leaks=1` (only a build with AddressSanitizer can: the
    /// stand-in's `leaks` module); off by default, since it takes a stack
    /// at every allocation.
    pub detect_leaks: bool,
    /// Workers that run an input the same way in every run: coverage
    /// pools, since an input's features must be the same in every run and
    /// on every machine of a sharded replay. Some code takes its path from
    /// an address (a heap block's alignment, a pointer's hash): the
    /// workers start with the address layout not randomized
    /// (`ADDR_NO_RANDOMIZE`, as `setarch -R` does; where the system
    /// refuses, a container's seccomp policy, they start randomized). And
    /// some from a random seed (a `HashMap`'s order): the stand-in's
    /// `getrandom` gives a fixed sequence (`FLAG_FIXED_RANDOM`).
    pub reproducible: bool,
    /// Ends a round at once when set (Ctrl-C in a corpus or coverage
    /// replay); unset, a round runs to its end and a reduction stops
    /// between rounds.
    pub stop: StopFlag,
}

impl Default for PoolOptions {
    fn default() -> Self {
        PoolOptions {
            jobs: std::thread::available_parallelism().map_or(1, usize::from),
            timeout: Duration::from_secs(10),
            memory_grace: true,
            rss_limit_mb: 2048,
            malloc_limit_mb: None,
            restart_after_failure: true,
            exits: Exits::Fail,
            detect_leaks: false,
            reproducible: false,
            stop: StopFlag::default(),
        }
    }
}

impl PoolOptions {
    fn malloc_limit_mb(&self) -> u64 {
        self.malloc_limit_mb.unwrap_or(self.rss_limit_mb)
    }

    /// The options a test's outcome depends on, as one key (replay
    /// caches keep outcomes under it): the limits, which exits fail, and
    /// whether leaks are looked for.
    pub(crate) fn outcome_key(&self) -> String {
        let exits = match self.exits {
            Exits::Fail => "exits".to_string(),
            Exits::FailWith(None) => "no-exits".to_string(),
            Exits::FailWith(Some(code)) => format!("exit-{code}"),
        };
        let leaks = if self.detect_leaks { "-leaks" } else { "" };
        format!(
            "{}ms-{}mb-{}mb-{exits}{leaks}",
            self.timeout.as_millis(),
            self.rss_limit_mb,
            self.malloc_limit_mb()
        )
    }
}

/// What running one input did.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Outcome {
    /// The target returned (`Corpus::Keep` or `Corpus::Reject` alike, and
    /// inputs too short or invalid for a typed target).
    Passed,
    /// The test failed.
    Failed(Failure),
}

impl Outcome {
    /// The failure, if the test failed.
    pub(crate) fn failure(&self) -> Option<&Failure> {
        match self {
            Outcome::Passed => None,
            Outcome::Failed(failure) => Some(failure),
        }
    }
}

/// The answer of [`WorkerPool::first_accepted`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RoundResult {
    /// The lowest index whose outcome was accepted; every input below it was
    /// run, so this is what a sequential run would pick.
    pub accepted: Option<usize>,
    /// The outcome of every input that was run (`None`: not run), for a cache.
    pub outcomes: Vec<Option<Outcome>>,
}

/// Worker processes of one fuzz target.
#[derive(Debug)]
pub(crate) struct WorkerPool {
    binary: PathBuf,
    options: PoolOptions,
    crew: Mutex<Crew>,
    /// Size of the parts a round is written in (`ROUND_BYTES`; small in tests).
    round_bytes: usize,
    /// A typed target's decoder, started with the pool and shared by every
    /// reduction and `Debug` form.
    decoder: Mutex<Option<Arc<DecodeCrew>>>,
}

impl WorkerPool {
    /// Starts `options.jobs` workers of `binary` (a fuzz target built with
    /// [`crate::fuzz::standin::build_patched`]) and waits until each has run the target's init code.
    pub(crate) fn start(binary: &Path, options: PoolOptions) -> Result<Self, PoolError> {
        Self::start_with_env(binary, options, Vec::new())
    }

    /// [`start`](Self::start) with extra environment for the workers.
    fn start_with_env(
        binary: &Path,
        options: PoolOptions,
        env: Vec<(std::ffi::OsString, std::ffi::OsString)>,
    ) -> Result<Self, PoolError> {
        let crew = Crew::start(binary, &options, env)?;
        let pool = WorkerPool {
            binary: binary.to_path_buf(),
            options,
            crew: Mutex::new(crew),
            round_bytes: ROUND_BYTES,
            decoder: Mutex::new(None),
        };
        pool.decoder()?;
        Ok(pool)
    }

    fn crew(&self) -> MutexGuard<'_, Crew> {
        self.crew.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the target takes an `Arbitrary` type (its input then has a
    /// [`debug_format`](Self::debug_format)).
    pub(crate) fn typed_input(&self) -> bool {
        self.crew().typed
    }

    /// The timeout tests run under.
    pub(crate) fn timeout(&self) -> Duration {
        self.crew().options.timeout
    }

    /// Changes the timeout of the next rounds (a timeout artifact is reduced
    /// under shorter probes first, see [`crate::fuzz::shrink::probe_timeouts`]).
    pub(crate) fn set_timeout(&self, timeout: Duration) {
        self.crew().options.timeout = timeout;
    }

    /// The memory limit of the next rounds, in MB (RSS and, unless
    /// `PoolOptions::malloc_limit_mb` says otherwise, single allocations).
    pub(crate) fn rss_limit_mb(&self) -> u64 {
        self.crew().options.rss_limit_mb
    }

    /// Changes the memory limit of the next rounds (an AFL++ input is
    /// reduced under its campaign's `-m`).
    pub(crate) fn set_rss_limit_mb(&self, limit_mb: u64) {
        self.crew().options.rss_limit_mb = limit_mb;
    }

    /// The options of the next rounds that a test's outcome depends on
    /// ([`PoolOptions::outcome_key`]).
    pub(crate) fn outcome_key(&self) -> String {
        self.crew().options.outcome_key()
    }

    /// Whether a test whose memory still grows runs past the timeout.
    pub(crate) fn memory_grace(&self) -> bool {
        self.crew().options.memory_grace
    }

    /// Turns that grace on or off for the next rounds (off for an input
    /// whose failure is the timeout).
    pub(crate) fn set_memory_grace(&self, grace: bool) {
        self.crew().options.memory_grace = grace;
    }

    /// Runs one input (to reproduce an artifact).
    pub(crate) fn run(&self, input: &[u8]) -> Result<Outcome, PoolError> {
        let result = self.first_accepted(&[input], &|_| true)?;
        result
            .outcomes
            .into_iter()
            .next()
            .flatten()
            .ok_or_else(|| PoolError::Protocol("the input was not run".to_string()))
    }

    /// Runs one input in test processes that have run nothing since the
    /// target's init code, as `cargo fuzz run <artifact>` and an afl.rs
    /// binary given one input do: a verdict on an artifact owes nothing to
    /// what earlier tests left behind (a setting the first input fixed, a
    /// cache). Under a fork server this costs a fork per worker that ran
    /// tests; without one it is [`run`](Self::run).
    pub(crate) fn run_fresh(&self, input: &[u8]) -> Result<Outcome, PoolError> {
        self.crew().fresh_test_processes();
        self.run(input)
    }

    /// Runs `copies` copies of one input in one round
    /// ([`run_fresh_each`](Self::run_fresh_each)). So a hang is reproduced
    /// in its timeout once per `-j` copies, not once per copy; a worker's
    /// next copy may not start fresh only after a copy that passed, when
    /// the input already failed to fail every time.
    pub(crate) fn run_fresh_copies(
        &self,
        input: &[u8],
        copies: usize,
    ) -> Result<Vec<Outcome>, PoolError> {
        self.run_fresh_each(&vec![input; copies])
    }

    /// Runs each of `inputs` once in one round, in parallel, after making
    /// every test process fresh ([`run_fresh`](Self::run_fresh)): a
    /// worker's next input starts fresh too when its last one ended the
    /// test process (a hang, a crash), not after one that passed.
    pub(crate) fn run_fresh_each(&self, inputs: &[&[u8]]) -> Result<Vec<Outcome>, PoolError> {
        self.crew().fresh_test_processes();
        let round = self.first_accepted(inputs, &|_| false)?;
        round
            .outcomes
            .into_iter()
            .map(|o| o.ok_or_else(|| PoolError::Protocol("an input was not run".to_string())))
            .collect()
    }

    /// Runs a round: inputs in index order, in parallel, until the lowest
    /// index whose outcome satisfies `accept` is known.
    pub(crate) fn first_accepted(
        &self,
        inputs: &[&[u8]],
        accept: &(dyn Fn(&Outcome) -> bool + Sync),
    ) -> Result<RoundResult, PoolError> {
        let mut produce = |index: usize, out: &mut Vec<u8>| out.extend_from_slice(inputs[index]);
        self.first_accepted_with(inputs.len(), &mut produce, accept)
    }

    /// [`first_accepted`](Self::first_accepted) with inputs made on demand:
    /// `produce(i, buf)` appends input `i` to `buf`. Inputs are made in
    /// order and written to shared memory in parts; parts after the one
    /// holding the answer are never made.
    pub(crate) fn first_accepted_with(
        &self,
        count: usize,
        produce: &mut dyn FnMut(usize, &mut Vec<u8>),
        accept: &(dyn Fn(&Outcome) -> bool + Sync),
    ) -> Result<RoundResult, PoolError> {
        let mut crew = self.crew();
        let accept_pass = accept(&Outcome::Passed);
        let mut outcomes = Vec::with_capacity(count);
        let mut batch = Batch::default();
        while outcomes.len() < count {
            let first = outcomes.len();
            batch.clear();
            while first + batch.len() < count
                && (batch.len() == 0 || batch.footprint() < self.round_bytes)
            {
                produce(first + batch.len(), &mut batch.data);
                batch.ends.push(batch.data.len() as u64);
            }
            crew.load(&batch, accept_pass)?;
            let part = run_round(&mut crew, batch.len(), accept)?;
            let accepted = part.iter().position(|o| o.as_ref().is_some_and(accept));
            outcomes.extend(part);
            if let Some(index) = accepted {
                outcomes.resize(count, None);
                return Ok(RoundResult {
                    accepted: Some(first + index),
                    outcomes,
                });
            }
        }
        Ok(RoundResult {
            accepted: None,
            outcomes,
        })
    }

    /// The `Debug` form of a typed target's input, as `cargo fuzz fmt` prints
    /// it. `None` for raw-bytes targets and for inputs too short for the
    /// type.
    pub(crate) fn debug_format(&self, input: &[u8]) -> Result<Option<String>, PoolError> {
        match self.decoder()? {
            Some(decoder) => Ok(decoder.decode_input(input)?.and_then(|d| d.debug)),
            None => Ok(None),
        }
    }

    /// The [`Decoder`] of this pool's target: its own one-worker crew that
    /// decodes inputs without running the target, started with the pool
    /// (like the pool's workers, it costs a process start once, not once
    /// per reduction). `None` for raw-bytes targets.
    pub(crate) fn decoder(&self) -> Result<Option<Arc<DecodeCrew>>, PoolError> {
        if !self.typed_input() {
            return Ok(None);
        }
        let mut decoder = self.decoder.lock().unwrap_or_else(PoisonError::into_inner);
        if decoder.is_none() {
            // Decoding runs no test and takes microseconds: Ctrl-C does
            // not stop it, so a stopped reduction still shows its value,
            // and the typed passes stop on the reduction's limits.
            let options = PoolOptions {
                jobs: 1,
                stop: StopFlag::default(),
                ..self.options.clone()
            };
            *decoder = Some(Arc::new(DecodeCrew::start(&self.binary, &options)?));
        }
        Ok(decoder.clone())
    }
}
