//! Fault injection, `file` mode, and the machinery the fuzz-mode faults
//! (`faults_fuzz.rs`) share: signals at seeded random points, a full or
//! read-only file system, an unwritable TMPDIR, tests that leave children,
//! concurrent runs on one output. After every fault the promises are
//! checked: INPUT byte-identical; the output absent or complete and
//! interesting (a stopped reduction is written on purpose, `minimal:
//! false`); no `.cargo-reduce-*` temporary file beside it; the documented
//! exit status; no process of the run left; no `cargo-reduce-*` entry in
//! the run's TMPDIR readable by others; what a SIGKILL leaves (a temporary
//! file beside the output, private directories in TMPDIR) removed by the
//! next run.
//!
//! Seeds: `CARGO_REDUCE_FAULTS_SEED=N` replays a run (each point's seed,
//! delay and signal are in every assertion message); otherwise the seed
//! comes from the clock and is printed. `CARGO_REDUCE_FAULTS=long` raises
//! the number of points per fault for local runs.

use std::fmt;
use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rustix::process::{kill_process, kill_process_group, Pid, Signal};

use crate::util::Sandbox;

// ---------------------------------------------------------------------------
// Seeds and modes

/// `CARGO_REDUCE_FAULTS=long`: many more points per fault (local runs).
pub fn long_mode() -> bool {
    std::env::var("CARGO_REDUCE_FAULTS").is_ok_and(|v| v == "long")
}

/// The number of points of a fault: `ci` by default, `long` in long mode.
pub fn points(ci: usize, long: usize) -> usize {
    if long_mode() {
        long
    } else {
        ci
    }
}

/// The base seed of a fault named `name`: `CARGO_REDUCE_FAULTS_SEED`, or
/// the clock's; printed, so a failing run can be replayed.
pub fn base_seed(name: &str) -> u64 {
    let seed = match std::env::var("CARGO_REDUCE_FAULTS_SEED") {
        Ok(text) => text
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("CARGO_REDUCE_FAULTS_SEED={text}: not a number")),
        Err(_) => {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                % 1_000_000_007
        }
    };
    eprintln!("{name}: seed {seed} (replay with CARGO_REDUCE_FAULTS_SEED={seed})");
    seed
}

/// splitmix64 over a seed: small, seeded, reproducible.
pub struct Rng(u64);

impl Rng {
    /// The generator of point `index` of fault `name` under `seed`.
    pub fn for_point(seed: u64, name: &str, index: usize) -> Rng {
        // FNV-1a over the name: the same on every toolchain.
        let name = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        let mut rng = Rng(seed ^ name);
        rng.0 ^= rng.next() ^ index as u64;
        rng.next();
        rng
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// Uniform in `lo..=hi`.
    pub fn between(&mut self, lo: Duration, hi: Duration) -> Duration {
        let (lo, hi) = (
            lo.as_micros() as u64,
            hi.as_micros().max(lo.as_micros()) as u64,
        );
        Duration::from_micros(lo + self.below(hi - lo + 1))
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

// ---------------------------------------------------------------------------
// Signals

/// A signal a fault sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sig {
    Kill,
    Term,
    Int,
}

impl Sig {
    fn signal(self) -> Signal {
        match self {
            Sig::Kill => Signal::KILL,
            Sig::Term => Signal::TERM,
            Sig::Int => Signal::INT,
        }
    }

    pub fn number(self) -> i32 {
        self.signal().as_raw()
    }
}

impl fmt::Display for Sig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Sig::Kill => "SIGKILL",
            Sig::Term => "SIGTERM",
            Sig::Int => "SIGINT",
        })
    }
}

/// Where a signal goes: the cargo-reduce process alone (`kill PID`, an OOM
/// killer), or its whole process group (a terminal's Ctrl-C).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum To {
    Process,
    Group,
}

/// One seeded fault point, for assertion messages.
#[derive(Debug, Clone)]
pub struct Point {
    pub fault: String,
    pub seed: u64,
    pub index: usize,
    pub signal: Sig,
    pub to: To,
    pub delay: Duration,
    /// Where the delay counts from.
    pub after: String,
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{} point {} of seed {} (CARGO_REDUCE_FAULTS_SEED={}): {} to {} {:.1} ms after {}]",
            self.fault,
            self.index,
            self.seed,
            self.seed,
            self.signal,
            match self.to {
                To::Process => "cargo-reduce alone",
                To::Group => "its process group",
            },
            self.delay.as_secs_f64() * 1000.0,
            self.after
        )
    }
}

// ---------------------------------------------------------------------------
// A watched run of the binary

/// The variable that marks every process of one run (inherited by test
/// commands, workers, cargo and rustc), so leftovers can be found.
pub const RUN_VAR: &str = "CARGO_REDUCE_FAULT_RUN";

fn nonce() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("{}-{n}-{t}", std::process::id())
}

