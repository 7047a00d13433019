//! One worker process seen from the parent: spawn it with its pipes and the
//! shared memory, wait for its handshake, send commands, read events, watch
//! its memory, kill it and collect its exit status.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, ExitStatus, Stdio};
use std::time::Instant;

use rustix::event::{PollFd, PollFlags, Timespec};
use rustix::fs::OFlags;
use rustix::io::{Errno, FdFlags};
use rustix::pipe::PipeFlags;
use rustix::process::{kill_process, Pid, Signal};

use super::death::{reported_failure, KillReason};
use super::error::PoolError;
use super::protocol::{
    next_frame, Event, Request, WorkerConfig, OVERFLOW_ELSEWHERE, PROTOCOL_VERSION, WORKER_ENV,
};

/// How long a worker that closed its event pipe may take to finish exiting.
const EXIT_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Keep at most this much of a worker's stderr (it is truncated between rounds).
const STDERR_KEEP: u64 = 1 << 20;

/// How to start workers: the same for every slot of a pool.
#[derive(Clone, Debug)]
pub(crate) struct Launch {
    /// The fuzz target binary built against the harness.
    pub binary: PathBuf,
    /// Descriptor of the shared memory.
    pub shm_fd: RawFd,
    /// `FLAG_*` bits for the workers.
    pub flags: u64,
    /// Extra environment variables.
    pub env: Vec<(OsString, OsString)>,
    /// `ASAN_OPTIONS` (read only by a build with AddressSanitizer).
    pub asan_options: OsString,
    /// The workers' address layout not randomized (`PoolOptions::reproducible`).
    pub fixed_layout: bool,
}

/// A running worker.
///
/// When the target's init code leaves it alone with its test thread, the
/// worker is a fork server: the tests run in a child it forks, and when
/// that child dies the worker reports it ([`Event::ChildDied`]) and forks
/// the next one, which says hello again. The parent then kills and measures
/// the child (`pid`), and a death costs a fork instead of a process start.
/// The fork server reaps a dead child only once the parent has read of its
/// death and forgotten its pid ([`Request::Release`]), so the pid the
/// parent kills or measures is never another process's.
#[derive(Debug)]
pub(crate) struct Worker {
    child: Child,
    commands: File,
    events: File,
    pending: Vec<u8>,
    stderr: File,
    /// How much of `stderr` earlier deaths have read (see
    /// [`Worker::stderr_since_last_death`]).
    stderr_mark: u64,
    /// The process that runs the tests: the worker's own pid, or its
    /// child's; `None` between a child's death and the next one's hello.
    pid: Option<u32>,
    /// Whether the worker is a fork server (its first hello came from a
    /// child).
    forks: bool,
    /// Between a start (or a child's death) and the next hello.
    awaiting_hello: bool,
    /// Whether the test process was sent a round since its hello.
    tested: bool,
    /// A test process's death reported by the fork server, not yet handled.
    death: Option<Death>,
    /// Why the parent killed the test process, once it did.
    pub kill_reason: Option<KillReason>,
    /// Whether the target takes an `Arbitrary` type (from the handshake).
    pub typed: bool,
}

/// How a fork server's test process ended.
#[derive(Debug)]
pub(crate) struct Death {
    /// Its wait status.
    pub status: ExitStatus,
    /// Why the parent killed it, if it did.
    pub kill_reason: Option<KillReason>,
}

/// A pipe whose ends are closed on exec (the worker's ends are inherited
/// through `pre_exec`, see [`Worker::spawn`]).
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    Ok(rustix::pipe::pipe_with(PipeFlags::CLOEXEC)?)
}

/// Adds `flag` to the file status flags of `fd`.
fn add_status_flag(fd: impl AsFd, flag: OFlags) -> io::Result<()> {
    let flags = rustix::fs::fcntl_getfl(&fd)?;
    Ok(rustix::fs::fcntl_setfl(&fd, flags | flag)?)
}

/// Asks that the program this process executes next get the same address
/// layout in every run (what `setarch -R` does); a refusal leaves it
/// randomized. rustix has no `personality`, hence libc.
fn fix_address_layout() {
    const QUERY: libc::c_ulong = 0xffff_ffff;
    // SAFETY: `personality` reads, then sets, this process's execution domain.
    unsafe {
        let current = libc::personality(QUERY);
        if current >= 0 {
            libc::personality(current as libc::c_ulong | libc::ADDR_NO_RANDOMIZE as libc::c_ulong);
        }
    }
}

