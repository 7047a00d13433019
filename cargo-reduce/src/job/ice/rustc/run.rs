//! Running rustc on a candidate. Every run happens in a private temporary
//! directory (the candidate, rustc's outputs, and the `rustc-ice-*.txt`
//! files new compilers write into the working directory), in a process
//! group of its own that is killed when the run ends, with a timeout and
//! an address-space limit.

use std::fs;
use std::io::{self, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rustix::process::{prlimit, Pid, Resource, Rlimit};

use super::args::RustcArgs;
use crate::command::wait::wait;
use crate::command::RunStatus;
use crate::engine::Cancel;
use crate::job::ice::rustc::signature::Signature;

/// rustc's standard error is read up to this size: the ICE's first lines
/// and the query stack come well before it.
const MAX_STDERR: u64 = 8 << 20;

/// rustc's `--out-dir`, in the private directory.
const OUT_DIR: &str = "out";

/// How rustc runs on candidates.
#[derive(Debug)]
pub(crate) struct Rustc {
    /// The command line; its crate root is replaced by the candidate.
    pub(crate) invocation: RustcArgs,
    /// The candidate's file name (rustc names the crate after it when no
    /// `--crate-name` is given).
    pub(crate) file_name: String,
    /// Kill a run after this long.
    timeout: Mutex<Duration>,
    /// The address-space limit, in bytes.
    pub(crate) memory: Option<u64>,
    /// Compile twice into one incremental directory (ICEs of the
    /// incremental cache show in the second).
    pub(crate) incremental: bool,
    /// Leave `RUST_BACKTRACE` as the user's environment has it. Off,
    /// rustc runs with `RUST_BACKTRACE=0`: symbolizing a panic's
    /// backtrace took a fifth of a small ICE's compilation here, and two
    /// thirds of a delayed bug's (which captures one per delayed error).
    /// Without it rustc prints the first two query frames only, which is
    /// all that `--match message` compares.
    pub(crate) backtraces: bool,
}

/// One run of rustc.
#[derive(Debug, Clone)]
pub(crate) struct RustcRun {
    /// How it ended.
    pub(crate) status: RunStatus,
    /// Its standard error (the last compilation's, with `--incremental`).
    pub(crate) stderr: String,
    /// Wall time.
    pub(crate) elapsed: Duration,
}

impl RustcRun {
    /// The ICE it shows, if any.
    pub(crate) fn signature(&self) -> Option<Signature> {
        match self.status {
            RunStatus::TimedOut | RunStatus::Cancelled => None,
            _ => Signature::parse(&self.stderr),
        }
    }

    /// Its first `error…` line (why a file gives no ICE), cut to a
    /// readable length.
    pub(crate) fn first_error(&self) -> Option<String> {
        const MAX: usize = 160;
        let line = self
            .stderr
            .lines()
            .find(|l| l.starts_with("error"))?
            .trim_end();
        Some(match line.char_indices().nth(MAX) {
            Some((cut, _)) => format!("{}…", &line[..cut]),
            None => line.to_string(),
        })
    }
}

impl Rustc {
    /// rustc as `invocation` runs it, on files called `file_name`.
    pub(crate) fn new(
        invocation: RustcArgs,
        file_name: String,
        timeout: Duration,
        memory: Option<u64>,
        incremental: bool,
    ) -> Self {
        Rustc {
            invocation,
            file_name,
            timeout: Mutex::new(timeout),
            memory,
            incremental,
            backtraces: true,
        }
    }

    /// The same rustc with another command line.
    pub(crate) fn with_invocation(&self, invocation: RustcArgs) -> Rustc {
        Rustc {
            invocation,
            file_name: self.file_name.clone(),
            timeout: Mutex::new(*self.timeout.lock().expect("timeout lock")),
            memory: self.memory,
            incremental: self.incremental,
            backtraces: self.backtraces,
        }
    }

    /// Changes the per-run timeout.
    pub(crate) fn set_timeout(&self, timeout: Duration) {
        *self.timeout.lock().expect("timeout lock") = timeout;
    }

    /// Compiles `source` in a private directory.
    pub(crate) fn run(&self, source: &[u8], cancel: &Cancel<'_>) -> io::Result<RustcRun> {
        self.run_with(source, &[], cancel)
    }

    /// `source` with every macro expanded, as `rustc -Zunpretty=expanded`
    /// prints it with this command line (derives and attributes of
    /// procedural macros included); `None` when rustc prints nothing. The
    /// flag is unstable: `RUSTC_BOOTSTRAP=1` lets this rustc take it for
    /// this printing only, as cargo-expand does on stable; the MCVE never
    /// needs it.
    pub(crate) fn expanded(
        &self,
        source: &[u8],
        cancel: &Cancel<'_>,
    ) -> io::Result<Option<String>> {
        let mut invocation = self.invocation.clone();
        invocation
            .env
            .push(("RUSTC_BOOTSTRAP".to_string(), "1".to_string()));
        let printed = tempfile::Builder::new()
            .prefix("cargo-reduce-ice-")
            .tempdir()?;
        let path = printed.path().join("expanded.rs");
        let output = path.to_string_lossy();
        let rustc = self.with_invocation(invocation);
        rustc.run_with(source, &["-Zunpretty=expanded", "-o", &output], cancel)?;
        // Written even when the code has errors, as long as it parses.
        Ok(fs::read_to_string(&path)
            .ok()
            .filter(|t| !t.trim().is_empty()))
    }

    /// Compiles `source` in a private directory, with `extra` arguments.
    pub(crate) fn run_with(
        &self,
        source: &[u8],
        extra: &[&str],
        cancel: &Cancel<'_>,
    ) -> io::Result<RustcRun> {
        let dir = tempfile::Builder::new()
            .prefix("cargo-reduce-ice-")
            .tempdir()?;
        self.run_in(dir.path(), source, extra, cancel)
    }

    /// Compiles `source` in `dir`, an empty directory that outlives the
    /// run; rustc's outputs are in [`Rustc::outputs`] of it.
    pub(crate) fn run_in(
        &self,
        dir: &Path,
        source: &[u8],
        extra: &[&str],
        cancel: &Cancel<'_>,
    ) -> io::Result<RustcRun> {
        fs::write(dir.join(&self.file_name), source)?;
        fs::create_dir(Rustc::outputs(dir))?;
        let incremental = self.incremental.then(|| dir.join("incremental"));
        let runs = if self.incremental { 2 } else { 1 };
        let started = Instant::now();
        let mut last = None;
        for _ in 0..runs {
            let target = Target {
                dir,
                incremental: incremental.as_deref(),
            };
            let run = self.run_once(&target, extra, cancel)?;
            let ice = run.signature().is_some();
            let stop = !matches!(run.status, RunStatus::Exited(_)) || ice;
            last = Some(run);
            if stop {
                break;
            }
        }
        let mut run = last.expect("at least one run");
        run.elapsed = started.elapsed();
        Ok(run)
    }

    /// Where rustc writes its outputs in a run's directory.
    pub(crate) fn outputs(dir: &Path) -> std::path::PathBuf {
        dir.join(OUT_DIR)
    }

    fn run_once(
        &self,
        target: &Target<'_>,
        extra: &[&str],
        cancel: &Cancel<'_>,
    ) -> io::Result<RustcRun> {
        let dir = target.dir;
        let stderr_path = dir.join("stderr");
        let stderr = fs::File::create(&stderr_path)?;
        let started = Instant::now();
        let mut command = Command::new(&self.invocation.program);
        command
            // Relative to the private directory: rustc's messages then
            // name the file as the report shows it.
            .args(self.invocation.args_for(
                Path::new(&self.file_name),
                Path::new(OUT_DIR),
                target.incremental,
            ))
            .args(extra)
            .envs(self.invocation.env.iter().map(|(k, v)| (k, v)))
            // The ICE file goes into the private directory, never the
            // user's tree.
            .env("RUSTC_ICE", dir)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr);
        if !self.backtraces {
            command.env("RUST_BACKTRACE", "0");
        }
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        crate::children::announce_before_exec(&mut command);
        let mut child = command.spawn().map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot run `{}`: {e}", self.invocation.program),
            )
        })?;
        let _group = crate::children::register(child.id());
        if let (Some(bytes), Some(pid)) = (self.memory, Pid::from_raw(child.id() as i32)) {
            let limit = Rlimit {
                current: Some(bytes),
                maximum: Some(bytes),
            };
            // Best effort: a child that already exited cannot be limited.
            let _ = prlimit(Some(pid), Resource::As, limit);
        }
        let timeout = *self.timeout.lock().expect("timeout lock");
        let status = wait(&mut child, started + timeout, cancel)?;
        Ok(RustcRun {
            status,
            stderr: read_head(&stderr_path),
            elapsed: started.elapsed(),
        })
    }
}

