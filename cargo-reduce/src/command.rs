//! The external-command oracle of `cargo reduce file`.
//!
//! Each candidate is written into a private temporary directory (0700,
//! named `cargo-reduce-<pid>-…`, removed by a later run if this one is
//! killed) under the input's own file name and with its permission bits
//! (tools often look at the extension; a script stays executable), the command
//! runs in the invoking directory with the candidate's absolute path in
//! place of every `{}` argument (or appended), and exit status 0 means
//! interesting. Every test runs in a process group of its own, which is
//! killed when the test ends (by exiting, by a timeout or by a cancel), so
//! nothing a test leaves running in the background outlives it, and a
//! terminal's Ctrl-C reaches cargo-reduce alone, which then stops the tests
//! it started.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::fd::OwnedFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::io::Errno;
use rustix::process::{
    geteuid, kill_process_group, pidfd_open, test_kill_process, waitid, Pid, PidfdFlags, Signal,
    WaitId, WaitIdOptions,
};

use crate::engine::{Cancel, Candidate, Oracle, OracleError, Outcome};
use crate::unit::{concat_into, ByteAtom};

/// Why a test command cannot be used, or a test cannot run.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// No command was given after `--`.
    #[error("no test command given: add one after `--`, e.g. `-- grep -q needle {{}}`")]
    Missing,
    /// The program does not exist.
    #[error("test command `{0}` not found{where_}", where_ = if .0.contains('/') { "" } else { " in PATH" })]
    NotFound(String),
    /// The program exists but cannot be executed.
    #[error("test command `{0}` is not executable: run `chmod +x {0}` or call it through its interpreter")]
    NotExecutable(String),
    /// The program could not be started (after [`TestCommand::new`] found
    /// it).
    #[error("cannot run the test command `{command}`: {source}")]
    Spawn {
        /// The command as the user typed it.
        command: String,
        /// What failed.
        source: io::Error,
    },
    /// Waiting for the test command failed (a system error, not the
    /// command's fault).
    #[error("cannot wait for the test command: {0}")]
    Wait(#[source] io::Error),
    /// The temporary directory cannot hold the candidates: `TMPDIR` is
    /// missing, not a directory, not writable or full, or a test deleted
    /// its private directory. Not the test command's fault as such: the
    /// cure is a writable `TMPDIR`. The message names the directory
    /// (never a private directory or file in it).
    #[error("cannot write candidates in the temporary directory `{}`: {source}; set TMPDIR to a writable directory (and keep the test command from deleting its candidate's directory)", path.display())]
    TempDir {
        /// The temporary directory (`TMPDIR`, or `/tmp` without it).
        path: PathBuf,
        /// What failed, without the names of temporary files.
        source: io::Error,
    },
}

impl CommandError {
    fn temp_dir(root: &Path, source: io::Error) -> Self {
        CommandError::TempDir {
            path: root.to_path_buf(),
            source: without_path(source, root),
        }
    }
}

/// `error` without a file name in its message: `tempfile` adds the path it
/// tried to its errors, which would leak a temporary name; the system's
/// own error about `root` says the same without one.
fn without_path(error: io::Error, root: &Path) -> io::Error {
    if error.raw_os_error().is_some() || error.get_ref().is_none() {
        return error;
    }
    match fs::metadata(root) {
        Err(e) => e,
        Ok(m) if !m.is_dir() => Errno::NOTDIR.into(),
        Ok(_) => io::Error::from(error.kind()),
    }
}

/// A test command, resolved: the program and its argument template.
#[derive(Debug, Clone)]
pub struct TestCommand {
    program: PathBuf,
    args: Vec<OsString>,
    display: String,
}