#[derive(Default)]
struct Streams {
    /// stdout lines, with when they were read.
    lines: Vec<(Instant, String)>,
    stdout_done: bool,
}

/// A run of cargo-reduce in a process group of its own, marked with a
/// [`RUN_VAR`] nonce; stdout read line by line as it comes.
pub struct Watched {
    child: Child,
    pub pid: i32,
    pub nonce: String,
    pub started: Instant,
    streams: Arc<(Mutex<Streams>, Condvar)>,
    stdout: Option<JoinHandle<()>>,
    stderr: Option<JoinHandle<String>>,
}

/// A watched run that ended.
pub struct Ended {
    pub status: ExitStatus,
    pub stdout: String,
    /// The stdout lines with when they came, from the start.
    pub timed: Vec<(Duration, String)>,
    pub stderr: String,
    pub nonce: String,
    pub pid: i32,
    /// From the signal (or the start) to the end.
    pub took: Duration,
}

impl Ended {
    /// The exit code, or `None` when a signal ended the process.
    pub fn code(&self) -> Option<i32> {
        self.status.code()
    }

    pub fn killed_by(&self, sig: Sig) -> bool {
        self.status.signal() == Some(sig.number())
    }

    /// The JSON messages on stdout (`--message-format json`); a last line
    /// cut short by a SIGKILL is left out.
    pub fn messages(&self) -> Vec<serde_json::Value> {
        self.stdout
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// The `reduction-finished` messages.
    pub fn finished(&self) -> Vec<serde_json::Value> {
        self.messages()
            .into_iter()
            .filter(|m| m["reason"] == "reduction-finished")
            .collect()
    }

    /// When the first stdout line containing every piece of `pieces` came.
    pub fn when(&self, pieces: &[&str]) -> Option<Duration> {
        self.timed
            .iter()
            .find(|(_, l)| pieces.iter().all(|p| l.contains(p)))
            .map(|(at, _)| *at)
    }

    /// What to show when an assertion fails.
    pub fn show(&self) -> String {
        format!(
            "status {:?}, {:.2} s\nstderr:\n{}\nstdout:\n{}",
            self.status,
            self.took.as_secs_f64(),
            self.stderr,
            self.stdout
        )
    }
}

impl Watched {
    /// Starts `command` (a cargo-reduce command line) with its own process
    /// group and a fresh nonce.
    pub fn spawn(mut command: Command) -> Watched {
        let nonce = nonce();
        // The signals a test sends act on cargo-reduce as on a program
        // started from a terminal, however the suite was started: a
        // background job (`cmd &` in a script) ignores SIGINT and SIGQUIT,
        // and its children inherit that until they install a handler.
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            command.pre_exec(|| {
                for sig in [libc::SIGINT, libc::SIGQUIT, libc::SIGHUP] {
                    libc::signal(sig, libc::SIG_DFL);
                }
                Ok(())
            });
        }
        let mut child = command
            .env(RUN_VAR, &nonce)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .expect("spawn cargo-reduce");
        let started = Instant::now();
        let streams = Arc::new((Mutex::new(Streams::default()), Condvar::new()));
        let out = child.stdout.take().unwrap();
        let shared = streams.clone();
        let stdout = std::thread::spawn(move || {
            let mut reader = BufReader::new(out);
            let mut line = String::new();
            loop {
                line.clear();
                match reader.read_line(&mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let (lock, cvar) = &*shared;
                        lock.lock()
                            .unwrap()
                            .lines
                            .push((Instant::now(), line.clone()));
                        cvar.notify_all();
                    }
                }
            }
            let (lock, cvar) = &*shared;
            lock.lock().unwrap().stdout_done = true;
            cvar.notify_all();
        });
        let mut err = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = err.read_to_end(&mut text);
            String::from_utf8_lossy(&text).into_owned()
        });
        Watched {
            pid: child.id() as i32,
            child,
            nonce,
            started,
            streams,
            stdout: Some(stdout),
            stderr: Some(stderr),
        }
    }

    /// Waits (at most `timeout`) for a stdout line `pred` accepts; when it
    /// was read, or `None` if stdout closed first or time ran out.
    pub fn wait_line(&self, pred: impl Fn(&str) -> bool, timeout: Duration) -> Option<Instant> {
        let until = Instant::now() + timeout;
        let (lock, cvar) = &*self.streams;
        let mut streams = lock.lock().unwrap();
        loop {
            if let Some((at, _)) = streams.lines.iter().find(|(_, l)| pred(l)) {
                return Some(*at);
            }
            let now = Instant::now();
            if streams.stdout_done || now >= until {
                return None;
            }
            streams = cvar.wait_timeout(streams, until - now).unwrap().0;
        }
    }

    /// Sleeps until `at`, then sends `sig` to the process or its group.
    pub fn signal_at(&self, at: Instant, sig: Sig, to: To) -> Instant {
        if let Some(left) = at.checked_duration_since(Instant::now()) {
            std::thread::sleep(left);
        }
        self.signal(sig, to);
        Instant::now()
    }

    /// Sends `sig` (the process may have ended already: then it reaches
    /// a zombie, or its group's stragglers).
    pub fn signal(&self, sig: Sig, to: To) {
        let pid = Pid::from_raw(self.pid).unwrap();
        let _ = match to {
            To::Process => kill_process(pid, sig.signal()),
            To::Group => kill_process_group(pid, sig.signal()),
        };
    }

    /// Waits for the end (at most `limit` from `since`; then the whole
    /// group is killed and the test fails).
    pub fn finish(mut self, since: Instant, limit: Duration, ctx: &dyn fmt::Display) -> Ended {
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                break status;
            }
            if since.elapsed() > limit {
                self.signal(Sig::Kill, To::Group);
                let _ = self.child.wait();
                kill_leftovers(&self.nonce);
                panic!(
                    "{ctx}: cargo-reduce still running {:.1} s after the fault; killed",
                    limit.as_secs_f64()
                );
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let took = since.elapsed();
        // A process of the run that inherited the pipes keeps them open:
        // read what there is without waiting for it.
        let until = Instant::now() + Duration::from_secs(2);
        while !self.stdout.as_ref().unwrap().is_finished()
            || !self.stderr.as_ref().unwrap().is_finished()
        {
            if Instant::now() > until {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let stderr = match self.stderr.take().unwrap() {
            h if h.is_finished() => h.join().unwrap(),
            _ => "(stderr still held open by another process of the run)".to_string(),
        };
        if self.stdout.as_ref().unwrap().is_finished() {
            let _ = self.stdout.take().unwrap().join();
        }
        let timed: Vec<(Duration, String)> = {
            let (lock, _) = &*self.streams;
            lock.lock()
                .unwrap()
                .lines
                .iter()
                .map(|(at, l)| (at.duration_since(self.started), l.clone()))
                .collect()
        };
        Ended {
            status,
            stdout: timed.iter().map(|(_, l)| l.as_str()).collect(),
            timed,
            stderr,
            nonce: self.nonce.clone(),
            pid: self.pid,
            took,
        }
    }
}

// ---------------------------------------------------------------------------
// Leftovers: processes, temporary files

/// The live processes marked with `nonce`: pid and command line.
pub fn processes_of(nonce: &str) -> Vec<(i32, String)> {
    let mark = format!("{RUN_VAR}={nonce}");
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(environ) = fs::read(entry.path().join("environ")) else {
            continue;
        };
        if !environ.split(|&b| b == 0).any(|v| v == mark.as_bytes()) {
            continue;
        }
        let stat = fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let state = stat.rsplit(')').next().unwrap_or("").trim_start();
        if state.starts_with(['Z', 'X']) {
            continue;
        }
        let cmdline = fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        found.push((pid, cmdline.trim().to_string()));
    }
    found
}

