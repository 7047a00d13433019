//! The worker: runs whole rounds of inputs out of shared memory, without a
//! message per input.
//!
//! A round is announced by one `Request::Round`. Workers claim chunks of
//! indices from the shared `next` counter, skip indices above the shared
//! `best` (the lowest accepted index so far), store each outcome in its slot
//! and send an event only for failures and when they run out of work. Before
//! each test the worker writes the test's index to its area, so that if the
//! test kills the process the parent knows which input did it.
//!
//! The functions that run beside the tests rather than under them (the
//! init code's call, the fork server, the command pipe, mapping a round,
//! the leak check) are `#[inline(never)]`: inlined, their locals would sit
//! in the frames below every test, the more so under AddressSanitizer,
//! which gives each inlined callee's locals a slot of their own, and a
//! target would overflow its stack at a shallower depth than on
//! libFuzzer's main thread, where a result then does not fail.

use crate::capture;
use crate::coverage::FeatureLog;
use crate::protocol::{
    control_size, panic_text, Event, Header, Mapping, Note, Request, WorkerArea, WorkerConfig,
    FLAG_FIXED_RANDOM, FLAG_RESTART_AFTER_FAILURE, HEADER_SIZE, MAGIC, NOTE_PANIC, NOTE_SANITIZER,
    NOTE_STACK_OVERFLOW, PROTOCOL_VERSION, SLOT_FAILED, SLOT_PASSED, SLOT_REJECTED, WORKER_ENV,
};
use crate::stack;
use crate::sys;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::raw::c_int;
use std::os::unix::io::FromRawFd;
use std::sync::atomic::{AtomicU8, Ordering};

/// A fuzz target as the engine's crate runs it: the libfuzzer-sys
/// stand-in's `fuzz_target!` functions, or the closure handed to the afl
/// stand-in's `fuzz`.
pub(crate) trait Target {
    /// Runs the target's one-time init code (libFuzzer's `init:`).
    fn initialize(&mut self) {}

    /// Runs one input; the target's code: -1 rejects the input.
    fn run(&mut self, input: &[u8]) -> i32;

    /// Whether a panic the target catches itself still fails the test:
    /// libfuzzer-sys's and afl.rs's panic hooks abort on every panic;
    /// afl.rs's `fuzz_nohook!` fails only on one that escapes.
    fn any_panic_fails(&self) -> bool {
        true
    }

    /// Whether the input is decoded as an `Arbitrary` type (so it has a
    /// `Debug` form).
    fn typed(&self) -> bool;
}

/// Serves the pool when cargo-reduce started this process as a worker
/// (never returns then); otherwise returns `None` and the caller runs
/// the target the way its engine's binaries do outside the fuzzer.
pub(crate) fn serve_if_worker(target: &mut dyn Target) -> Option<c_int> {
    let value = std::env::var(WORKER_ENV).ok()?;
    let code = match WorkerConfig::from_env(&value) {
        Some(config) => serve(config, target),
        None => {
            eprintln!("cargo-reduce stand-in: bad {WORKER_ENV}={value}");
            2
        }
    };
    Some(code)
}

/// Runs the target's init code; the note of its panic or stack overflow if
/// it had one.
#[inline(never)]
fn initialize(target: &mut dyn Target) -> Result<(), Note> {
    capture::begin_test();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| target.initialize()));
    match (capture::end_test(), result) {
        (Some(note), _) => Err(note),
        (None, Err(_)) => Err(unrecorded_panic("init code panicked")),
        (None, Ok(())) => Ok(()),
    }
}

/// A panic the recording hook did not see (the target replaced it during
/// the test).
#[inline(never)]
fn unrecorded_panic(message: &str) -> Note {
    Note {
        kind: NOTE_PANIC,
        arg: 0,
        text: panic_text("", message, &[]),
    }
}

/// What one test did.
enum Verdict {
    Passed,
    Rejected,
    Failed(Note),
}

