//! The command line that runs a fuzz target's binary on one input, alone
//! or under a debugger, and its start in place of cargo-reduce (the
//! terminal inherited, the exit status the program's), or as its child
//! when the program may stop itself after the input (an afl.rs binary).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::job::shell;

/// A debugger `cargo reduce run` can start the binary under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub(crate) enum Debugger {
    /// GDB: `gdb --args BIN INPUT`.
    Gdb,
    /// LLDB: `lldb -- BIN INPUT`.
    Lldb,
    /// rr, recording: `rr record BIN INPUT` (then `rr replay`).
    Rr,
}

impl Debugger {
    /// Its program.
    pub(crate) fn program(self) -> &'static str {
        match self {
            Debugger::Gdb => "gdb",
            Debugger::Lldb => "lldb",
            Debugger::Rr => "rr",
        }
    }

    /// How to install it (Debian's and Ubuntu's package; elsewhere the
    /// system's of the same name).
    pub(crate) fn install(self) -> String {
        let package = self.program();
        format!("install it (`apt-get install {package}`, or your system's `{package}` package)")
    }
}

/// How a target's binary reads its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reads {
    /// A file named on its command line (libFuzzer: `BIN FILE` runs it once).
    Argument,
    /// Standard input (afl.rs outside afl-fuzz).
    Stdin,
}

/// A program to start, its arguments, and the file on its standard input
/// (none: the terminal's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Launch {
    /// Environment it gets besides this process's.
    pub env: Vec<(OsString, OsString)>,
    /// The program.
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// The file its standard input reads.
    pub stdin: Option<PathBuf>,
    /// Whether it is started as a child and waited for ([`Launch::wait`])
    /// rather than in place of cargo-reduce: an afl.rs binary alone, whose
    /// `fuzz!` loop (afl.rs before 0.17.1) stops itself with SIGSTOP after
    /// the input, waiting for afl-fuzz's next one, and would be left stopped.
    pub waits: bool,
    /// How long a waited program may run before it is ended (`--timeout`,
    /// or a timeout artifact's timeout).
    pub deadline: Option<Duration>,
}

/// How a program started by [`Launch::wait`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ended {
    /// It exited with this status.
    Exited(i32),
    /// This signal ended it.
    Signaled(i32),
    /// It stopped itself (SIGSTOP) after the input, as AFL++'s persistent
    /// loop does outside afl-fuzz, and was ended (SIGKILL): the input ran
    /// through once.
    Paused,
    /// It was still running at its deadline, after this long, and was
    /// ended (SIGKILL).
    TimedOut(Duration),
}

/// The command line that runs `binary` on `input` (read as `reads` says),
/// under `debugger` if one is given, with `extra` (the words after `--`)
/// as the debugger's options, before the program. Under GDB and LLDB an
/// input on standard input is their own redirection (`run < FILE`), so that
/// the debugger keeps the terminal. `timeout`: `--timeout` or a timeout artifact's, as
/// libFuzzer's `-timeout` (whole seconds, rounded up; its default is 20
/// minutes), or for an afl.rs binary alone, the wait's ([`Launch::wait`]).
/// `user_asan_options`: the environment's `ASAN_OPTIONS`.
pub(crate) fn launch(
    binary: &Path,
    input: &Path,
    reads: Reads,
    timeout: Option<Duration>,
    debugger: Option<Debugger>,
    extra: &[OsString],
    user_asan_options: Option<OsString>,
) -> Launch {
    let program_args = |with_input: bool| -> Vec<OsString> {
        let mut args = vec![binary.as_os_str().to_owned()];
        if with_input {
            args.extend(timeout.map(libfuzzer_timeout));
            args.push(input.as_os_str().to_owned());
        }
        args
    };
    let by_argument = reads == Reads::Argument;
    let redirected = shell::quoted(&input.to_string_lossy());
    let mut args: Vec<OsString> = Vec::new();
    let stdin = match (debugger, reads) {
        (None | Some(Debugger::Rr), Reads::Stdin) => Some(input.to_path_buf()),
        _ => None,
    };
    match debugger {
        None => {
            let mut words = program_args(by_argument);
            let program = words.remove(0);
            let waits = reads == Reads::Stdin;
            return Launch {
                env: Vec::new(),
                program,
                args: words,
                waits,
                stdin,
                deadline: timeout.filter(|_| waits),
            };
        }
        Some(Debugger::Gdb) => {
            if !by_argument {
                args.extend(["-ex".into(), format!("set args < {redirected}").into()]);
            }
            args.extend(extra.iter().cloned());
            args.push("--args".into());
        }
        Some(Debugger::Lldb) => {
            if !by_argument {
                let setting = format!("settings set target.input-path {redirected}");
                args.extend(["-o".into(), setting.into()]);
            }
            args.extend(extra.iter().cloned());
            args.push("--".into());
        }
        Some(Debugger::Rr) => {
            args.push("record".into());
            args.extend(extra.iter().cloned());
        }
    }
    args.extend(program_args(by_argument));
    Launch {
        env: vec![(
            "ASAN_OPTIONS".into(),
            traced_asan_options(user_asan_options),
        )],
        program: debugger.map(Debugger::program).unwrap_or_default().into(),
        args,
        stdin,
        waits: false,
        deadline: None,
    }
}