fn kill_leftovers(nonce: &str) {
    for (pid, _) in processes_of(nonce) {
        let _ = kill_process(Pid::from_raw(pid).unwrap(), Signal::KILL);
    }
}

/// How long stragglers of a run may take to end: a rustc finishing the
/// crate it compiles can take this long on a loaded machine, and the
/// leftovers the tests look for (`sleep 1000`, a build going on) far longer.
pub const STRAGGLERS: Duration = Duration::from_secs(120);

/// No process of the run may be left: waits up to `grace` for stragglers
/// (a test finishing its last second, a rustc finishing its crate), then
/// kills what is left and fails.
pub fn assert_no_processes_left(nonce: &str, grace: Duration, ctx: &dyn fmt::Display) {
    let until = Instant::now() + grace;
    loop {
        let left = processes_of(nonce);
        if left.is_empty() {
            return;
        }
        if Instant::now() > until {
            kill_leftovers(nonce);
            let list: Vec<String> = left.iter().map(|(p, c)| format!("{p}: {c}")).collect();
            panic!(
                "{ctx}: processes of the run still running {:.0} s after it ended:\n{}",
                grace.as_secs_f64(),
                list.join("\n")
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A private TMPDIR for the runs of one test (mode 0700).
pub fn private_tmp(sb: &Sandbox) -> PathBuf {
    let tmp = sb.join("tmp");
    fs::create_dir(&tmp).unwrap();
    fs::set_permissions(&tmp, fs::Permissions::from_mode(0o700)).unwrap();
    tmp
}

/// No `cargo-reduce-*` entry (private directories, the lock directory) and
/// no saved result in `tmp` that group or others may read.
pub fn assert_temp_private(tmp: &Path, ctx: &dyn fmt::Display) {
    for entry in fs::read_dir(tmp).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !(name.starts_with("cargo-reduce-") || name.contains(".cargo-reduce")) {
            continue;
        }
        let mode = entry.metadata().unwrap().mode();
        assert_eq!(
            mode & 0o077,
            0,
            "{ctx}: `{name}` in TMPDIR has mode {:o}",
            mode & 0o7777
        );
    }
}

/// The private directories `cargo-reduce-<pid>-*` of process `pid` in
/// `tmp`.
pub fn private_dirs_of(tmp: &Path, pid: i32) -> Vec<PathBuf> {
    let prefix = format!("cargo-reduce-{pid}-");
    fs::read_dir(tmp)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .collect()
}

/// The `.cargo-reduce-*` temporary files in `dir` (atomic writes and
/// output checks in progress, or left by a killed run).
pub fn output_temps(dir: &Path) -> Vec<PathBuf> {
    fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(".cargo-reduce-")
        })
        .map(|e| e.path())
        .collect()
}

/// Whether `small` is a subsequence of `big` (every result of ddmin is).
pub fn is_subsequence(small: &[u8], big: &[u8]) -> bool {
    let mut rest = big.iter();
    small.iter().all(|b| rest.any(|c| c == b))
}

// ---------------------------------------------------------------------------
// tmpfs mounts

/// A small tmpfs mounted on a directory, unmounted on drop.
pub struct Mount {
    dir: PathBuf,
}

impl Mount {
    /// Mounts a tmpfs of `size` (e.g. `64k`) on `dir`; `Err(why)` where
    /// this process may not mount (not root, no CAP_SYS_ADMIN, no mount
    /// command).
    pub fn tmpfs(dir: &Path, size: &str) -> Result<Mount, String> {
        fs::create_dir_all(dir).unwrap();
        let out = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0755"),
                "tmpfs",
            ])
            .arg(dir)
            .output()
            .map_err(|e| format!("cannot run `mount`: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "`mount -t tmpfs` failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(Mount {
            dir: dir.to_path_buf(),
        })
    }

    /// Remounts it read-only.
    pub fn read_only(&self) {
        let out = Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(&self.dir)
            .output()
            .expect("mount");
        assert!(
            out.status.success(),
            "remount,ro: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Fills it up: a file as large as it will go.
    pub fn fill(&self) {
        let mut file = fs::File::create(self.dir.join("filler")).unwrap();
        let chunk = [0xa5u8; 4096];
        loop {
            if let Err(e) = std::io::Write::write_all(&mut file, &chunk) {
                assert_eq!(e.raw_os_error(), Some(28), "ENOSPC expected: {e}");
                break;
            }
        }
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
    }
}

/// Mounts a tmpfs, or says why the test is skipped (the one allowed skip:
/// only where this process may not mount).
pub fn mount_or_skip(test: &str, dir: &Path, size: &str) -> Option<Mount> {
    match Mount::tmpfs(dir, size) {
        Ok(mount) => Some(mount),
        Err(why) => {
            eprintln!("{test}: SKIPPED: a tmpfs cannot be mounted here ({why}); run as root (or with CAP_SYS_ADMIN) to check full and read-only file systems");
            None
        }
    }
}

// ---------------------------------------------------------------------------
// file mode

/// The test command of the signal points: a little sleep, so that the
/// points spread over a run of a few dozen tests.
const SLOW_GREP: &str = "sleep 0.01; grep -q needle \"$1\"";

/// 40 numbered lines with `needle` among them: the 1-minimal result is
/// `needle`.
fn needle_input() -> Vec<u8> {
    (0..40)
        .map(|i| {
            if i == 17 {
                "needle\n".to_string()
            } else {
                format!("{i}\n")
            }
        })
        .collect::<String>()
        .into_bytes()
}

fn file_command(sb: &Sandbox, tmp: &Path, jobs: u64, test: &str) -> Command {
    let jobs = jobs.to_string();
    shell_test_command(
        sb,
        tmp,
        "out.txt",
        &["-j", &jobs, "--message-format", "json"],
        test,
    )
}

/// `cargo-reduce file in.txt -o OUTPUT EXTRA… -- sh -c TEST sh {}` with
/// TMPDIR set to `tmp`.
fn shell_test_command(
    sb: &Sandbox,
    tmp: &Path,
    output: &str,
    extra: &[&str],
    test: &str,
) -> Command {
    let head = ["file", "in.txt", "-o", output];
    let tail = ["--", "sh", "-c", test, "sh", "{}"];
    let mut cmd = sb.cmd(&[&head[..], extra, &tail[..]].concat());
    cmd.env("TMPDIR", tmp);
    cmd
}

/// How long an undisturbed run takes (and that it ends in `needle`).
fn calibrate(sb: &Sandbox, tmp: &Path, test: &str) -> Duration {
    let watched = Watched::spawn(file_command(sb, tmp, 2, test));
    let started = watched.started;
    let ended = watched.finish(started, Duration::from_secs(60), &"calibration");
    assert_eq!(ended.code(), Some(0), "calibration: {}", ended.show());
    assert_eq!(sb.read("out.txt"), b"needle", "calibration");
    fs::remove_file(sb.join("out.txt")).unwrap();
    ended.took
}

/// What the file-mode checks need to know about a point's run.
struct FileCase<'a> {
    sb: &'a Sandbox,
    tmp: &'a Path,
    input: &'a [u8],
}

impl FileCase<'_> {
    /// Checks the promises after a run that got `sig` (or none): returns
    /// the temporary files beside the output and the private directories
    /// in TMPDIR that a SIGKILL left, for the next run to remove.
    fn check(&self, ended: &Ended, sig: Option<Sig>, ctx: &dyn fmt::Display) -> Vec<PathBuf> {
        let show = ended.show();
        assert_eq!(
            self.sb.read("in.txt"),
            self.input,
            "{ctx}: INPUT changed\n{show}"
        );
        let out = fs::read(self.sb.join("out.txt")).ok();
        let finished = ended.finished();
        let before_start = ended
            .stderr
            .contains("interrupted before the reduction started; nothing written");
        match (ended.code(), sig) {
            (Some(0), _) => {
                assert_eq!(
                    out.as_deref(),
                    Some(&b"needle"[..]),
                    "{ctx}: exit 0 means the 1-minimal result\n{show}"
                );
                assert_eq!(finished.len(), 1, "{ctx}\n{show}");
                assert_eq!(finished[0]["minimal"], true, "{ctx}\n{show}");
            }
            (Some(130), Some(Sig::Term | Sig::Int)) if before_start => {
                assert_eq!(out, None, "{ctx}: nothing written\n{show}");
                assert!(finished.is_empty(), "{ctx}\n{show}");
            }
            (Some(130), Some(Sig::Term | Sig::Int)) => {
                let out = out.unwrap_or_else(|| {
                    panic!("{ctx}: exit 130 without the best result so far\n{show}")
                });
                self.assert_complete(&out, ctx, &show);
                assert_eq!(finished.len(), 1, "{ctx}\n{show}");
                assert_eq!(finished[0]["minimal"], false, "{ctx}\n{show}");
                assert_eq!(finished[0]["output"], "out.txt", "{ctx}\n{show}");
                assert_eq!(
                    finished[0]["reduced_bytes"],
                    out.len(),
                    "{ctx}: the result reported is the one written\n{show}"
                );
            }
            (None, Some(Sig::Kill)) if ended.killed_by(Sig::Kill) => {
                if let Some(out) = out {
                    self.assert_complete(&out, ctx, &show);
                }
            }
            // Before the handler is installed (the first milliseconds of the
            // process), SIGTERM and SIGINT end it as they do any program:
            // then nothing may have happened yet.
            (None, Some(s @ (Sig::Term | Sig::Int)))
                if ended.killed_by(s) && ended.stdout.is_empty() && ended.stderr.is_empty() =>
            {
                assert_eq!(out, None, "{ctx}\n{show}");
            }
            _ => panic!("{ctx}: unexpected end\n{show}"),
        }
        assert_temp_private(self.tmp, ctx);
        let mut left = output_temps(self.sb.path());
        left.extend(private_dirs_of(self.tmp, ended.pid));
        if ended.killed_by(Sig::Kill) {
            // Only a SIGKILL can leave them; the next run removes them.
            left.retain(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .contains(&format!("cargo-reduce-{}-", ended.pid))
            });
            left
        } else {
            assert!(
                left.is_empty(),
                "{ctx}: temporary files or private directories left by a run that ended: {left:?}\n{show}"
            );
            Vec::new()
        }
    }

    /// A result written to the output: complete (a candidate: a
    /// subsequence of INPUT) and interesting (it has the needle).
    fn assert_complete(&self, out: &[u8], ctx: &dyn fmt::Display, show: &str) {
        assert!(
            is_subsequence(out, self.input) && out.windows(6).any(|w| w == b"needle"),
            "{ctx}: the output is not a complete interesting result: {:?}\n{show}",
            String::from_utf8_lossy(out)
        );
    }
}