fn run_one(target: &mut dyn Target, input: &[u8]) -> Verdict {
    capture::begin_test();
    crate::leaks::begin_test();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| target.run(input)));
    let verdict = match (capture::end_test(), result) {
        // It would have ended the process before anything that followed.
        (Some(note), _) if note.kind == NOTE_STACK_OVERFLOW => Verdict::Failed(note),
        (Some(note), Err(_)) => Verdict::Failed(note),
        (Some(note), Ok(_)) if target.any_panic_fails() => Verdict::Failed(note),
        (None, Err(_)) => Verdict::Failed(unrecorded_panic("panicked")),
        (_, Ok(-1)) => Verdict::Rejected,
        (_, Ok(_)) => Verdict::Passed,
    };
    match verdict {
        // libFuzzer checks a rejected input for leaks too.
        Verdict::Passed | Verdict::Rejected => {
            let mut rerun = || rerun(target, input);
            crate::leaks::leaked(&mut rerun).map_or(verdict, Verdict::Failed)
        }
        failed => failed,
    }
}

/// Runs `input` outside the coverage build. Under AddressSanitizer in a
/// heap block of exactly its length, as libFuzzer's copy: a read past the
/// input is then a heap-buffer-overflow, where in the round's shared
/// memory it would read the next input's bytes unseen.
fn run_plain(target: &mut dyn Target, input: &[u8]) -> Verdict {
    #[cfg(cargo_reduce_asan)]
    let copy = crate::coverage::InputCopy::new(input);
    #[cfg(cargo_reduce_asan)]
    let input = copy.bytes();
    run_one(target, input)
}

/// Runs a test that passed once more, for the leak check: what it does
/// the second time is not a verdict (its note, if any, is dropped).
#[inline(never)]
fn rerun(target: &mut dyn Target, input: &[u8]) {
    capture::begin_test();
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| target.run(input)));
    let _ = capture::end_test();
}

/// Without the pool: run each of `inputs` once, like an engine's binary
/// reproducing a crash; abort on a failure. `inputs` are (name, bytes or
/// why they could not be read).
pub(crate) fn standalone(
    target: &mut dyn Target,
    inputs: &mut dyn Iterator<Item = (String, io::Result<Vec<u8>>)>,
) -> c_int {
    capture::install(std::ptr::null_mut());
    capture::keep_last_panic(!target.any_panic_fails());
    if let Err(note) = initialize(target) {
        report_and_abort("init", &note);
    }
    for (name, input) in inputs {
        let input = match input {
            Ok(input) => input,
            Err(err) => {
                eprintln!("{name}: {err}");
                return 1;
            }
        };
        if let Verdict::Failed(note) = run_plain(target, &input) {
            report_and_abort(&name, &note);
        }
        eprintln!("{name}: passed");
    }
    0
}

fn report_and_abort(what: &str, note: &Note) -> ! {
    if note.kind == NOTE_STACK_OVERFLOW {
        eprintln!("{what}: overflowed its stack");
    } else {
        let panic = crate::protocol::split_panic_text(&note.text);
        eprintln!("{what}: panicked at {}:\n{}", panic.location, panic.message);
    }
    std::process::abort()
}