impl Worker {
    /// Starts a worker for `slot`; call [`Worker::handshake`] next.
    pub(super) fn spawn(launch: &Launch, slot: usize) -> Result<Worker, PoolError> {
        let spawn_error = |source| PoolError::Spawn {
            binary: launch.binary.clone(),
            source,
        };
        let (command_read, command_write) = pipe().map_err(spawn_error)?;
        let (event_read, event_write) = pipe().map_err(spawn_error)?;
        let stderr = tempfile::tempfile().map_err(spawn_error)?;
        add_status_flag(&stderr, OFlags::APPEND).map_err(spawn_error)?;
        let config = WorkerConfig {
            shm_fd: launch.shm_fd,
            command_fd: command_read.as_raw_fd(),
            event_fd: event_write.as_raw_fd(),
            slot,
            flags: launch.flags,
        };
        let inherited = [config.shm_fd, config.command_fd, config.event_fd];
        let fixed_layout = launch.fixed_layout;
        let mut command = std::process::Command::new(&launch.binary);
        command
            .env(WORKER_ENV, config.to_env())
            .env("ASAN_OPTIONS", &launch.asan_options)
            .envs(launch.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr.try_clone().map_err(spawn_error)?)
            // A process group of its own (its fork server's test processes
            // join it): a terminal's Ctrl-C reaches cargo-reduce alone,
            // which stops the reduction and writes the best result so far,
            // instead of killing the workers under it (a run interrupted
            // while they started, or reproduced or checked an artifact,
            // failed as a dead worker, a flaky or a not reproducing
            // artifact). A worker still ends with cargo-reduce: its event
            // pipe closes.
            .process_group(0);
        // SAFETY: only fcntl and personality (plain system calls,
        // async-signal-safe) run in the child, on descriptors that stay open
        // in the parent until the child has exec'd: `command_read` and
        // `event_write` are dropped after `spawn`, the shared memory lives as
        // long as the pool.
        unsafe {
            command.pre_exec(move || {
                for fd in inherited {
                    rustix::io::fcntl_setfd(BorrowedFd::borrow_raw(fd), FdFlags::empty())?;
                }
                if fixed_layout {
                    fix_address_layout();
                }
                Ok(())
            });
        }
        let child = command.spawn().map_err(spawn_error)?;
        drop((command_read, event_write));
        add_status_flag(&event_read, OFlags::NONBLOCK).map_err(spawn_error)?;
        Ok(Worker {
            pid: Some(child.id()),
            forks: false,
            child,
            commands: File::from(command_write),
            events: File::from(event_read),
            pending: Vec::new(),
            stderr,
            stderr_mark: 0,
            awaiting_hello: true,
            tested: false,
            death: None,
            kill_reason: None,
            typed: false,
        })
    }

    /// The worker process and the process that runs its tests (the same
    /// one unless the worker is a fork server).
    pub(super) fn pids(&self) -> (u32, u32) {
        let server = self.child.id();
        (server, self.pid.unwrap_or(server))
    }

    /// Whether a test process must say hello before it gets a round.
    pub(super) fn awaiting_hello(&self) -> bool {
        self.awaiting_hello
    }

    /// Whether the process that runs the tests is a fork server's child
    /// that has run a round: its state is no longer that of a process
    /// that only ran the init code (see [`Worker::kill_test`]).
    pub(super) fn tested_child(&self) -> bool {
        self.forks && !self.awaiting_hello && self.tested
    }

    /// Whether the worker can take a round now: reads a pending hello
    /// without waiting (other events read here are left over from earlier
    /// rounds).
    pub(super) fn ready(&mut self) -> bool {
        if self.awaiting_hello {
            let mut events = Vec::new();
            let _ = self.read_events(&mut events);
            for event in events {
                if let Event::Failed { .. } = event {
                    self.resume();
                }
            }
        }
        !self.awaiting_hello
    }

    /// Lets a worker that reported a failure go on, once its note was read.
    pub(super) fn resume(&mut self) {
        let _ = self.send(&Request::Resume);
    }

    /// Waits until the worker ran the target's init code and said hello
    /// (or, under a fork server, until its next child did).
    pub(super) fn handshake(&mut self, deadline: Instant) -> Result<(), PoolError> {
        let mut events = Vec::new();
        loop {
            let eof = self.read_events(&mut events).map_err(PoolError::Io)?;
            if let Some(event) = events.drain(..).next() {
                return self.unexpected(event);
            }
            if !self.awaiting_hello {
                return Ok(());
            }
            if eof {
                let status = self.reap_exited();
                return Err(PoolError::died(status, self.stderr_tail()));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                self.reap(KillReason::Shutdown);
                return Err(PoolError::StartTimeout {
                    stderr: self.stderr_tail(),
                });
            }
            wait_readable(&[self.event_fd()], left.as_millis().min(1000) as i32)
                .map_err(PoolError::Io)?;
        }
    }

