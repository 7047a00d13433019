//! Running the patched `cargo build`: in its own process group (ended if
//! Ctrl-C interrupts the build), with `--keep-going`, so that one target
//! that does not compile does not keep the others from being built, and
//! with cargo's JSON messages, which say which binary each target became
//! and which target each compiler error belongs to.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::Duration;

use cargo_metadata::Message;

use super::error::BuildError;
use super::invoke::command_line;

/// What one cargo build produced.
#[derive(Debug, Default)]
pub(super) struct Output {
    /// Each binary target built, by name.
    pub binaries: HashMap<String, PathBuf>,
    /// Rendered compiler errors, by target name.
    pub errors: HashMap<String, String>,
    /// The units cargo compiled (did not find fresh), as `package target`,
    /// in the order it finished them.
    pub compiled: Vec<String>,
    /// cargo's own stderr (progress, its errors, warnings), its end.
    pub stderr: String,
    /// How cargo ended.
    pub status: Option<ExitStatus>,
}

impl Output {
    /// All compiler errors, rendered, then cargo's stderr.
    pub(super) fn diagnostics(&self) -> String {
        let mut text: String = self.errors.values().map(String::as_str).collect();
        text.push_str(&self.stderr);
        tail(&text, 8000).to_string()
    }
}

/// How often the build checks whether Ctrl-C was pressed.
const INTERRUPT_POLL: Duration = Duration::from_millis(50);

/// Runs `command` (a `cargo build`, to which this adds `--keep-going` and
/// JSON messages). Stops the build when cargo warns that the patch of the
/// stand-in in `harness` was not used (it would link the real engine) and
/// when `interrupt` is set.
pub(super) fn run(
    command: &mut Command,
    harness: &Path,
    interrupt: &AtomicBool,
) -> Result<(Output, bool), BuildError> {
    command.args(["--keep-going", "--message-format", "json"]);
    let line = command_line(command);
    die_with_this_process(command);
    command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    crate::children::announce_before_exec(command);
    let mut child = command.spawn().map_err(|source| BuildError::Spawn {
        command: line.clone(),
        source,
    })?;
    let _group = crate::children::register(child.id());
    let stdout = child.stdout.take().expect("piped");
    let stderr = child.stderr.take().expect("piped");
    let (finished, done) = channel::<()>();
    let (mut output, unused_patch, interrupted) = std::thread::scope(|scope| {
        let messages = scope.spawn(|| read_messages(stdout));
        let watched = &child;
        let watcher = scope.spawn(move || watch(watched, interrupt, done, INTERRUPT_POLL));
        let (stderr, unused_patch) = read_stderr(stderr, harness, &child);
        let output = messages.join().expect("message reader");
        // Wakes the watcher at once: a no-op build ends without waiting
        // out its poll.
        drop(finished);
        let interrupted = watcher.join().expect("watcher");
        (Output { stderr, ..output }, unused_patch, interrupted)
    });
    output.status = Some(child.wait().map_err(|source| BuildError::Spawn {
        command: line.clone(),
        source,
    })?);
    if interrupted || interrupt.load(Ordering::SeqCst) {
        return Err(BuildError::Interrupted);
    }
    Ok((output, unused_patch))
}

/// Makes `command`'s process die (SIGKILL) when the thread that starts it
/// ends, which for a build is when cargo-reduce ends: a cargo-reduce
/// killed by SIGKILL (or an OOM killer) cannot stop its build, which
/// would otherwise run on to its end without it. (The rustc processes
/// cargo started finish the crate they compile.) Builds start on the main
/// thread, which lives as long as the process.
fn die_with_this_process(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    let parent = rustix::process::getpid();
    // SAFETY: only prctl and getppid (plain system calls, async-signal-
    // safe) run in the child between fork and exec.
    unsafe {
        command.pre_exec(move || {
            rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))?;
            // The parent died before the prctl: the signal will never come.
            if rustix::process::getppid() != Some(parent) {
                return Err(std::io::Error::other("cargo-reduce ended"));
            }
            Ok(())
        });
    }
}

/// Kills the build's process group when `interrupt` is set (looked at
/// every `poll`); returns whether it did. Ends as soon as the sender of
/// `done` is dropped (the build's output is read), not at the next poll:
/// a warm `cargo reduce ci` waits for nothing after its no-op build.
fn watch(child: &Child, interrupt: &AtomicBool, done: Receiver<()>, poll: Duration) -> bool {
    loop {
        if interrupt.load(Ordering::SeqCst) {
            kill_group(child);
            return true;
        }
        match done.recv_timeout(poll) {
            Err(RecvTimeoutError::Timeout) => {}
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return false,
        }
    }
}