/// Serve the pool: map shared memory, run init, then rounds until told to
/// exit. Tests run on a thread of their own that overflows at a depth of
/// exactly `RLIMIT_STACK` (the main thread's, which both engines run
/// targets on): the main thread's own stack starts at a different depth in
/// every process, and a stack overflow must happen at the same input for
/// every worker. A margin below its stack lets an overflow go on without
/// ending the process (see `stack`). The calling thread then waits for the
/// parent to die, and exits then, even while a test is stuck.
fn serve(config: WorkerConfig, target: &mut dyn Target) -> c_int {
    // Before the test thread exists: its `RandomState` keys come after.
    crate::random::fix(config.flags & FLAG_FIXED_RANDOM != 0);
    for fd in [config.shm_fd, config.command_fd, config.event_fd] {
        // SAFETY: keep our pool descriptors out of processes the target spawns.
        unsafe { sys::fcntl(fd, sys::F_SETFD, sys::FD_CLOEXEC) };
    }
    let control = match map_control(config) {
        Ok(control) => control,
        Err(err) => {
            eprintln!("cargo-reduce stand-in: cannot map shared memory: {err}");
            return 2;
        }
    };
    capture::install(
        control
            .ptr()
            .wrapping_add(crate::protocol::worker_area_offset(config.slot)),
    );
    capture::keep_last_panic(!target.any_panic_fails());
    crate::leaks::install();
    let control_ptr = control.ptr() as usize;
    std::mem::forget(control);
    // SAFETY: the borrow outlives the test thread, which alone uses it: this
    // thread never returns, it waits for the parent's death and exits.
    let target = TargetPtr(unsafe {
        std::mem::transmute::<*mut (dyn Target + '_), *mut (dyn Target + 'static)>(target)
    });
    crate::fork::resolve();
    crate::snapshot::prepare();
    let spawned = stack::spawn_test_thread(Box::new(move || {
        let target = target;
        capture::enter_test_thread();
        let mut worker = Worker::new(config, control_ptr as *mut u8);
        // SAFETY: see `TargetPtr`.
        worker.serve(unsafe { &mut *target.0 })
    }));
    match spawned {
        Ok(()) => exit_when_parent_is_gone(config.event_fd),
        Err(err) => {
            eprintln!("cargo-reduce stand-in: cannot start the test thread: {err}");
            2
        }
    }
}

