//! The process groups cargo-reduce has started and not yet ended (test
//! commands, cargo builds), so that leaving at once (a second Ctrl-C) can
//! end them first: nothing a run started outlives it.
//!
//! A SIGKILL cannot be caught, so the binary also starts a *guardian*
//! ([`start_guardian`]): a copy of itself in a process group of its own
//! that learns every group through a pipe and, when the pipe closes
//! because cargo-reduce died however it died, kills the groups still
//! registered. A forking test's `sleep 1000 &` then dies with the run.

use std::io::{BufRead, Write};
use std::os::unix::process::CommandExt;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::Mutex;

use rustix::process::{kill_process_group, Pid, Signal};

/// Process groups to kill at once.
#[derive(Debug)]
struct Groups(Mutex<Vec<Pid>>);

impl Groups {
    const fn new() -> Self {
        Groups(Mutex::new(Vec::new()))
    }

    fn list(&self) -> std::sync::MutexGuard<'_, Vec<Pid>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn add(&self, pid: Pid) {
        self.list().push(pid);
    }

    fn remove(&self, pid: Pid) {
        let mut groups = self.list();
        if let Some(i) = groups.iter().position(|p| *p == pid) {
            groups.swap_remove(i);
        }
    }

    fn kill_all(&self) {
        for pid in self.list().iter() {
            let _ = kill_process_group(*pid, Signal::KILL);
        }
    }
}

/// The groups this process started and has not ended.
static GROUPS: Groups = Groups::new();

/// The pipe to the guardian, once started.
static GUARDIAN: Mutex<Option<ChildStdin>> = Mutex::new(None);

/// The argument that makes the binary a guardian (not a user command).
pub(crate) const GUARDIAN_ARG: &str = "__cargo-reduce-guardian";

/// Starts the guardian: `exe GUARDIAN_ARG`, reading `+PGID`/`-PGID` lines.
/// Without it (a library user's process), groups are still killed on a
/// second Ctrl-C, only not after a SIGKILL.
pub(crate) fn start_guardian(exe: &std::path::Path) -> std::io::Result<()> {
    let child = Command::new(exe)
        .arg(GUARDIAN_ARG)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()?;
    *GUARDIAN.lock().unwrap_or_else(|e| e.into_inner()) = child.stdin;
    Ok(())
}

/// The guardian's life: follow the registrations on stdin; when it closes,
/// kill the groups still registered.
pub(crate) fn guard(input: impl BufRead) {
    let mut groups: Vec<Pid> = Vec::new();
    for line in input.lines().map_while(Result::ok) {
        let (sign, number) = line.split_at(line.len().min(1));
        let Some(pid) = number.parse().ok().and_then(Pid::from_raw) else {
            continue;
        };
        match sign {
            "+" => groups.push(pid),
            "-" => groups.retain(|p| *p != pid),
            _ => {}
        }
    }
    for pid in groups {
        let _ = kill_process_group(pid, Signal::KILL);
    }
}

/// Makes the child of `command` (started with `process_group(0)`)
/// announce its own group to the guardian between fork and exec, before
/// it can start anything: [`register`] runs only after `spawn` returns,
/// and a SIGKILL in between would otherwise leave the group unguarded
/// (the children of a forking test running on). A group announced twice
/// is harmless, and the guardian pipe is open in the child until exec
/// closes it, so the guardian reads the announcement even if cargo-reduce
/// is already gone.
pub(crate) fn announce_before_exec(command: &mut Command) {
    use std::os::fd::AsRawFd;
    let Some(fd) = GUARDIAN
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .map(|pipe| pipe.as_raw_fd())
    else {
        return;
    };
    // SAFETY: between fork and exec the hook only formats a number on the
    // stack and makes two system calls (getpid, write), which are
    // async-signal-safe; `fd` stays open in the child until exec.
    unsafe {
        command.pre_exec(move || {
            let mut line = [0u8; 16];
            let len = group_line(rustix::process::getpid().as_raw_nonzero().get(), &mut line);
            let _ = rustix::io::write(std::os::fd::BorrowedFd::borrow_raw(fd), &line[..len]);
            Ok(())
        });
    }
}

/// Writes `+PGID\n` into `line` without allocating; returns its length.
fn group_line(pgid: i32, line: &mut [u8; 16]) -> usize {
    let mut digits = [0u8; 10];
    let (mut value, mut n) = (pgid.unsigned_abs(), 0);
    loop {
        digits[n] = b'0' + (value % 10) as u8;
        n += 1;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    line[0] = b'+';
    for i in 0..n {
        line[1 + i] = digits[n - 1 - i];
    }
    line[1 + n] = b'\n';
    n + 2
}

/// Tells the guardian, if there is one.
fn tell_guardian(line: &str) {
    if let Some(pipe) = GUARDIAN.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        let _ = writeln!(pipe, "{line}");
    }
}

/// A registered process group, unregistered on drop. The owner still kills
/// and reaps its group itself; the registry only serves [`kill_all`].
#[derive(Debug)]
pub(crate) struct Registered(Pid);

/// Registers the group `pgid` (a child started with `process_group(0)`).
pub(crate) fn register(pgid: u32) -> Option<Registered> {
    let pid = Pid::from_raw(i32::try_from(pgid).ok()?)?;
    GROUPS.add(pid);
    tell_guardian(&format!("+{pgid}"));
    Some(Registered(pid))
}

impl Drop for Registered {
    fn drop(&mut self) {
        GROUPS.remove(self.0);
        tell_guardian(&format!("-{}", self.0.as_raw_nonzero()));
    }
}

/// Kills every registered group (SIGKILL); for a process about to exit.
pub(crate) fn kill_all() {
    GROUPS.kill_all();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guardian_kills_what_is_still_registered_when_its_pipe_closes() {
        let spawn = || {
            Command::new("sleep")
                .arg("1000")
                .process_group(0)
                .spawn()
                .unwrap()
        };
        let (mut ended, mut kept) = (spawn(), spawn());
        let input = format!("+{}\n+{}\n-{}\n", ended.id(), kept.id(), kept.id());
        guard(input.as_bytes());
        assert!(!ended.wait().unwrap().success(), "killed");
        assert!(
            kept.try_wait().unwrap().is_none(),
            "unregistered: left alone"
        );
        kept.kill().unwrap();
        kept.wait().unwrap();
    }

    #[test]
    fn the_group_line_is_what_the_guardian_reads() {
        let mut line = [0u8; 16];
        let len = group_line(4_194_303, &mut line);
        assert_eq!(&line[..len], b"+4194303\n");
        let len = group_line(7, &mut line);
        assert_eq!(&line[..len], b"+7\n");
    }

    /// On a list of its own: the process-wide one holds the groups of
    /// other tests running at the same time (the command oracle's).
    #[test]
    fn kill_all_ends_the_groups_listed() {
        let mut child = Command::new("sleep")
            .arg("1000")
            .process_group(0)
            .spawn()
            .unwrap();
        let pid = Pid::from_raw(child.id() as i32).unwrap();
        let groups = Groups::new();
        groups.add(pid);
        groups.kill_all();
        assert!(!child.wait().unwrap().success());
        groups.remove(pid);
        assert!(groups.list().is_empty());
    }
}