fn kill_group(child: &Child) {
    if let Some(pid) = rustix::process::Pid::from_raw(child.id() as i32) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// cargo's stderr, and whether it warned that the patch of the stand-in in
/// `harness` was not used (then the build is stopped at once).
fn read_stderr(stderr: impl Read, harness: &Path, child: &Child) -> (String, bool) {
    let mut text = String::new();
    for line in BufReader::new(stderr).lines() {
        let line = line.unwrap_or_default();
        let unused = names_unused_patch(&line, harness);
        text.push_str(&line);
        text.push('\n');
        if unused {
            kill_group(child);
            return (text, true);
        }
    }
    (tail(&text, 8000).to_string(), false)
}

/// Whether cargo's stderr `line` warns that the patch of the stand-in in
/// `harness` was not used: ``Patch `libfuzzer-sys v0.4.12 (/…/libfuzzer-sys-0.4.12)`
/// was not used in the crate graph``. Another engine's companion patch goes
/// unused wherever the lock holds that engine for a package outside the
/// build (an afl.rs crate beside a cargo-fuzz crate in one workspace), and
/// does no harm. The directory is matched by its name, however cargo
/// spells the path before it.
fn names_unused_patch(line: &str, harness: &Path) -> bool {
    let name = harness.file_name().unwrap_or_default().to_string_lossy();
    line.contains("was not used in the crate graph")
        && (line.contains(&format!("/{name})")) || line.contains(&format!("({name})")))
}

/// The binaries built and the compiler errors, from cargo's JSON messages.
fn read_messages(stdout: impl Read) -> Output {
    let mut output = Output::default();
    for message in Message::parse_stream(BufReader::new(stdout)).flatten() {
        match message {
            Message::CompilerArtifact(artifact) => {
                if !artifact.fresh {
                    let package = artifact.package_id.repr.split('#').next_back();
                    output.compiled.push(format!(
                        "{} {}",
                        package.unwrap_or_default(),
                        artifact.target.name
                    ));
                }
                if let Some(executable) = artifact.executable {
                    output
                        .binaries
                        .insert(artifact.target.name.clone(), executable.into_std_path_buf());
                }
            }
            Message::CompilerMessage(message) => {
                let diagnostic = &message.message;
                if diagnostic.level == cargo_metadata::diagnostic::DiagnosticLevel::Error {
                    let rendered = diagnostic
                        .rendered
                        .as_deref()
                        .unwrap_or(&diagnostic.message);
                    let errors = output
                        .errors
                        .entry(message.target.name.clone())
                        .or_default();
                    errors.push_str(rendered.trim_end());
                    errors.push('\n');
                }
            }
            _ => {}
        }
    }
    output
}

/// The last `max` bytes of `text` (at a character boundary).
fn tail(text: &str, max: usize) -> &str {
    let start = text.len().saturating_sub(max);
    text.char_indices()
        .find(|&(i, _)| i >= start)
        .map_or("", |(i, _)| &text[i..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_dies_with_the_thread_that_started_it() {
        use std::os::unix::process::ExitStatusExt;
        let started = std::time::Instant::now();
        let mut child = std::thread::spawn(|| {
            let mut command = Command::new("sleep");
            command.arg("30");
            die_with_this_process(&mut command);
            command.spawn().unwrap()
        })
        .join()
        .unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(9), "{status:?}");
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }

    /// The watcher ends when the build's output has been read, not at its
    /// next poll (an hour here: with a sleeping poll the test hangs).
    #[test]
    fn the_watcher_ends_when_the_build_is_read() {
        let mut child = Command::new("sleep").arg("30").spawn().unwrap();
        let (finished, done) = channel::<()>();
        let interrupt = AtomicBool::new(false);
        let ended = std::thread::scope(|scope| {
            let (watched, interrupt) = (&child, &interrupt);
            let watcher =
                scope.spawn(move || watch(watched, interrupt, done, Duration::from_secs(3600)));
            drop(finished);
            watcher.join().unwrap()
        });
        assert!(!ended, "nothing was interrupted");
        child.kill().unwrap();
        child.wait().unwrap();
    }

    /// Only the stand-in's own patch going unused stops the build: another
    /// engine's companion goes unused wherever the lock holds that engine
    /// for a package outside the build.
    #[test]
    fn only_the_stand_in_s_unused_patch_stops_the_build() {
        let harness = Path::new("/t/cargo-reduce/libfuzzer-sys-0.4.12");
        let warning = |dir: &str| {
            format!(
                "warning: Patch `libfuzzer-sys v0.4.12 ({dir})` was not used in the crate graph."
            )
        };
        assert!(names_unused_patch(
            &warning("/t/cargo-reduce/libfuzzer-sys-0.4.12"),
            harness
        ));
        assert!(names_unused_patch(
            &warning("/elsewhere/libfuzzer-sys-0.4.12"),
            harness
        ));
        let companion = warning("/t/cargo-reduce/libfuzzer-sys-0.4.12-companion");
        assert!(!names_unused_patch(&companion, harness));
        let afl = "warning: Patch `afl v0.18.2 (/t/cargo-reduce/afl-0.18.2-companion)` was not used in the crate graph.";
        assert!(!names_unused_patch(afl, harness));
        assert!(!names_unused_patch("warning: unused import", harness));
    }
}