/// The target, handed to the test thread. afl.rs's closures need not be
/// `Send`, but only the test thread ever touches the target: the thread
/// that hands it over only waits for the parent's death, then exits the
/// process.
struct TargetPtr(*mut (dyn Target + 'static));

// SAFETY: used by one thread at a time, the test thread (see above).
unsafe impl Send for TargetPtr {}

fn map_control(config: WorkerConfig) -> io::Result<Mapping> {
    let header = Mapping::new(config.shm_fd, 0, HEADER_SIZE)?;
    // SAFETY: the header page is mapped.
    let header_ref = unsafe { &*(header.ptr() as *const Header) };
    if header_ref.magic.load(Ordering::Acquire) != MAGIC
        || header_ref.version.load(Ordering::Acquire) != u64::from(PROTOCOL_VERSION)
    {
        return Err(io::Error::other("not a cargo-reduce pool of this version"));
    }
    let slots = header_ref.slots.load(Ordering::Acquire) as usize;
    if config.slot >= slots {
        return Err(io::Error::other("worker slot out of range"));
    }
    Mapping::new(config.shm_fd, 0, control_size(slots))
}

/// The main thread's job once the test thread runs: wait until the parent
/// closes its end of the event pipe (it died), then exit, so no worker
/// outlives its pool even while stuck in a test.
fn exit_when_parent_is_gone(event_fd: c_int) -> ! {
    loop {
        let mut poll = sys::pollfd {
            fd: event_fd,
            events: 0,
            revents: 0,
        };
        // SAFETY: polls one valid pollfd.
        let ready = unsafe { sys::poll(&mut poll, 1, -1) };
        if ready > 0 && poll.revents & (sys::POLLERR | sys::POLLHUP | sys::POLLNVAL) != 0 {
            // SAFETY: _exit has no preconditions.
            unsafe { sys::_exit(3) };
        }
    }
}

/// Whether this process runs only the main thread and the test thread:
/// a forked child has just the thread that forked, so a target whose init
/// code started threads of its own is served without forking.
fn only_threads_are_ours() -> bool {
    std::fs::read_dir("/proc/self/task").is_ok_and(|tasks| tasks.count() == 2)
}

/// The wait status of `child` once it has ended, leaving it unreaped: a
/// zombie, whose pid the system does not reuse until [`reap`].
fn wait_exited(child: sys::pid_t) -> i32 {
    loop {
        let mut info = sys::siginfo_t::zeroed();
        let options = sys::WEXITED | sys::WNOWAIT;
        // SAFETY: waits for our own child; `info` is a valid out-pointer.
        if unsafe { sys::waitid(sys::P_PID, child as sys::id_t, &mut info, options) } == 0 {
            return wait_status(&info);
        }
        if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            // SAFETY: _exit has no preconditions.
            unsafe { sys::_exit(2) };
        }
    }
}

/// `waitid`'s report as the status word `waitpid` gives.
fn wait_status(info: &sys::siginfo_t) -> i32 {
    // SAFETY: `waitid` filled in a SIGCHLD report.
    let status = unsafe { info.si_status() };
    match info.si_code {
        sys::CLD_EXITED => (status & 0xff) << 8,
        sys::CLD_DUMPED => (status & 0x7f) | 0x80,
        _ => status & 0x7f,
    }
}

/// Reaps `child`, which has ended.
fn reap(child: sys::pid_t) {
    let mut status = 0;
    // SAFETY: waits for our own child; `status` is a valid out-pointer.
    while unsafe { sys::waitpid(child, &mut status, 0) } < 0
        && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
    {}
}

/// The test thread's state.
struct Worker {
    config: WorkerConfig,
    header: &'static Header,
    area: &'static WorkerArea,
    commands: File,
    events: File,
    round: Option<Mapping>,
    /// The coverage build's feature log, when the parent asked for one.
    features: Option<FeatureLog>,
    /// Whether this is a test process the fork server forked (which may
    /// fork again: the target started no thread).
    forked: bool,
}

/// One round's view of the round area (valid until the next `map_round`).
struct RoundView {
    generation: u64,
    count: u64,
    offsets: *const u64,
    slots: *const AtomicU8,
    data: *const u8,
}

impl RoundView {
    fn input(&self, index: u64) -> &[u8] {
        let i = index as usize;
        // SAFETY: the parent wrote `count + 1` offsets and the data they
        // delimit before announcing the round; `index < count`.
        unsafe {
            let (start, end) = (
                *self.offsets.add(i) as usize,
                *self.offsets.add(i + 1) as usize,
            );
            std::slice::from_raw_parts(self.data.add(start), end - start)
        }
    }

    fn slot(&self, index: u64) -> &AtomicU8 {
        // SAFETY: `count` slots follow the offsets; `index < count`.
        unsafe { &*self.slots.add(index as usize) }
    }
}

impl Worker {
    fn new(config: WorkerConfig, control: *mut u8) -> Self {
        // SAFETY: the descriptors were handed to us by the parent; the control
        // mapping (checked by `map_control`) is never unmapped.
        unsafe {
            let area = control.add(crate::protocol::worker_area_offset(config.slot));
            Worker {
                config,
                header: &*(control as *const Header),
                area: &*(area as *const WorkerArea),
                commands: File::from_raw_fd(config.command_fd),
                events: File::from_raw_fd(config.event_fd),
                round: None,
                features: FeatureLog::open(config.slot),
                forked: false,
            }
        }
    }

    #[inline(never)]
    fn send(&mut self, event: &Event) {
        if self.events.write_all(&event.encode()).is_err() {
            // The parent is gone.
            // SAFETY: _exit has no preconditions.
            unsafe { sys::_exit(3) };
        }
    }

    #[inline(never)]
    fn receive(&mut self) -> Option<Request> {
        let mut len = [0u8; 4];
        self.commands.read_exact(&mut len).ok()?;
        let mut body = vec![0u8; u32::from_le_bytes(len) as usize];
        self.commands.read_exact(&mut body).ok()?;
        Request::decode(&body)
    }

    fn serve(&mut self, target: &mut dyn Target) -> ! {
        if let Err(note) = crate::leaks::hidden(|| initialize(target)) {
            self.send(&Event::InitFailed {
                kind: note.kind,
                text: note.text,
            });
            // SAFETY: _exit has no preconditions.
            unsafe { sys::_exit(0) };
        }
        let typed = target.typed();
        if self.features.is_some() {
            // libFuzzer runs the empty input once before the corpus: what
            // the first test of a process initializes lazily is then not
            // counted for whichever input a worker happened to run first.
            let _ = run_one(target, &[]);
            // What the start ran (never counted for an input): the
            // coverage reports count it as run.
            if let Some(log) = &mut self.features {
                log.record(crate::protocol::STARTUP_RECORD);
            }
        }
        // LeakSanitizer scans the stacks of the threads it finds, and a
        // forked child has lost the main thread's: what only it points to
        // would read as leaked. Leaks are looked for without forking.
        if only_threads_are_ours() && !crate::leaks::enabled() {
            self.serve_forks();
        }
        self.send(&Event::Hello {
            version: PROTOCOL_VERSION,
            typed,
            // SAFETY: getpid has no preconditions.
            pid: unsafe { sys::getpid() } as u32,
        });
        loop {
            let (generation, shm_len) = match self.receive() {
                Some(Request::Round {
                    generation,
                    shm_len,
                }) => (generation, shm_len),
                Some(Request::Exit) | None => break,
                // An answer meant for a test process that died (the
                // parent sends it as it reads of the failure).
                Some(Request::Resume | Request::Release) => continue,
            };
            match self.map_round(generation, shm_len) {
                Ok(view) => self.run_round(target, &view),
                Err(err) => {
                    eprintln!("cargo-reduce stand-in: cannot map round: {err}");
                    // SAFETY: _exit has no preconditions.
                    unsafe { sys::_exit(2) };
                }
            }
        }
        // Exit command, or the parent closed the command pipe.
        // SAFETY: _exit has no preconditions.
        unsafe { sys::_exit(0) }
    }

    /// The fork server: with the target initialized, fork a child to run
    /// the tests; when it dies, report its wait status and fork the next
    /// one, so that a crash costs a `fork` (no `exec`, no init code) rather
    /// than a process start. Returns in each child. The child dies with
    /// this process (`PR_SET_PDEATHSIG`), which dies with the parent.
    #[inline(never)]
    fn serve_forks(&mut self) {
        // SAFETY: getpid has no preconditions.
        let server = unsafe { sys::getpid() };
        loop {
            // SAFETY: this thread is the only one that runs target code;
            // the child continues on this thread alone.
            let child = unsafe { sys::fork() };
            if child == 0 {
                sys::die_with_parent(server);
                crate::fault_trace::enter_test_thread();
                self.forked = true;
                return;
            }
            if child < 0 {
                eprintln!(
                    "cargo-reduce stand-in: fork failed: {}",
                    io::Error::last_os_error()
                );
                return; // Run the tests in this process instead.
            }
            let status = wait_exited(child);
            if let Some(depth) = capture::overflow_depth() {
                stack::after_death(depth);
            }
            self.send(&Event::ChildDied { status });
            // The parent may kill or measure the child's pid until it has
            // read of the death: the zombie keeps the pid until then.
            self.wait_for_request(&Request::Release);
            reap(child);
        }
    }

    /// Reads commands until `wanted` comes; the others were meant for a
    /// test process that died before it read them. Exits if the parent
    /// says so or is gone.
    #[inline(never)]
    fn wait_for_request(&mut self, wanted: &Request) {
        loop {
            match self.receive() {
                Some(command) if command == *wanted => return,
                Some(Request::Exit) | None => {
                    // SAFETY: _exit has no preconditions.
                    unsafe { sys::_exit(0) }
                }
                Some(_) => {}
            }
        }
    }

    /// Maps (more of) the round area if it grew and returns the round's view.
    #[inline(never)]
    fn map_round(&mut self, generation: u64, shm_len: u64) -> io::Result<RoundView> {
        let offset = control_size(self.header.slots.load(Ordering::Acquire) as usize);
        let len = (shm_len as usize).saturating_sub(offset);
        if self.round.as_ref().map_or(0, Mapping::len) < len {
            self.round = None;
            self.round = Some(Mapping::new(self.config.shm_fd, offset, len)?);
        }
        let base = self
            .round
            .as_ref()
            .map_or(std::ptr::null_mut(), Mapping::ptr);
        let at = |field: &std::sync::atomic::AtomicU64| field.load(Ordering::Acquire) as usize;
        let header = self.header;
        Ok(RoundView {
            generation,
            count: header.count.load(Ordering::Acquire),
            offsets: base.wrapping_add(at(&header.offsets_at)) as *const u64,
            slots: base.wrapping_add(at(&header.slots_at)) as *const AtomicU8,
            data: base.wrapping_add(at(&header.data_at)),
        })
    }

    fn run_round(&mut self, target: &mut dyn Target, view: &RoundView) {
        capture::arm(self.header.malloc_limit.load(Ordering::Acquire));
        let resume_from = self.area.resume_from.swap(0, Ordering::AcqRel);
        let resume_to = self.area.resume_to.swap(0, Ordering::AcqRel);
        let resume = (resume_from < resume_to).then(|| (resume_from, resume_to.min(view.count)));
        match self.features.is_some() && self.forked {
            true => self.run_in_forks(target, view, resume),
            false => {
                self.run_claims(target, view, resume, &mut || true);
            }
        }
        self.area.current.store(0, Ordering::Release);
        capture::disarm();
        self.send(&Event::Idle {
            generation: view.generation,
        });
    }

    /// Runs the range `first` (one to finish), then the ranges it claims
    /// from the round until none is left, each test once `ready` says the
    /// process is ready for it. `false` if it was not: then the area's
    /// `current` is the next index and `range_end` the end of its range.
    fn run_claims(
        &mut self,
        target: &mut dyn Target,
        view: &RoundView,
        first: Option<(u64, u64)>,
        ready: &mut dyn FnMut() -> bool,
    ) -> bool {
        let header = self.header;
        let chunk = header.chunk.load(Ordering::Acquire).max(1);
        if let Some((from, to)) = first {
            if !self.run_range(target, view, from, to, ready) {
                return false;
            }
        }
        loop {
            let start = header.next.0.fetch_add(chunk, Ordering::Relaxed);
            if start >= view.count || start > header.best.0.load(Ordering::Relaxed) {
                return true;
            }
            if !self.run_range(target, view, start, (start + chunk).min(view.count), ready) {
                return false;
            }
        }
    }

    fn run_range(
        &mut self,
        target: &mut dyn Target,
        view: &RoundView,
        from: u64,
        to: u64,
        ready: &mut dyn FnMut() -> bool,
    ) -> bool {
        let (header, area) = (self.header, self.area);
        area.range_end.store(to, Ordering::Relaxed);
        for index in from..to {
            if index > header.best.0.load(Ordering::Relaxed) {
                break;
            }
            if !ready() {
                // The next fork starts at this test: at a range's first,
                // `current` still names the last range's end, and the
                // tests between are other workers'.
                area.current.store(index, Ordering::Relaxed);
                return false;
            }
            area.current.store(index + 1, Ordering::Relaxed);
            self.test(target, view, index);
        }
        true
    }

    /// Runs input `index` and records its outcome (in the coverage build,
    /// with its features: of the input copied to a fixed alignment).
    fn test(&mut self, target: &mut dyn Target, view: &RoundView, index: u64) {
        let header = self.header;
        let accept_pass = header.accept_pass.load(Ordering::Relaxed) != 0;
        let slot = view.slot(index);
        let input = view.input(index);
        let verdict = match &mut self.features {
            Some(log) => {
                let copy = crate::coverage::InputCopy::new(input);
                log.begin();
                let verdict = run_one(target, copy.bytes());
                if let Verdict::Passed = verdict {
                    log.record(index);
                }
                verdict
            }
            None => run_plain(target, input),
        };
        match verdict {
            Verdict::Passed | Verdict::Rejected if accept_pass => {
                slot.store(SLOT_PASSED, Ordering::Release);
                header.best.0.fetch_min(index, Ordering::AcqRel);
            }
            Verdict::Passed => slot.store(SLOT_PASSED, Ordering::Release),
            Verdict::Rejected => slot.store(SLOT_REJECTED, Ordering::Release),
            Verdict::Failed(note) => {
                // Marked first: a process killed before its event is
                // out still leaves the failure, in the slot and the note.
                slot.store(SLOT_FAILED, Ordering::Release);
                self.send(&Event::Failed {
                    generation: view.generation,
                    index,
                    kind: note.kind,
                });
                // A panic unwound through the target's state (and may
                // have poisoned it); the engines' process would have
                // ended there. A stack overflow past the tripwire ran
                // to its end instead, as a passing test does.
                let unwound = note.kind != NOTE_STACK_OVERFLOW;
                // A leak stays leaked: every later check would find it again.
                let leaked = note.kind == NOTE_SANITIZER;
                if leaked || (unwound && self.config.flags & FLAG_RESTART_AFTER_FAILURE != 0) {
                    // SAFETY: _exit has no preconditions.
                    unsafe { sys::_exit(0) };
                }
                // The next test would overwrite the note.
                self.wait_for_request(&Request::Resume);
            }
        }
    }

    /// The round's tests in a fork of this test process, which ends with
    /// them: every input of a coverage replay starts from the same state
    /// (the warmed-up process), so its features do not depend on what ran
    /// before it in its worker (a one-time initialisation, the heap's
    /// layout). The fork puts its memory back before each test but its
    /// first ([`Snapshot`](crate::snapshot::Snapshot)); where it cannot,
    /// it ends, and the next test gets a fork of its own. A fork that
    /// dies, dies again here, as it died; the parent's requests for the
    /// test's stack are passed on to it, and it counts in this process's
    /// memory and CPU time (`pool::worker_process`).
    #[inline(never)]
    fn run_in_forks(
        &mut self,
        target: &mut dyn Target,
        view: &RoundView,
        mut first: Option<(u64, u64)>,
    ) {
        loop {
            // SAFETY: getpid has no preconditions.
            let parent = unsafe { sys::getpid() };
            // SAFETY: the fork server forked this process with one thread.
            let child = unsafe { crate::fork::single_threaded() };
            if child == 0 {
                sys::die_with_parent(parent);
                // A thread of its own (another id), to which stack requests go.
                crate::fault_trace::enter_test_thread();
                let mut snapshot = crate::snapshot::Snapshot::take();
                let mut fresh = true;
                let mut ready =
                    || std::mem::take(&mut fresh) || snapshot.as_mut().is_some_and(|s| s.restore());
                let code = match self.run_claims(target, view, first, &mut ready) {
                    true => TESTS_DONE,
                    false => TESTS_CUT,
                };
                // SAFETY: _exit has no preconditions.
                unsafe { sys::_exit(code) };
            }
            if child < 0 {
                self.run_claims(target, view, first, &mut || true);
                return;
            }
            crate::fault_trace::enter_test_fork(child);
            let status = wait_exited(child);
            crate::fault_trace::enter_test_fork(0);
            reap(child);
            match status {
                _ if status == TESTS_DONE << 8 => return,
                // The fork could not put its memory back for the next test.
                _ if status == TESTS_CUT << 8 => {
                    let area = self.area;
                    first = Some((
                        area.current.load(Ordering::Relaxed),
                        area.range_end.load(Ordering::Relaxed),
                    ));
                }
                _ => die_as(status),
            }
        }
    }
}

/// The exit codes of a fork of [`Worker::run_in_forks`]: it ran the
/// round's tests to the end, or stopped for the next to get a fork of its
/// own.
const TESTS_DONE: c_int = 0x5c;
const TESTS_CUT: c_int = 0x5d;

/// Ends this process as a child with wait `status` ended.
fn die_as(status: i32) -> ! {
    let signal = status & 0x7f;
    if signal != 0 {
        // SAFETY: the default action of the signal that ended the fork
        // (a fault handler of ours would take it for a fault of this
        // process).
        unsafe {
            sys::signal(signal, sys::SIG_DFL);
            sys::raise(signal);
        }
    }
    // SAFETY: _exit has no preconditions.
    unsafe { sys::_exit((status >> 8) & 0xff) }
}