impl TestCommand {
    /// Resolves `argv[0]` (through `PATH` unless it has a `/`) and checks
    /// that it can run.
    pub fn new(argv: &[OsString]) -> Result<Self, CommandError> {
        let (program, args) = argv.split_first().ok_or(CommandError::Missing)?;
        let name = program.to_string_lossy().into_owned();
        let path = Path::new(program);
        let resolved = if name.contains('/') {
            if !path.is_file() {
                return Err(CommandError::NotFound(name));
            }
            path.to_path_buf()
        } else {
            which::which(program).map_err(|_| CommandError::NotFound(name.clone()))?
        };
        let mode = fs::metadata(&resolved)
            .map(|m| m.permissions().mode())
            .unwrap_or(0);
        if mode & 0o111 == 0 {
            return Err(CommandError::NotExecutable(name));
        }
        let display = argv
            .iter()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ");
        Ok(TestCommand {
            program: resolved,
            args: args.to_vec(),
            display,
        })
    }

    /// The command as the user typed it.
    pub fn display(&self) -> &str {
        &self.display
    }

    fn command_for(&self, candidate: &Path) -> Command {
        let mut cmd = Command::new(&self.program);
        let mut substituted = false;
        for arg in &self.args {
            if arg == "{}" {
                cmd.arg(candidate);
                substituted = true;
            } else {
                cmd.arg(arg);
            }
        }
        if !substituted {
            cmd.arg(candidate);
        }
        cmd
    }
}

/// How one run of the test command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunStatus {
    /// Exited with this code.
    Exited(i32),
    /// Killed by this signal (not by us).
    Signaled(i32),
    /// Ran past the timeout and was killed.
    TimedOut,
    /// Was no longer needed and was killed.
    Cancelled,
}

impl RunStatus {
    fn from_exit(status: ExitStatus) -> Self {
        match (status.code(), status.signal()) {
            (Some(code), _) => RunStatus::Exited(code),
            (None, Some(signal)) => RunStatus::Signaled(signal),
            (None, None) => RunStatus::Exited(-1),
        }
    }

    /// Exit status 0: the failure is there.
    pub fn is_interesting(self) -> bool {
        self == RunStatus::Exited(0)
    }
}

impl std::fmt::Display for RunStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunStatus::Exited(code) => write!(f, "exit status {code}"),
            RunStatus::Signaled(signal) => write!(f, "killed by signal {signal}"),
            RunStatus::TimedOut => f.write_str("timed out"),
            RunStatus::Cancelled => f.write_str("cancelled"),
        }
    }
}

/// One run of the test command.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// How it ended.
    pub status: RunStatus,
    /// Wall time.
    pub elapsed: Duration,
    /// The last lines of its standard error, where the candidate's
    /// temporary path reads as its file name (INPUT's).
    pub stderr_tail: String,
}

/// The private directories are `cargo-reduce-<pid>-<random>` in the
/// temporary directory: the pid tells a later run whether their owner is
/// gone (a run killed by SIGKILL cannot remove them itself).
const DIR_PREFIX: &str = "cargo-reduce-";

/// A private directory for one test at a time (mode 0700): the candidate
/// file (under the input's name, in a subdirectory, also 0700) and the
/// captured standard error.
struct Slot {
    _dir: tempfile::TempDir,
    candidate: PathBuf,
    stderr: PathBuf,
    buffer: Vec<u8>,
}

impl Slot {
    fn new(root: &Path, file_name: &OsStr) -> io::Result<Self> {
        let dir = tempfile::Builder::new()
            .prefix(&format!("{DIR_PREFIX}{}-", std::process::id()))
            .permissions(fs::Permissions::from_mode(0o700))
            .tempdir_in(root)?;
        let inner = dir.path().join("candidate");
        fs::DirBuilder::new().mode(0o700).create(&inner)?;
        let candidate = inner.join(file_name);
        let stderr = dir.path().join("stderr");
        Ok(Slot {
            _dir: dir,
            candidate,
            stderr,
            buffer: Vec::new(),
        })
    }
}

/// Writes the candidate as a new file with exactly the permission bits
/// `mode`, whatever the umask. A new file each time: the last one has
/// `mode` too, which may not allow writing, and the test may have changed it.
fn write_candidate(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(bytes)?;
    file.set_permissions(fs::Permissions::from_mode(mode))
}