/// libFuzzer's `-timeout` flag for `timeout`: whole seconds, at least one.
fn libfuzzer_timeout(timeout: Duration) -> OsString {
    let seconds = timeout.as_secs() + u64::from(timeout.subsec_nanos() > 0);
    format!("-timeout={}", seconds.max(1)).into()
}

/// `ASAN_OPTIONS` for a binary under a debugger: LeakSanitizer's check
/// at exit cannot run under ptrace (it stops the run with "LeakSanitizer
/// has encountered a fatal error" and status 1, in an AddressSanitizer
/// build, `cargo fuzz build`'s default), so it is turned off; the user's
/// options come after, and win.
fn traced_asan_options(user: Option<OsString>) -> OsString {
    let mut options = OsString::from("detect_leaks=0");
    if let Some(user) = user.filter(|u| !u.is_empty()) {
        options.push(":");
        options.push(user);
    }
    options
}

impl Launch {
    /// The command line as a shell takes it (`< FILE` for standard input).
    pub(crate) fn display(&self) -> String {
        let env = self.env.iter().map(|(name, value)| {
            let assignment = format!("{}={}", name.to_string_lossy(), value.to_string_lossy());
            shell::quoted(&assignment)
        });
        let words = std::iter::once(&self.program)
            .chain(&self.args)
            .map(|w| shell::quoted(&w.to_string_lossy()));
        let mut line = env.chain(words).collect::<Vec<_>>().join(" ");
        if let Some(stdin) = &self.stdin {
            line.push_str(" < ");
            line.push_str(&shell::quoted(&stdin.to_string_lossy()));
        }
        line
    }

    /// The command, its standard input opened.
    fn command(&self) -> std::io::Result<std::process::Command> {
        let mut command = std::process::Command::new(&self.program);
        command.args(&self.args).envs(self.env.iter().cloned());
        if let Some(stdin) = &self.stdin {
            command.stdin(std::fs::File::open(stdin)?);
        }
        Ok(command)
    }

    /// Starts the program in place of this process: it has the terminal,
    /// its signals and its exit status are the user's to see. Returns
    /// only if it cannot start.
    pub(crate) fn exec(&self) -> std::io::Error {
        use std::os::unix::process::CommandExt;
        match self.command() {
            Ok(mut command) => command.exec(),
            Err(e) => e,
        }
    }