/// `count` seeded points of `sig` over file-mode runs: spread over the
/// whole run, crowded at its start (checks of INPUT) and at its end (the
/// final check and the write).
fn file_signal_points(name: &str, sig: Sig, count: usize) {
    let seed = base_seed(name);
    let sb = Sandbox::new();
    let input = needle_input();
    sb.write("in.txt", &input);
    let tmp = private_tmp(&sb);
    let case = FileCase {
        sb: &sb,
        tmp: &tmp,
        input: &input,
    };
    let full = calibrate(&sb, &tmp, SLOW_GREP);
    let mut stale: Vec<PathBuf> = Vec::new();
    let mut outcomes = std::collections::BTreeMap::<String, usize>::new();
    for index in 0..count {
        let mut rng = Rng::for_point(seed, name, index);
        let jobs = 1 + rng.below(3);
        let to = if rng.below(2) == 0 {
            To::Process
        } else {
            To::Group
        };
        let delay = match rng.below(10) {
            0 | 1 => rng.between(Duration::ZERO, Duration::from_millis(40)),
            2 | 3 => rng.between(full.mul_f64(0.8), full.mul_f64(1.2)),
            _ => rng.between(Duration::ZERO, full),
        };
        let point = Point {
            fault: name.to_string(),
            seed,
            index,
            signal: sig,
            to,
            delay,
            after: format!("the start (-j{jobs}; an undisturbed run: {full:.2?})"),
        };
        let _ = fs::remove_file(sb.join("out.txt"));
        let watched = Watched::spawn(file_command(&sb, &tmp, jobs, SLOW_GREP));
        let sent = watched.signal_at(watched.started + delay, sig, to);
        let ended = watched.finish(sent, Duration::from_secs(20), &point);
        let kind = match ended.code() {
            Some(code) => format!("exit {code}"),
            None => format!("signal {:?}", ended.status.signal()),
        };
        *outcomes.entry(kind).or_default() += 1;
        assert_no_processes_left(&ended.nonce, STRAGGLERS, &point);
        if ended.stdout.contains("reduction-started") {
            // This run cleaned up after the killed ones.
            let still: Vec<_> = stale.iter().filter(|d| d.exists()).collect();
            assert!(
                still.is_empty(),
                "{point}: what killed runs left not removed by the next run: {still:?}"
            );
            stale.clear();
        }
        stale.extend(case.check(&ended, Some(sig), &point));
    }
    // One more run, undisturbed: it removes what the last kills left.
    let watched = Watched::spawn(file_command(&sb, &tmp, 2, SLOW_GREP));
    let started = watched.started;
    let ended = watched.finish(started, Duration::from_secs(60), &"final run");
    case.check(&ended, None, &"final run");
    let still: Vec<_> = stale.iter().filter(|d| d.exists()).collect();
    assert!(
        still.is_empty(),
        "{name}: what killed runs left not removed by the next run: {still:?}"
    );
    eprintln!("{name}: {count} points, outcomes {outcomes:?}");
}

