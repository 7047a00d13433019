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

mod filter;
mod slot;
#[cfg(test)]
mod tests;
pub(crate) mod wait;

pub(crate) use filter::filter;
pub(crate) use slot::{owner_pid, process_exists};
use slot::{remove_stale_dirs, write_candidate, Slot};

use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rustix::io::Errno;

use crate::engine::{Cancel, Candidate, Oracle, OracleError, Outcome};
use crate::unit::{concat_into, ByteAtom};

/// Why a test command cannot be used, or a test cannot run.
///
/// ```
/// use cargo_reduce::{CommandError, TestCommand};
///
/// let error = TestCommand::new(&[]).unwrap_err();
/// assert!(matches!(error, CommandError::Missing));
/// assert!(error.to_string().starts_with("no test command given"));
/// ```
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
///
/// ```
/// use cargo_reduce::{CommandError, TestCommand};
///
/// let grep = TestCommand::new(&["grep".into(), "-q".into(), "needle".into(), "{}".into()]).unwrap();
/// assert_eq!(grep.display(), "grep -q needle {}");
/// let missing = TestCommand::new(&["no-such-test-command".into()]).unwrap_err();
/// assert!(matches!(missing, CommandError::NotFound(_)));
/// ```
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
///
/// ```
/// use cargo_reduce::RunStatus;
///
/// assert!(RunStatus::Exited(0).is_interesting());
/// assert!(!RunStatus::TimedOut.is_interesting());
/// assert_eq!(RunStatus::Signaled(9).to_string(), "killed by signal 9");
/// ```
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
///
/// An oracle of one's own can run the command and look at how it ended:
/// here a candidate is kept only when the command also prints `panicked`.
///
/// ```
/// use std::time::Duration;
/// use cargo_reduce::{Cancel, Candidate, CommandOracle, Oracle, OracleError, Outcome, Reducer, TestCommand};
///
/// struct Panics(CommandOracle);
/// impl Oracle<u8> for Panics {
///     fn test(&self, c: &Candidate<'_, u8>, cancel: &Cancel<'_>) -> Result<Option<Outcome>, OracleError> {
///         let run = self.0.run(&c.to_vec(), cancel)?;
///         Ok(Some(Outcome::from_bool(run.status.is_interesting() && run.stderr_tail.contains("panicked"))))
///     }
/// }
///
/// let script = r#"grep -q needle "$1" && echo "thread 'main' panicked" >&2"#;
/// let argv: [std::ffi::OsString; 5] = ["sh".into(), "-c".into(), script.into(), "sh".into(), "{}".into()];
/// let command = CommandOracle::new(TestCommand::new(&argv).unwrap(), "input.txt".as_ref(), 0o644, Duration::from_secs(60));
/// let reduced = Reducer::new().ddmin(b"hay needle hay".to_vec(), &Panics(command)).unwrap();
/// assert_eq!(reduced.atoms, b"needle");
/// ```
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

/// Runs the test command on candidates; an [`Oracle`] over byte atoms.
///
/// ```
/// use std::time::Duration;
/// use cargo_reduce::{CommandOracle, Reducer, TestCommand};
///
/// // Interesting: the candidate still contains `needle` (grep exits 0).
/// let grep = TestCommand::new(&["grep".into(), "-q".into(), "needle".into(), "{}".into()]).unwrap();
/// let oracle = CommandOracle::new(grep, "input.txt".as_ref(), 0o644, Duration::from_secs(60));
/// let reduced = Reducer::new().jobs(2).ddmin(b"hay needle hay".to_vec(), &oracle).unwrap();
/// assert_eq!(reduced.atoms, b"needle");
/// ```
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
        let status =
            wait::wait(&mut child, started + timeout, cancel).map_err(CommandError::Wait)?;
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