    /// The error for an event other than a hello from a starting worker.
    fn unexpected(&mut self, event: Event) -> Result<(), PoolError> {
        match event {
            Event::Hello { version, .. } => Err(PoolError::Protocol(format!(
                "worker speaks protocol {version}, expected {PROTOCOL_VERSION}"
            ))),
            Event::InitFailed { kind, text } => {
                self.reap(KillReason::Shutdown);
                Err(PoolError::InitFailed(reported_failure(
                    kind,
                    OVERFLOW_ELSEWHERE,
                    &text,
                    None,
                )))
            }
            other => Err(PoolError::Protocol(format!("unexpected event {other:?}"))),
        }
    }

    /// Sends a command.
    pub(super) fn send(&mut self, command: &Request) -> io::Result<()> {
        if let Request::Round { .. } = command {
            self.tested = true;
        }
        self.commands.write_all(&command.encode())
    }

    /// The descriptor to poll for events.
    pub(super) fn event_fd(&self) -> BorrowedFd<'_> {
        self.events.as_fd()
    }

    /// Appends the events that arrived to `out`; true once the worker closed
    /// its end (it died or exited).
    pub(super) fn read_events(&mut self, out: &mut Vec<Event>) -> io::Result<bool> {
        let mut buf = [0u8; 64 * 1024];
        let eof = loop {
            match self.events.read(&mut buf) {
                Ok(0) => break true,
                Ok(n) => self.pending.extend_from_slice(&buf[..n]),
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => break false,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => return Err(err),
            }
        };
        let mut used = 0;
        while let Some((body, len)) = next_frame(&self.pending[used..]) {
            let event = Event::decode(body)
                .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "bad worker event"))?;
            used += len;
            if let Some(event) = self.lifecycle(event) {
                out.push(event);
            }
        }
        self.pending.drain(..used);
        Ok(eof)
    }

    /// Takes in hellos and deaths of test processes; other events are the
    /// caller's.
    fn lifecycle(&mut self, event: Event) -> Option<Event> {
        match event {
            Event::Hello {
                version,
                typed,
                pid,
            } if version == PROTOCOL_VERSION => {
                self.typed = typed;
                self.pid = Some(pid);
                self.forks = pid != self.child.id();
                self.awaiting_hello = false;
                self.tested = false;
                None
            }
            Event::ChildDied { status } => {
                self.death = Some(Death {
                    status: std::os::unix::process::ExitStatusExt::from_raw(status),
                    kill_reason: self.kill_reason.take(),
                });
                self.awaiting_hello = true;
                // Forget the pid before the fork server may reap it.
                self.pid = None;
                let _ = self.send(&Request::Release);
                None
            }
            other => Some(other),
        }
    }

    /// The fork server's report of its test process's death, once read.
    pub(super) fn take_death(&mut self) -> Option<Death> {
        self.death.take()
    }

    /// Under a fork server, kills the test process for `reason` and waits
    /// for the report of its death (events read meanwhile go to `out`);
    /// the worker then forks the next one. `None` without a fork server,
    /// or when the report does not come: the caller kills the worker.
    pub(super) fn kill_test(&mut self, reason: KillReason, out: &mut Vec<Event>) -> Option<Death> {
        if !self.forks {
            return None;
        }
        let mut eof = self.read_events(out).ok()?;
        if self.death.is_none() {
            self.kill_reason = Some(reason);
            // The pid is our worker's child, which the worker does not
            // reap before we read of its death, so it is not reused.
            let pid = self.pid.and_then(|pid| Pid::from_raw(pid as i32))?;
            let _ = kill_process(pid, Signal::KILL);
        }
        let deadline = Instant::now() + EXIT_GRACE;
        loop {
            if let Some(death) = self.death.take() {
                return Some(death);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if eof || left.is_zero() {
                return None;
            }
            wait_readable(&[self.event_fd()], left.as_millis().max(1) as i32).ok()?;
            eof = self.read_events(out).ok()?;
        }
    }

    /// Collects the exit status of a worker that closed its event pipe: it
    /// is exiting, so wait for it (killing it only if it lingers).
    pub(super) fn reap_exited(&mut self) -> ExitStatus {
        let deadline = Instant::now() + EXIT_GRACE;
        while Instant::now() < deadline {
            match self.child.try_wait() {
                Ok(Some(status)) => return status,
                Ok(None) => std::thread::sleep(std::time::Duration::from_micros(50)),
                Err(_) => break,
            }
        }
        self.reap(KillReason::Shutdown)
    }

    /// Kills the worker for `reason` (unless it already died of its own) and
    /// collects its exit status.
    pub(super) fn reap(&mut self, reason: KillReason) -> ExitStatus {
        if self.kill_reason.is_none() && self.child.try_wait().ok().flatten().is_none() {
            self.kill_reason = Some(reason);
        }
        let _ = self.child.kill();
        loop {
            match self.child.wait() {
                Ok(status) => return status,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return std::os::unix::process::ExitStatusExt::from_raw(0),
            }
        }
    }

    /// Resident set size in megabytes, from `/proc`: the test process's
    /// and its test's fork's (`forks`).
    pub(super) fn rss_mb(&self) -> Option<u64> {
        let resident = |pid: u32| -> Option<u64> {
            let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()?;
            statm.split_whitespace().nth(1)?.parse().ok()
        };
        let mut processes = super::forks::with_children(self.pid?).into_iter();
        let mut pages = resident(processes.next()?)?;
        pages += processes.filter_map(resident).sum::<u64>();
        let page = rustix::param::page_size() as u64;
        Some((pages * page) >> 20)
    }

    /// Drops old stderr output so a chatty target cannot fill the disk.
    pub(super) fn trim_stderr(&mut self) {
        if self.stderr.metadata().is_ok_and(|m| m.len() > STDERR_KEEP) {
            let _ = self.stderr.set_len(0);
        }
    }

    /// What the worker's test processes wrote to stderr since the previous
    /// death (its last 16 KiB at most): the tests in between passed, so a
    /// panic printed there is the dying test's.
    pub(super) fn stderr_since_last_death(&mut self) -> String {
        let len = self.stderr.metadata().map_or(0, |m| m.len());
        let from = match self.stderr_mark {
            mark if mark <= len => mark.max(len.saturating_sub(16 * 1024)),
            _ => len.saturating_sub(16 * 1024), // Trimmed since.
        };
        self.stderr_mark = len;
        let mut text = Vec::new();
        if self.stderr.seek(SeekFrom::Start(from)).is_ok() {
            let _ = (&mut self.stderr).take(len - from).read_to_end(&mut text);
        }
        String::from_utf8_lossy(&text).into_owned()
    }

    /// Moves the mark of [`Self::stderr_since_last_death`] to the end,
    /// reading nothing.
    pub(super) fn skip_stderr(&mut self) {
        self.stderr_mark = self.stderr.metadata().map_or(0, |m| m.len());
    }

    /// The last few kilobytes the worker wrote to stderr.
    pub(super) fn stderr_tail(&mut self) -> String {
        let len = self.stderr.metadata().map_or(0, |m| m.len());
        let mut tail = Vec::new();
        if self
            .stderr
            .seek(SeekFrom::Start(len.saturating_sub(4096)))
            .is_ok()
        {
            let _ = self.stderr.read_to_end(&mut tail);
        }
        String::from_utf8_lossy(&tail).into_owned()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.reap(KillReason::Shutdown);
    }
}

/// Waits until one of `fds` is readable (or hung up), or `timeout_ms`
/// passes (never, if negative); returns the indices of the ready ones.
pub(crate) fn wait_readable(fds: &[BorrowedFd<'_>], timeout_ms: i32) -> io::Result<Vec<usize>> {
    let mut polls: Vec<PollFd<'_>> = fds
        .iter()
        .map(|fd| PollFd::from_borrowed_fd(*fd, PollFlags::IN))
        .collect();
    let timeout = (timeout_ms >= 0).then(|| Timespec {
        tv_sec: (timeout_ms / 1000).into(),
        tv_nsec: ((timeout_ms % 1000) * 1_000_000).into(),
    });
    match rustix::event::poll(&mut polls, timeout.as_ref()) {
        Ok(_) => {}
        Err(Errno::INTR) => return Ok(Vec::new()),
        Err(err) => return Err(err.into()),
    }
    Ok(polls
        .iter()
        .enumerate()
        .filter(|(_, p)| !p.revents().is_empty())
        .map(|(i, _)| i)
        .collect())
}