#[test]
fn file_sigkill_at_random_points() {
    file_signal_points("file-sigkill", Sig::Kill, points(60, 600));
}

#[test]
fn file_sigterm_at_random_points() {
    file_signal_points("file-sigterm", Sig::Term, points(60, 600));
}

#[test]
fn file_sigint_at_random_points() {
    file_signal_points("file-sigint", Sig::Int, points(60, 600));
}

/// Checks a one-line error: exit `code`, one `error:` line containing
/// every piece of `what`.
pub fn assert_one_line_error(ended: &Ended, code: i32, what: &[&str], ctx: &dyn fmt::Display) {
    let show = ended.show();
    assert_eq!(ended.code(), Some(code), "{ctx}\n{show}");
    let lines: Vec<&str> = ended.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{ctx}: one line\n{show}");
    assert!(lines[0].starts_with("error: "), "{ctx}\n{show}");
    for piece in what {
        assert!(
            lines[0].contains(piece),
            "{ctx}: `{piece}` not named\n{show}"
        );
    }
}

/// Runs `command` to its end (at most `limit`), then checks that no
/// process of it is left.
pub fn run_watched(command: Command, limit: Duration, ctx: &dyn fmt::Display) -> Ended {
    let watched = Watched::spawn(command);
    let started = watched.started;
    let ended = watched.finish(started, limit, ctx);
    assert_no_processes_left(&ended.nonce, STRAGGLERS, ctx);
    ended
}