/// Removes the `cargo-reduce-<pid>-*` directories in `root` that belong to
/// this user and whose process no longer exists: what runs killed by
/// SIGKILL (or a crash) left behind. Best effort; errors are ignored.
fn remove_stale_dirs(root: &Path) {
    let Ok(entries) = fs::read_dir(root) else {
        return;
    };
    let me = geteuid().as_raw();
    for entry in entries.flatten() {
        let Some(pid) = owner_pid(&entry.file_name()) else {
            continue;
        };
        // The entry's own metadata: a symbolic link is never followed.
        let ours = entry.metadata().is_ok_and(|m| m.is_dir() && m.uid() == me);
        if ours && !process_exists(pid) {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// The pid in a private directory's name `cargo-reduce-<pid>-<random>`
/// (also the name of an output's temporary file, after its dot).
pub(crate) fn owner_pid(name: &OsStr) -> Option<Pid> {
    let rest = name.to_str()?.strip_prefix(DIR_PREFIX)?;
    let (pid, random) = rest.split_once('-')?;
    if random.is_empty() || pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Pid::from_raw(pid.parse().ok()?)
}

/// Whether a process `pid` exists (a zombie does; so does one of another
/// user, which cannot have made a directory of ours but may reuse the pid).
pub(crate) fn process_exists(pid: Pid) -> bool {
    !matches!(test_kill_process(pid), Err(Errno::SRCH))
}

/// Runs the test command on candidates; an [`Oracle`] over byte atoms.
pub struct CommandOracle {
    command: TestCommand,
    file_name: OsString,
    /// The candidates' permission bits: INPUT's.
    mode: u32,
    /// Where the private directories go (`TMPDIR`).
    temp_root: PathBuf,
    timeout: Mutex<Duration>,
    /// Free slots; a test takes one and gives it back, so `-j N` tests use
    /// N directories however many tests run.
    slots: Mutex<Vec<Slot>>,
}

/// How often a running test looks at its cancel token. A child that exits
/// wakes the waiter at once (through a pidfd); this only bounds how late a
/// cancel is seen.
const CANCEL_POLL: Duration = Duration::from_millis(10);

impl CommandOracle {
    /// An oracle running `command` on candidates named `file_name` with
    /// permission bits `mode` (INPUT's: `0o777` of its mode is used), each
    /// test killed after `timeout`. Removes the private directories that
    /// earlier runs, since dead, left in the temporary directory.
    pub fn new(command: TestCommand, file_name: &OsStr, mode: u32, timeout: Duration) -> Self {
        let temp_root = std::env::temp_dir();
        remove_stale_dirs(&temp_root);
        CommandOracle {
            command,
            file_name: file_name.to_owned(),
            mode: mode & 0o777,
            temp_root,
            timeout: Mutex::new(timeout),
            slots: Mutex::new(Vec::new()),
        }
    }

    /// Changes the per-test timeout (after the input's own runs told how
    /// long a test takes).
    pub fn set_timeout(&self, timeout: Duration) {
        *self.timeout.lock().expect("timeout lock") = timeout;
    }

    /// The command.
    pub fn command(&self) -> &TestCommand {
        &self.command
    }

    /// The private directories go into `root` rather than `TMPDIR`.
    #[cfg(test)]
    fn in_temp_dir(mut self, root: &Path) -> Self {
        self.temp_root = root.to_path_buf();
        self
    }

    /// Runs the command on the bytes `write` puts into the buffer.
    pub fn run_with(
        &self,
        write: impl FnOnce(&mut Vec<u8>),
        cancel: &Cancel<'_>,
    ) -> Result<RunResult, CommandError> {
        let mut slot = match self.slots.lock().expect("slot lock").pop() {
            Some(slot) => slot,
            None => Slot::new(&self.temp_root, &self.file_name)
                .map_err(|e| CommandError::temp_dir(&self.temp_root, e))?,
        };
        write(&mut slot.buffer);
        let result = self.run_in(&slot, cancel);
        self.slots.lock().expect("slot lock").push(slot);
        result
    }

    /// Runs the command on `bytes`.
    pub fn run(&self, bytes: &[u8], cancel: &Cancel<'_>) -> Result<RunResult, CommandError> {
        self.run_with(
            |buf| {
                buf.clear();
                buf.extend_from_slice(bytes);
            },
            cancel,
        )
    }

    fn run_in(&self, slot: &Slot, cancel: &Cancel<'_>) -> Result<RunResult, CommandError> {
        let temp_dir = |e| CommandError::temp_dir(&self.temp_root, e);
        write_candidate(&slot.candidate, &slot.buffer, self.mode).map_err(temp_dir)?;
        let stderr = fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&slot.stderr)
            .map_err(temp_dir)?;
        let started = Instant::now();
        let mut command = self.command.command_for(&slot.candidate);
        command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .process_group(0);
        crate::children::announce_before_exec(&mut command);
        let mut child = command.spawn().map_err(|source| CommandError::Spawn {
            command: self.command.display.clone(),
            source,
        })?;
        let _group = crate::children::register(child.id());
        let timeout = *self.timeout.lock().expect("timeout lock");
        let status = wait(&mut child, started + timeout, cancel).map_err(CommandError::Wait)?;
        Ok(RunResult {
            status,
            elapsed: started.elapsed(),
            stderr_tail: tail(&slot.stderr).replace(
                &*slot.candidate.to_string_lossy(),
                &self.file_name.to_string_lossy(),
            ),
        })
    }
}

/// Waits for `child` until it exits, `deadline` passes or `cancel` says
/// so; then kills its process group in every case, so nothing the test
/// started outlives it (`sleep 1000 &` in a test that exits at once), and
/// reaps it.
fn wait(child: &mut Child, deadline: Instant, cancel: &Cancel<'_>) -> io::Result<RunStatus> {
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
fn interrupted(signal: i32, cancel: &Cancel<'_>) -> bool {
    if signal != Signal::INT.as_raw() && signal != Signal::TERM.as_raw() {
        return false;
    }
    let until = Instant::now() + INTERRUPT_GRACE;
    loop {
        if cancel.is_cancelled() {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Waits for a child to exit without reaping it, so its process group can
/// still be killed safely afterwards.
enum ExitWatch {
    /// A pidfd, readable once the process exited (Linux 5.3 and later).
    PidFd(OwnedFd),
    /// Without pidfds: `waitid(WNOWAIT)` every [`EXIT_POLL`].
    Poll(Pid),
}

/// How often [`ExitWatch::Poll`] looks.
const EXIT_POLL: Duration = Duration::from_millis(1);

impl ExitWatch {
    fn new(pid: Pid) -> Self {
        match pidfd_open(pid, PidfdFlags::empty()) {
            Ok(fd) => ExitWatch::PidFd(fd),
            Err(_) => ExitWatch::Poll(pid),
        }
    }

    /// Whether the process exited within `timeout`.
    fn wait(&self, timeout: Duration) -> io::Result<bool> {
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

/// The last few lines of a captured stderr file (at most 2 KiB).
fn tail(path: &Path) -> String {
    const MAX: u64 = 2048;
    let mut text = Vec::new();
    if let Ok(mut f) = File::open(path) {
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        let _ = f.seek(SeekFrom::Start(len.saturating_sub(MAX)));
        let _ = f.read_to_end(&mut text);
    }
    let text = String::from_utf8_lossy(&text);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(5)..].join("\n")
}

impl<A: ByteAtom + Sync> Oracle<A> for CommandOracle {
    fn test(
        &self,
        candidate: &Candidate<'_, A>,
        cancel: &Cancel<'_>,
    ) -> Result<Option<Outcome>, OracleError> {
        let run = self.run_with(|buf| concat_into(candidate.iter(), buf), cancel)?;
        Ok(match run.status {
            RunStatus::Cancelled => None,
            status => Some(Outcome::from_bool(status.is_interesting())),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Limits;

    fn oracle(argv: &[&str], timeout_ms: u64) -> CommandOracle {
        oracle_with_mode(argv, 0o644, timeout_ms)
    }

    fn oracle_with_mode(argv: &[&str], mode: u32, timeout_ms: u64) -> CommandOracle {
        let argv: Vec<OsString> = argv.iter().map(OsString::from).collect();
        CommandOracle::new(
            TestCommand::new(&argv).unwrap(),
            OsStr::new("case.txt"),
            mode,
            Duration::from_millis(timeout_ms),
        )
    }

    fn mode_of(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn directories_are_private_and_candidates_keep_the_input_mode() {
        let out = tempfile::tempdir().unwrap();
        let seen = out.path().join("candidate-path");
        // Modes the umask would change, a read-only one (written twice),
        // an executable one; setuid is not passed on.
        for mode in [0o666, 0o444, 0o755, 0o600, 0o4755] {
            let o = oracle_with_mode(
                &[
                    "sh",
                    "-c",
                    "printf %s \"$1\" > \"$0\"",
                    seen.to_str().unwrap(),
                ],
                mode,
                5000,
            );
            let limits = Limits::none();
            for _ in 0..2 {
                let run = o.run(b"bytes", &Cancel::by_limits(&limits)).unwrap();
                assert_eq!(run.status, RunStatus::Exited(0));
            }
            let candidate = PathBuf::from(fs::read_to_string(&seen).unwrap());
            assert_eq!(fs::read(&candidate).unwrap(), b"bytes");
            assert_eq!(mode_of(&candidate), mode & 0o777, "candidate of {mode:o}");
            let inner = candidate.parent().unwrap();
            let dir = inner.parent().unwrap();
            assert_eq!(mode_of(inner), 0o700);
            assert_eq!(mode_of(dir), 0o700);
            assert_eq!(mode_of(&dir.join("stderr")), 0o600);
            let name = dir.file_name().unwrap().to_str().unwrap();
            let own = format!("cargo-reduce-{}-", std::process::id());
            assert!(name.starts_with(&own), "{name}");
            drop(o);
            assert!(!dir.exists(), "removed with the oracle");
        }
    }

    #[test]
    fn stale_directories_of_dead_runs_are_removed() {
        let root = tempfile::tempdir().unwrap();
        let make = |name: String| {
            let dir = root.path().join(name);
            fs::create_dir(&dir).unwrap();
            fs::create_dir(dir.join("candidate")).unwrap();
            fs::write(dir.join("candidate/case.txt"), "x").unwrap();
            dir
        };
        // No process has this pid: the kernel's limit is 2^22.
        let dead = 2_000_000_000;
        let own = std::process::id();
        let stale = make(format!("cargo-reduce-{dead}-a1B2c3"));
        let live = make(format!("cargo-reduce-{own}-a1B2c3"));
        let kept = [
            live.clone(),
            make("cargo-reduce-a1B2c3".to_string()), // older runs: no pid
            make(format!("cargo-reduce-{dead}-")),
            make(format!("cargo-reducer-{dead}-a1B2c3")),
            make(format!("other-{dead}-a1B2c3")),
        ];
        let file = root.path().join(format!("cargo-reduce-{dead}-file"));
        fs::write(&file, "").unwrap();
        let link = root.path().join(format!("cargo-reduce-{dead}-link"));
        std::os::unix::fs::symlink(&live, &link).unwrap();
        // Another user's: only root can make one.
        let foreign = geteuid().is_root().then(|| {
            let dir = make(format!("cargo-reduce-{dead}-foreign"));
            std::os::unix::fs::chown(&dir, Some(12345), Some(12345)).unwrap();
            dir
        });
        remove_stale_dirs(root.path());
        assert!(!stale.exists(), "stale directory removed");
        for dir in kept.iter().chain(&foreign) {
            assert!(dir.join("candidate/case.txt").exists(), "{}", dir.display());
        }
        assert!(file.exists());
        assert!(fs::symlink_metadata(&link).is_ok());
        assert_eq!(
            owner_pid(OsStr::new("cargo-reduce-17-x")),
            Pid::from_raw(17)
        );
        assert_eq!(owner_pid(OsStr::new("cargo-reduce-0-x")), None);
        assert_eq!(owner_pid(OsStr::new("cargo-reduce-+17-x")), None);
    }

    #[test]
    fn a_new_oracle_removes_stale_directories_in_the_temp_dir() {
        let stale = std::env::temp_dir().join("cargo-reduce-2000000001-StAlE0");
        fs::create_dir_all(stale.join("candidate")).unwrap();
        let _oracle = oracle(&["true"], 5000);
        assert!(!stale.exists());
    }

    #[test]
    fn the_candidate_path_replaces_braces_and_keeps_the_file_name() {
        let o = oracle(
            &[
                "sh",
                "-c",
                "case \"$1\" in /*/case.txt) grep -q needle \"$1\";; *) exit 9;; esac",
                "sh",
                "{}",
            ],
            5000,
        );
        let limits = Limits::none();
        let cancel = Cancel::by_limits(&limits);
        assert_eq!(
            o.run(b"a needle", &cancel).unwrap().status,
            RunStatus::Exited(0)
        );
        assert_eq!(
            o.run(b"a haystack", &cancel).unwrap().status,
            RunStatus::Exited(1)
        );
    }

    #[test]
    fn the_path_is_appended_without_braces() {
        let o = oracle(&["grep", "-q", "x"], 5000);
        let limits = Limits::none();
        assert!(o
            .run(b"x", &Cancel::by_limits(&limits))
            .unwrap()
            .status
            .is_interesting());
    }

    #[test]
    fn a_hanging_test_is_killed_with_its_children() {
        let o = oracle(&["sh", "-c", "sleep 30 & sleep 30; true"], 200);
        let limits = Limits::none();
        let started = Instant::now();
        let run = o.run(b"", &Cancel::by_limits(&limits)).unwrap();
        assert_eq!(run.status, RunStatus::TimedOut);
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    /// Whether `pid` runs (a zombie does not: a PID 1 that does not reap
    /// leaves the killed orphan as one).
    fn running(pid: i32) -> bool {
        match fs::read_to_string(format!("/proc/{pid}/stat")) {
            Ok(stat) => {
                let state = stat.rsplit(')').next().unwrap_or("").trim_start();
                !state.starts_with(['Z', 'X'])
            }
            Err(_) => false,
        }
    }

    #[test]
    fn background_processes_die_when_the_test_exits() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let o = oracle(
            &[
                "sh",
                "-c",
                "sleep 1000 & echo $! > \"$1\"; grep -q needle \"$2\"",
                "sh",
                pid_file.to_str().unwrap(),
                "{}",
            ],
            5000,
        );
        let limits = Limits::none();
        let run = o.run(b"needle", &Cancel::by_limits(&limits)).unwrap();
        assert_eq!(run.status, RunStatus::Exited(0));
        let pid: i32 = fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // SIGKILL is sent before `run` returns; the orphan is reaped soon after.
        let until = Instant::now() + Duration::from_secs(5);
        while running(pid) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        let survived = running(pid);
        if survived {
            let _ = rustix::process::kill_process(Pid::from_raw(pid).unwrap(), Signal::KILL);
        }
        assert!(!survived, "the background `sleep 1000` outlived its test");
    }

    #[test]
    fn a_test_killed_by_the_run_s_interrupt_has_no_verdict() {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;
        let flag = Arc::new(AtomicBool::new(false));
        let limits = Limits::none().with_interrupt(flag.clone());
        let cancel = Cancel::by_limits(&limits);
        // Without an interrupt, a test that dies of SIGTERM has a verdict.
        let o = oracle(&["sh", "-c", "kill -TERM $$"], 5000);
        assert_eq!(o.run(b"", &cancel).unwrap().status, RunStatus::Signaled(15));
        // The interrupt is seen a moment after the signal.
        let setter = {
            let flag = flag.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(50));
                flag.store(true, Ordering::SeqCst);
            })
        };
        assert!(interrupted(Signal::INT.as_raw(), &cancel));
        setter.join().unwrap();
        assert!(interrupted(Signal::TERM.as_raw(), &cancel));
        assert!(!interrupted(Signal::KILL.as_raw(), &cancel), "not ours");
    }

    #[test]
    fn exits_are_seen_without_reaping() {
        for fallback in [false, true] {
            let mut child = Command::new("sh").args(["-c", "exit 3"]).spawn().unwrap();
            let pid = Pid::from_raw(child.id() as i32).unwrap();
            let exit = if fallback {
                ExitWatch::Poll(pid)
            } else {
                ExitWatch::new(pid)
            };
            let until = Instant::now() + Duration::from_secs(5);
            while !exit.wait(Duration::from_millis(10)).unwrap() {
                assert!(
                    Instant::now() < until,
                    "no exit seen (fallback: {fallback})"
                );
            }
            // Not reaped yet: the status is still there to collect.
            assert_eq!(child.wait().unwrap().code(), Some(3));
        }
    }

    /// The error of a run that cannot write its candidate, checked for a
    /// message that names `root`, says what to do and leaks no temporary name.
    fn expect_temp_dir_error(result: Result<RunResult, CommandError>, root: &Path) {
        let err = result.unwrap_err();
        let message = err.to_string();
        assert!(
            matches!(&err, CommandError::TempDir { path, .. } if path == root),
            "{err:?}"
        );
        assert!(
            message.contains(&format!("`{}`", root.display())),
            "{message}"
        );
        assert!(
            message.contains("set TMPDIR to a writable directory"),
            "{message}"
        );
        assert!(!message.contains(DIR_PREFIX), "{message}");
    }

    #[test]
    fn a_missing_or_unusable_temp_dir_is_its_own_error() {
        let limits = Limits::none();
        let cancel = Cancel::by_limits(&limits);
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing");
        let file = dir.path().join("file");
        fs::write(&file, "").unwrap();
        for root in [missing, file] {
            let o = oracle(&["true"], 5000).in_temp_dir(&root);
            expect_temp_dir_error(o.run(b"x", &cancel), &root);
        }
    }

    #[test]
    fn a_test_that_deletes_its_directory_gets_the_temp_dir_error() {
        let limits = Limits::none();
        let cancel = Cancel::by_limits(&limits);
        let root = tempfile::tempdir().unwrap();
        let o = oracle(
            &[
                "sh",
                "-c",
                "rm -rf \"$(dirname \"$(dirname \"$1\")\")\"",
                "sh",
                "{}",
            ],
            5000,
        )
        .in_temp_dir(root.path());
        assert_eq!(o.run(b"x", &cancel).unwrap().status, RunStatus::Exited(0));
        expect_temp_dir_error(o.run(b"x", &cancel), root.path());
    }

    #[test]
    fn stderr_names_the_candidate_by_its_file_name() {
        let o = oracle(
            &["sh", "-c", "echo \"$1: bad\" >&2; exit 1", "sh", "{}"],
            5000,
        );
        let limits = Limits::none();
        let run = o.run(b"", &Cancel::by_limits(&limits)).unwrap();
        assert_eq!(run.stderr_tail, "case.txt: bad");
    }

    #[test]
    fn stderr_tail_is_captured() {
        let o = oracle(&["sh", "-c", "echo one >&2; echo two >&2; exit 3"], 5000);
        let limits = Limits::none();
        let run = o.run(b"", &Cancel::by_limits(&limits)).unwrap();
        assert_eq!(run.status, RunStatus::Exited(3));
        assert_eq!(run.stderr_tail, "one\ntwo");
    }

    #[test]
    fn bad_commands_are_named() {
        let missing = TestCommand::new(&[OsString::from("no-such-command-xyz")]).unwrap_err();
        assert_eq!(
            missing.to_string(),
            "test command `no-such-command-xyz` not found in PATH"
        );
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("t.sh");
        fs::write(&script, "#!/bin/sh\n").unwrap();
        let err = TestCommand::new(&[script.clone().into_os_string()]).unwrap_err();
        assert!(matches!(err, CommandError::NotExecutable(_)), "{err}");
        assert!(matches!(
            TestCommand::new(&[]).unwrap_err(),
            CommandError::Missing
        ));
    }
}
