//! Waiting for a test: until it exits, its deadline passes or the run is
//! cancelled; then its whole process group is killed and it is reaped.

use std::io;
use std::os::fd::OwnedFd;
use std::process::Child;
use std::time::{Duration, Instant};

use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::io::Errno;
use rustix::process::{
    kill_process_group, pidfd_open, waitid, Pid, PidfdFlags, Signal, WaitId, WaitIdOptions,
};

use super::RunStatus;
use crate::engine::Cancel;

/// How often a running test looks at its cancel token. A child that exits
/// wakes the waiter at once (through a pidfd); this only bounds how late a
/// cancel is seen.
const CANCEL_POLL: Duration = Duration::from_millis(10);

/// Waits for `child` until it exits, `deadline` passes or `cancel` says
/// so; then kills its process group in every case, so nothing the test
/// started outlives it (`sleep 1000 &` in a test that exits at once), and
/// reaps it.
pub(crate) fn wait(
    child: &mut Child,
    deadline: Instant,
    cancel: &Cancel<'_>,
) -> io::Result<RunStatus> {
    let pid = Pid::from_raw(child.id() as i32).expect("a child's pid is positive");
    let exit = ExitWatch::new(pid);
    let stopped = loop {
        let now = Instant::now();
        if now >= deadline {
            break Some(RunStatus::TimedOut);
        }
        if cancel.is_cancelled() {
            break Some(RunStatus::Cancelled);
        }
        if exit.wait((deadline - now).min(CANCEL_POLL))? {
            break None;
        }
    };
    // The child leads its own group (process_group(0)), so its pid is the
    // group id; it has not been reaped yet (after an exit it is a zombie),
    // so the id cannot have been reused: the signal reaches the test's
    // processes and nothing else. Processes that left the group (setsid,
    // daemons) are out of reach.
    let _ = kill_process_group(pid, Signal::KILL);
    let status = child.wait()?;
    Ok(
        stopped.unwrap_or_else(|| match RunStatus::from_exit(status) {
            RunStatus::Signaled(signal) if interrupted(signal, cancel) => RunStatus::Cancelled,
            status => status,
        }),
    )
}

/// How long a test that died of SIGINT or SIGTERM waits for the run's own
/// interrupt to be seen (the handler sets it a moment after the signal).
const INTERRUPT_GRACE: Duration = Duration::from_millis(200);

/// Whether a test that died of `signal` was hit by the interrupt that
/// stops the run: a SIGINT or SIGTERM sent to cargo-reduce's process
/// group (a terminal's Ctrl-C, `kill -- -PGID`) also reaches a test that
/// is starting, before it moves to a process group of its own. Such a
/// test has no verdict: taken for "not interesting", it made INPUT's
/// checks or the final check fail as flaky.
pub(super) fn interrupted(signal: i32, cancel: &Cancel<'_>) -> bool {
    if signal != Signal::INT.as_raw() && signal != Signal::TERM.as_raw() {
        return false;
    }
    let until = Instant::now() + INTERRUPT_GRACE;
    loop {
        // Past the grace, one last look: a thread the machine ran late
        // still sees a stop that came within it.
        let late = Instant::now() >= until;
        if cancel.is_cancelled() || late {
            return cancel.is_cancelled();
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Waits for a child to exit without reaping it, so its process group can
/// still be killed safely afterwards.
pub(super) enum ExitWatch {
    /// A pidfd, readable once the process exited (Linux 5.3 and later).
    PidFd(OwnedFd),
    /// Without pidfds: `waitid(WNOWAIT)` every [`EXIT_POLL`].
    Poll(Pid),
}

/// How often [`ExitWatch::Poll`] looks.
const EXIT_POLL: Duration = Duration::from_millis(1);

impl ExitWatch {
    pub(super) fn new(pid: Pid) -> Self {
        match pidfd_open(pid, PidfdFlags::empty()) {
            Ok(fd) => ExitWatch::PidFd(fd),
            Err(_) => ExitWatch::Poll(pid),
        }
    }

    /// Whether the process exited within `timeout`.
    pub(super) fn wait(&self, timeout: Duration) -> io::Result<bool> {
        match self {
            ExitWatch::PidFd(fd) => {
                let mut fds = [PollFd::new(fd, PollFlags::IN)];
                let timeout = Timespec {
                    tv_sec: timeout.as_secs() as i64,
                    tv_nsec: timeout.subsec_nanos().into(),
                };
                match poll(&mut fds, Some(&timeout)) {
                    Ok(ready) => Ok(ready > 0),
                    Err(Errno::INTR) => Ok(false),
                    Err(err) => Err(err.into()),
                }
            }
            ExitWatch::Poll(pid) => {
                let until = Instant::now() + timeout;
                loop {
                    let options =
                        WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
                    match waitid(WaitId::Pid(*pid), options) {
                        Ok(Some(_)) => return Ok(true),
                        Ok(None) | Err(Errno::INTR) => {}
                        Err(err) => return Err(err.into()),
                    }
                    let now = Instant::now();
                    if now >= until {
                        return Ok(false);
                    }
                    std::thread::sleep(EXIT_POLL.min(until - now));
                }
            }
        }
    }
}