/// A test command that leaves a mark in `marks` each time it runs.
fn marking_grep(marks: &Path) -> String {
    format!("touch {}/ran; grep -q needle \"$1\"", marks.display())
}

#[test]
fn a_disk_that_fills_up_saves_the_result_elsewhere_and_names_it() {
    let sb = Sandbox::new();
    let input = needle_input();
    sb.write("in.txt", &input);
    let tmp = private_tmp(&sb);
    let dir = sb.join("out");
    let Some(_mount) = mount_or_skip("full disk (file mode)", &dir, "64k") else {
        return;
    };
    // An earlier result under the final name must survive whole.
    fs::write(dir.join("out.txt"), "an earlier result\n").unwrap();
    // The disk fills up once the run is under way (after the output was
    // checked): the first test fills it.
    let test = format!(
        "[ -e {d}/filler ] || {{ head -c 1000000 /dev/zero > {d}/filler; }} 2>/dev/null; grep -q needle \"$1\"",
        d = dir.display()
    );
    let cmd = shell_test_command(&sb, &tmp, "out/out.txt", &[], &test);
    let ctx = "full disk (file mode)";
    let ended = run_watched(cmd, Duration::from_secs(60), &ctx);
    assert_one_line_error(
        &ended,
        1,
        &[
            "cannot write `out/out.txt`",
            "No space left on device",
            "saved in `",
        ],
        &ctx,
    );
    assert_eq!(sb.read("in.txt"), input, "{ctx}: INPUT changed");
    assert_eq!(
        fs::read(dir.join("out.txt")).unwrap(),
        b"an earlier result\n",
        "{ctx}: the result under the final name was replaced by a partial one"
    );
    assert!(
        output_temps(&dir).is_empty(),
        "{ctx}: {:?}",
        output_temps(&dir)
    );
    // The error names where the result went: a private file in TMPDIR.
    let line = ended.stderr.lines().next().unwrap();
    let saved = line
        .rsplit("saved in `")
        .next()
        .unwrap()
        .split('`')
        .next()
        .unwrap();
    let saved = Path::new(saved);
    assert!(
        saved.starts_with(fs::canonicalize(&tmp).unwrap()),
        "{ctx}: {line}"
    );
    assert_eq!(
        fs::read(saved).unwrap(),
        b"needle",
        "{ctx}: the saved result"
    );
    assert!(
        !line.contains(&format!("{}/.cargo-reduce-", dir.display())),
        "{ctx}: the message names a temporary file that no longer exists: {line}"
    );
    assert_temp_private(&tmp, &ctx);
}