    /// Starts the program as a child (the terminal inherited) and waits
    /// until it ends, or stops itself with SIGSTOP: then it is waiting for
    /// afl-fuzz's next input, which never comes, so it is killed. A stop
    /// by the terminal (Ctrl-Z) stops cargo-reduce too, and the wait goes
    /// on after `fg`.
    pub(crate) fn wait(&self) -> std::io::Result<Ended> {
        use rustix::process::{waitpid, Pid, Signal, WaitOptions};
        let child = self.command()?.spawn()?;
        let pid = Pid::from_child(&child);
        let started = Instant::now();
        // With a deadline, the wait polls (the child stays unreaped until
        // it is seen to end, so its pid cannot be another's when killed).
        let options = match self.deadline {
            Some(_) => WaitOptions::UNTRACED | WaitOptions::NOHANG,
            None => WaitOptions::UNTRACED,
        };
        loop {
            let status = match waitpid(Some(pid), options) {
                Ok(Some((_, status))) => status,
                Ok(None) if self.deadline.is_some_and(|d| started.elapsed() >= d) => {
                    end(pid);
                    return Ok(Ended::TimedOut(started.elapsed()));
                }
                Ok(None) => {
                    std::thread::sleep(Duration::from_millis(5));
                    continue;
                }
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => return Err(e.into()),
            };
            if let Some(code) = status.exit_status() {
                return Ok(Ended::Exited(code));
            }
            if let Some(signal) = status.terminating_signal() {
                return Ok(Ended::Signaled(signal));
            }
            if status.stopping_signal() == Some(Signal::STOP.as_raw()) {
                end(pid);
                return Ok(Ended::Paused);
            }
        }
    }
}

