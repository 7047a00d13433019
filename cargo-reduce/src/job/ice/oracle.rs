//! Running rustc on a candidate, and the oracle that keeps a candidate when
//! rustc crashes on it the same way as on the input. Every run happens in
//! a private temporary directory (the candidate, rustc's outputs, and the
//! `rustc-ice-*.txt` files new compilers write into the working
//! directory), in a process group of its own that is killed when the run
//! ends, with a timeout and an address-space limit.

use std::fs;
use std::io::{self, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rustix::process::{prlimit, Pid, Resource, Rlimit};

use super::invocation::Invocation;
use super::signature::{Match, Signature, Spelled};
use crate::command::wait::wait;
use crate::command::RunStatus;
use crate::engine::{Cancel, Candidate, Oracle, OracleError, Outcome};
use crate::unit::{concat_into, ByteAtom};

/// rustc's standard error is read up to this size: the ICE's first lines
/// and the query stack come well before it.
const MAX_STDERR: u64 = 8 << 20;

/// rustc's `--out-dir`, in the private directory.
const OUT_DIR: &str = "out";

/// How rustc runs on candidates.
#[derive(Debug)]
pub(crate) struct Rustc {
    /// The command line; its crate root is replaced by the candidate.
    pub(crate) invocation: Invocation,
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
}

impl Rustc {
    /// rustc as `invocation` runs it, on files called `file_name`.
    pub(crate) fn new(
        invocation: Invocation,
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
    pub(crate) fn with_invocation(&self, invocation: Invocation) -> Rustc {
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

/// Keeps a candidate when rustc crashes on it with the expected ICE.
pub(crate) struct IceOracle {
    /// How rustc runs.
    pub(crate) rustc: Rustc,
    /// The input's ICE.
    pub(crate) expected: Signature,
    /// How closely a candidate's ICE must agree.
    pub(crate) level: Match,
    /// The words of the input the expected ICE came from.
    pub(crate) spelled: Spelled,
}

impl IceOracle {
    /// The oracle for the same ICE in `text`, compiled by `invocation`: a
    /// dependency taken into the MCVE brings its own words.
    pub(crate) fn for_text(&self, invocation: Invocation, text: &[u8]) -> IceOracle {
        IceOracle {
            rustc: self.rustc.with_invocation(invocation),
            expected: self.expected.clone(),
            level: self.level,
            spelled: self.spelled.with(text),
        }
    }

    /// Whether `got`, rustc's ICE on `source`, is the expected one: the
    /// names of the message are the words of either source.
    pub(crate) fn is_expected(&self, got: &Signature, source: &[u8]) -> bool {
        let candidate = Spelled::of(source);
        let spelled = |w: &str| self.spelled.contains(w) || candidate.contains(w);
        got.matches(&self.expected, self.level, &spelled)
    }

    /// Whether `source` ICEs as expected; `None` when cancelled.
    pub(crate) fn same_ice(&self, source: &[u8], cancel: &Cancel<'_>) -> io::Result<Option<bool>> {
        self.same_ice_by(&self.rustc, source, cancel)
    }

    /// Whether `source` ICEs as expected when `rustc` compiles it.
    pub(crate) fn same_ice_by(
        &self,
        rustc: &Rustc,
        source: &[u8],
        cancel: &Cancel<'_>,
    ) -> io::Result<Option<bool>> {
        let run = rustc.run(source, cancel)?;
        Ok(match run.status {
            RunStatus::Cancelled => None,
            _ => Some(
                run.signature()
                    .is_some_and(|s| self.is_expected(&s, source)),
            ),
        })
    }
}

impl<A: ByteAtom + Sync> Oracle<A> for IceOracle {
    fn test(
        &self,
        candidate: &Candidate<'_, A>,
        cancel: &Cancel<'_>,
    ) -> Result<Option<Outcome>, OracleError> {
        outcome_of_text(candidate, &|text| self.same_ice(text, cancel))
    }
}

/// Whether a text crashes rustc as expected; `None` when cancelled.
pub(crate) type SameIce<'a> = dyn Fn(&[u8]) -> io::Result<Option<bool>> + 'a;

/// The outcome of `candidate`'s text by `same_ice`.
pub(crate) fn outcome_of_text<A: ByteAtom>(
    candidate: &Candidate<'_, A>,
    same_ice: &SameIce<'_>,
) -> Result<Option<Outcome>, OracleError> {
    let mut bytes = Vec::new();
    concat_into(candidate.iter(), &mut bytes);
    Ok(same_ice(&bytes)?.map(Outcome::from_bool))
}

/// Compiles `file` in `dir` with the real rustc as a 2021 library, for
/// the tests that check a rewritten crate still builds: rustc's stderr
/// when it fails.
#[cfg(test)]
pub(super) fn compile_lib(dir: &Path, file: &str) -> Result<(), String> {
    let out = std::process::Command::new("rustc")
        .args(["--edition=2021", "--crate-type=lib", file, "--out-dir", "."])
        .current_dir(dir)
        .output()
        .expect("rustc runs");
    match out.status.success() {
        true => Ok(()),
        false => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
    }
}

/// [`compile_lib`] on `source`, as a file of a directory of its own.
#[cfg(test)]
pub(super) fn compile_lib_source(source: &str) -> Result<(), String> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("one.rs"), source).expect("the file is written");
    compile_lib(dir.path(), "one.rs")
}

/// The oracle of the ICE that `command` (rustc's, on a file `x.rs`) gives
/// on `source`, for the tests of the steps that use one.
#[cfg(test)]
pub(super) fn oracle_for(source: &str, command: &str) -> IceOracle {
    use crate::engine::Limits;
    let invocation = Invocation::parse(command, Path::new("/")).expect("a rustc command");
    let rustc = Rustc::new(
        invocation,
        "x.rs".into(),
        Duration::from_secs(120),
        None,
        false,
    );
    let never = Limits::none();
    let first = rustc
        .run(source.as_bytes(), &Cancel::by_limits(&never))
        .unwrap();
    let Some(expected) = first.signature() else {
        panic!(
            "rustc 1.95 crashes on this; this rustc does not:\n{}",
            first.stderr
        );
    };
    IceOracle {
        rustc,
        expected,
        level: Match::Message,
        spelled: Spelled::of(source.as_bytes()),
    }
}