#[test]
fn a_read_only_output_directory_is_refused_before_the_first_test() {
    let sb = Sandbox::new();
    let input = needle_input();
    sb.write("in.txt", &input);
    let tmp = private_tmp(&sb);
    let marks = sb.join("marks");
    fs::create_dir(&marks).unwrap();
    let dir = sb.join("out");
    let Some(mount) = mount_or_skip("read-only output (file mode)", &dir, "64k") else {
        return;
    };
    mount.read_only();
    let test = marking_grep(&marks);
    let cmd = shell_test_command(&sb, &tmp, "out/out.txt", &[], &test);
    let ctx = "read-only output (file mode)";
    let ended = run_watched(cmd, Duration::from_secs(60), &ctx);
    assert_one_line_error(
        &ended,
        2,
        &["output directory", "out", "Read-only file system"],
        &ctx,
    );
    assert!(
        !marks.join("ran").exists(),
        "{ctx}: a test ran before the refusal"
    );
    assert_eq!(sb.read("in.txt"), input);
    assert!(!dir.join("out.txt").exists());
    assert_temp_private(&tmp, &ctx);
}

#[test]
fn an_unwritable_tmpdir_is_exit_10_naming_it() {
    let sb = Sandbox::new();
    let input = needle_input();
    sb.write("in.txt", &input);
    let marks = sb.join("marks");
    fs::create_dir(&marks).unwrap();
    sb.write("a-file", "not a directory\n");
    let read_only = sb.join("read-only");
    let mount = mount_or_skip("read-only TMPDIR (file mode)", &read_only, "64k");
    if let Some(mount) = &mount {
        mount.read_only();
    }
    let mut cases = vec![
        ("missing", sb.join("missing")),
        ("a file", sb.join("a-file")),
    ];
    if mount.is_some() {
        cases.push(("read-only", read_only.clone()));
    }
    for (what, tmp) in cases {
        let ctx = format!("TMPDIR {what} (file mode)");
        let test = marking_grep(&marks);
        let mut cmd = sb.cmd(&[
            "file", "in.txt", "-o", "out.txt", "--", "sh", "-c", &test, "sh", "{}",
        ]);
        cmd.env("TMPDIR", &tmp);
        let ended = run_watched(cmd, Duration::from_secs(60), &ctx);
        assert_one_line_error(
            &ended,
            10,
            &[&format!("`{}`", tmp.display()), "TMPDIR"],
            &ctx,
        );
        assert!(!marks.join("ran").exists(), "{ctx}: a test ran");
        assert!(!sb.exists("out.txt"), "{ctx}: an output was written");
        assert_eq!(sb.read("in.txt"), input);
        if what == "missing" {
            assert!(!tmp.exists(), "{ctx}: TMPDIR was created");
        }
    }
    assert_eq!(sb.read("a-file"), b"not a directory\n");
}