/// Where one run's files go.
struct Target<'a> {
    /// The private directory (the working directory).
    dir: &'a Path,
    /// `-C incremental`, with `--incremental`.
    incremental: Option<&'a Path>,
}

/// The first [`MAX_STDERR`] bytes of `path`, as text.
fn read_head(path: &Path) -> String {
    let mut bytes = Vec::new();
    if let Ok(f) = fs::File::open(path) {
        let _ = f.take(MAX_STDERR).read_to_end(&mut bytes);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(stderr: &str) -> RustcRun {
        RustcRun {
            status: RunStatus::Exited(1),
            stderr: stderr.to_string(),
            elapsed: Duration::ZERO,
        }
    }

    #[test]
    fn the_first_error_line_says_why_there_is_no_ice() {
        let stderr = "warning: unused import\nerror[E0583]: file not found for module `imp`\n \
                      --> src/lib.rs:3:1\nerror: aborting due to 1 previous error\n";
        assert_eq!(
            run(stderr).first_error().as_deref(),
            Some("error[E0583]: file not found for module `imp`")
        );
        let long = format!("error: {}", "é".repeat(400));
        let cut = run(&long).first_error().unwrap();
        assert_eq!(cut.chars().count(), 161);
        assert!(cut.ends_with('…'));
        assert_eq!(run("warning: only this\n").first_error(), None);
    }
}