/// Ends the child `pid` and reaps it.
fn end(pid: rustix::process::Pid) {
    use rustix::process::{kill_process, waitpid, Signal, WaitOptions};
    let _ = kill_process(pid, Signal::KILL);
    let _ = waitpid(Some(pid), WaitOptions::empty());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(reads: Reads, debugger: Option<Debugger>, extra: &[&str]) -> String {
        let extra: Vec<OsString> = extra.iter().map(OsString::from).collect();
        launch(
            Path::new("/t/debug/parse"),
            Path::new("/a/crash 1"),
            reads,
            None,
            debugger,
            &extra,
            None,
        )
        .display()
    }

    #[test]
    fn a_libfuzzer_binary_takes_the_input_as_its_argument() {
        use Debugger::*;
        let arg = Reads::Argument;
        assert_eq!(line(arg, None, &[]), "/t/debug/parse '/a/crash 1'");
        assert_eq!(
            line(arg, Some(Gdb), &["-batch", "-ex", "run", "-ex", "bt"]),
            "ASAN_OPTIONS=detect_leaks=0 gdb -batch -ex run -ex bt --args /t/debug/parse '/a/crash 1'"
        );
        assert_eq!(
            line(arg, Some(Lldb), &[]),
            "ASAN_OPTIONS=detect_leaks=0 lldb -- /t/debug/parse '/a/crash 1'"
        );
        assert_eq!(
            line(arg, Some(Rr), &["--chaos"]),
            "ASAN_OPTIONS=detect_leaks=0 rr record --chaos /t/debug/parse '/a/crash 1'"
        );
    }

    #[test]
    fn an_afl_binary_reads_the_input_on_stdin() {
        use Debugger::*;
        let stdin = Reads::Stdin;
        assert_eq!(line(stdin, None, &[]), "/t/debug/parse < '/a/crash 1'");
        assert_eq!(
            line(stdin, Some(Rr), &[]),
            "ASAN_OPTIONS=detect_leaks=0 rr record /t/debug/parse < '/a/crash 1'"
        );
        // The debugger keeps the terminal; the program's run redirects.
        assert_eq!(
            line(stdin, Some(Gdb), &["-batch"]),
            "ASAN_OPTIONS=detect_leaks=0 gdb -ex \"set args < '/a/crash 1'\" -batch --args /t/debug/parse"
        );
        let user = Some("halt_on_error=0".into());
        let lldb = launch(
            Path::new("b"),
            Path::new("/a/c"),
            stdin,
            None,
            Some(Lldb),
            &[],
            user,
        );
        // The user's ASAN_OPTIONS come last, and win.
        assert_eq!(
            lldb.env,
            [(
                "ASAN_OPTIONS".into(),
                "detect_leaks=0:halt_on_error=0".into()
            )]
        );
        assert_eq!(lldb.stdin, None);
        assert_eq!(
            lldb.args,
            ["-o", "settings set target.input-path /a/c", "--", "b"].map(OsString::from)
        );
    }

    /// `sh -c SCRIPT` as a launch that waits, its standard input `stdin`.
    fn shell(script: &str, stdin: Option<PathBuf>) -> Launch {
        Launch {
            env: Vec::new(),
            program: "sh".into(),
            args: vec!["-c".into(), script.into()],
            stdin,
            waits: true,
            deadline: None,
        }
    }

    /// [`Launch::wait`] in a thread, so that a wait that never ends fails
    /// the test instead of hanging it.
    fn ended(launch: Launch) -> Ended {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || tx.send(launch.wait().unwrap()));
        rx.recv_timeout(std::time::Duration::from_secs(60))
            .expect("the wait ended")
    }

    #[test]
    fn only_an_afl_binary_alone_is_waited_for() {
        let waits = |reads, debugger| {
            launch(
                Path::new("b"),
                Path::new("i"),
                reads,
                None,
                debugger,
                &[],
                None,
            )
            .waits
        };
        assert!(waits(Reads::Stdin, None));
        assert!(!waits(Reads::Argument, None));
        assert!(!waits(Reads::Stdin, Some(Debugger::Gdb)));
        assert!(!waits(Reads::Stdin, Some(Debugger::Rr)));
    }

    /// afl.rs's `fuzz!` before 0.17.1 under AFL++'s runtime, outside
    /// afl-fuzz: one pass over the input, then SIGSTOP in the persistent
    /// loop, for an input that never comes.
    #[test]
    fn a_program_that_stops_itself_after_the_input_is_ended() {
        let input = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(input.path(), "abc\n").unwrap();
        let script = "read x; test \"$x\" = abc || exit 9; kill -STOP $$; exit 3";
        let stdin = Some(input.path().to_path_buf());
        assert_eq!(ended(shell(script, stdin)), Ended::Paused);
    }

    #[test]
    fn a_waited_program_ends_with_its_status_or_signal() {
        let input = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(input.path(), "abc\n").unwrap();
        let stdin = Some(input.path().to_path_buf());
        assert_eq!(
            ended(shell("read x; test \"$x\" = abc", stdin)),
            Ended::Exited(0)
        );
        assert_eq!(ended(shell("exit 3", None)), Ended::Exited(3));
        assert_eq!(ended(shell("kill -ABRT $$", None)), Ended::Signaled(6));
    }

    #[test]
    fn a_timeout_artifact_runs_under_its_timeout() {
        let timeout = Some(Duration::from_millis(1500));
        let libfuzzer = launch(
            Path::new("/t/parse"),
            Path::new("/a/timeout-1"),
            Reads::Argument,
            timeout,
            Some(Debugger::Gdb),
            &[],
            None,
        );
        assert_eq!(
            libfuzzer.args,
            ["--args", "/t/parse", "-timeout=2", "/a/timeout-1"].map(OsString::from)
        );
        assert_eq!(libfuzzer.deadline, None, "libFuzzer times itself");
        let afl = launch(
            Path::new("b"),
            Path::new("i"),
            Reads::Stdin,
            timeout,
            None,
            &[],
            None,
        );
        assert_eq!(afl.args, Vec::<OsString>::new());
        assert_eq!(afl.deadline, timeout);
    }

    #[test]
    fn a_waited_program_past_its_deadline_is_ended() {
        let endless = Launch {
            deadline: Some(Duration::from_millis(100)),
            ..shell("while :; do :; done", None)
        };
        assert!(
            matches!(ended(endless), Ended::TimedOut(after) if after >= Duration::from_millis(100))
        );
        let quick = Launch {
            deadline: Some(Duration::from_secs(50)),
            ..shell("exit 3", None)
        };
        assert_eq!(ended(quick), Ended::Exited(3));
    }
}