/// A test that leaves a `sleep 1000` behind each time: nothing of it may
/// outlive the run, whether it ends by itself or by SIGTERM or SIGINT.
#[test]
fn tests_that_leave_children_leave_nothing_after_the_run() {
    let name = "forking test";
    let seed = base_seed(name);
    let sb = Sandbox::new();
    let input = needle_input();
    sb.write("in.txt", &input);
    let tmp = private_tmp(&sb);
    let case = FileCase {
        sb: &sb,
        tmp: &tmp,
        input: &input,
    };
    let forking = "sleep 1000 & sleep 0.01; grep -q needle \"$1\"";
    let watched = Watched::spawn(file_command(&sb, &tmp, 2, forking));
    let started = watched.started;
    let ended = watched.finish(started, Duration::from_secs(60), &name);
    assert_no_processes_left(&ended.nonce, STRAGGLERS, &name);
    case.check(&ended, None, &name);
    let full = ended.took;
    for index in 0..points(12, 120) {
        let mut rng = Rng::for_point(seed, name, index);
        let sig = *rng.pick(&[Sig::Term, Sig::Int]);
        let to = *rng.pick(&[To::Process, To::Group]);
        let delay = rng.between(Duration::ZERO, full);
        let jobs = 1 + rng.below(3);
        let point = Point {
            fault: name.to_string(),
            seed,
            index,
            signal: sig,
            to,
            delay,
            after: format!("the start (-j{jobs})"),
        };
        let _ = fs::remove_file(sb.join("out.txt"));
        let watched = Watched::spawn(file_command(&sb, &tmp, jobs, forking));
        let sent = watched.signal_at(watched.started + delay, sig, to);
        let ended = watched.finish(sent, Duration::from_secs(20), &point);
        assert_no_processes_left(&ended.nonce, STRAGGLERS, &point);
        case.check(&ended, Some(sig), &point);
    }
}

/// A SIGKILL cannot be caught, but the guardian sees the run die and kills
/// the process groups of the tests running at that moment: what a forking
/// test left in the background does not outlive the run.
#[test]
fn a_sigkill_leaves_nothing_of_a_forking_test() {
    let name = "forking test, SIGKILL";
    let seed = base_seed(name);
    let sb = Sandbox::new();
    let input = needle_input();
    sb.write("in.txt", &input);
    let tmp = private_tmp(&sb);
    let forking = "sleep 1000 & sleep 0.05; grep -q needle \"$1\"";
    for index in 0..points(3, 30) {
        let mut rng = Rng::for_point(seed, name, index);
        let delay = rng.between(Duration::from_millis(100), Duration::from_millis(400));
        let point = Point {
            fault: name.to_string(),
            seed,
            index,
            signal: Sig::Kill,
            to: To::Process,
            delay,
            after: "the start".to_string(),
        };
        let watched = Watched::spawn(file_command(&sb, &tmp, 2, forking));
        let sent = watched.signal_at(watched.started + delay, Sig::Kill, To::Process);
        let ended = watched.finish(sent, Duration::from_secs(20), &point);
        assert_no_processes_left(&ended.nonce, STRAGGLERS, &point);
    }
}

/// Two runs writing one output: one writes it, the other says the output
/// is busy (exit 9) at once, or runs after the first and writes it too;
/// the file is a complete, interesting result either way.
#[test]
fn two_runs_on_one_output_never_both_write_it() {
    let name = "one output, two runs";
    let seed = base_seed(name);
    let sb = Sandbox::new();
    let input = needle_input();
    sb.write("in.txt", &input);
    let tmp = private_tmp(&sb);
    let test = "sleep 0.02; grep -q needle \"$1\"";
    let full = calibrate(&sb, &tmp, test);
    for index in 0..points(4, 40) {
        let mut rng = Rng::for_point(seed, name, index);
        let lag = rng.between(Duration::ZERO, full.mul_f64(1.2));
        let ctx = format!("[{name} point {index} of seed {seed} (CARGO_REDUCE_FAULTS_SEED={seed}): the second starts {lag:.2?} after the first]");
        let _ = fs::remove_file(sb.join("out.txt"));
        let first = Watched::spawn(file_command(&sb, &tmp, 2, test));
        std::thread::sleep(lag);
        let second = Watched::spawn(file_command(&sb, &tmp, 2, test));
        let (start1, start2) = (first.started, second.started);
        let a = first.finish(start1, Duration::from_secs(60), &ctx);
        let b = second.finish(start2, Duration::from_secs(60), &ctx);
        for ended in [&a, &b] {
            assert_no_processes_left(&ended.nonce, STRAGGLERS, &ctx);
            match ended.code() {
                Some(0) => {}
                Some(9) => {
                    assert_one_line_error(
                        ended,
                        9,
                        &["another cargo-reduce run is writing `out.txt`"],
                        &ctx,
                    );
                    assert!(
                        ended.finished().is_empty() && !ended.stdout.contains("reduction-started"),
                        "{ctx}: the busy run started reducing\n{}",
                        ended.show()
                    );
                }
                _ => panic!("{ctx}: unexpected end\n{}", ended.show()),
            }
        }
        assert!(
            a.code() == Some(0) || b.code() == Some(0),
            "{ctx}: neither run wrote the output\n{}\n{}",
            a.show(),
            b.show()
        );
        assert_eq!(sb.read("out.txt"), b"needle", "{ctx}");
        assert_eq!(sb.read("in.txt"), input, "{ctx}");
        assert!(output_temps(sb.path()).is_empty(), "{ctx}");
        assert_temp_private(&tmp, &ctx);
    }
}
