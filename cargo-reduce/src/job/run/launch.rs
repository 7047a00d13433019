//! The command line that runs a fuzz target's binary on one input, alone
//! or under a debugger, and its start in place of cargo-reduce (the
//! terminal inherited, the exit status the program's).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

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
    /// The program.
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// The file its standard input reads.
    pub stdin: Option<PathBuf>,
}

/// The command line that runs `binary` on `input` (read as `reads` says),
/// under `debugger` if one is given, with `extra` (the words after `--`)
/// as the debugger's options, before the program. Under GDB and LLDB an
/// input on standard input is their own redirection (`run < FILE`), so that
/// the debugger keeps the terminal.
pub(crate) fn launch(
    binary: &Path,
    input: &Path,
    reads: Reads,
    debugger: Option<Debugger>,
    extra: &[OsString],
) -> Launch {
    let program_args = |with_input: bool| -> Vec<OsString> {
        let mut args = vec![binary.as_os_str().to_owned()];
        if with_input {
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
            return Launch {
                program,
                args: words,
                stdin,
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
        program: debugger.map(Debugger::program).unwrap_or_default().into(),
        args,
        stdin,
    }
}

impl Launch {
    /// The command line as a shell takes it (`< FILE` for standard input).
    pub(crate) fn display(&self) -> String {
        let words = std::iter::once(&self.program)
            .chain(&self.args)
            .map(|w| w.to_string_lossy().into_owned());
        let mut line = shell::line(words);
        if let Some(stdin) = &self.stdin {
            line.push_str(" < ");
            line.push_str(&shell::quoted(&stdin.to_string_lossy()));
        }
        line
    }

    /// Starts the program in place of this process: it has the terminal,
    /// its signals and its exit status are the user's to see. Returns
    /// only if it cannot start.
    pub(crate) fn exec(&self) -> std::io::Error {
        use std::os::unix::process::CommandExt;
        let mut command = std::process::Command::new(&self.program);
        command.args(&self.args);
        if let Some(stdin) = &self.stdin {
            match std::fs::File::open(stdin) {
                Ok(file) => {
                    command.stdin(file);
                }
                Err(e) => return e,
            }
        }
        command.exec()
    }
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
            debugger,
            &extra,
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
            "gdb -batch -ex run -ex bt --args /t/debug/parse '/a/crash 1'"
        );
        assert_eq!(
            line(arg, Some(Lldb), &[]),
            "lldb -- /t/debug/parse '/a/crash 1'"
        );
        assert_eq!(
            line(arg, Some(Rr), &["--chaos"]),
            "rr record --chaos /t/debug/parse '/a/crash 1'"
        );
    }

    #[test]
    fn an_afl_binary_reads_the_input_on_stdin() {
        use Debugger::*;
        let stdin = Reads::Stdin;
        assert_eq!(line(stdin, None, &[]), "/t/debug/parse < '/a/crash 1'");
        assert_eq!(
            line(stdin, Some(Rr), &[]),
            "rr record /t/debug/parse < '/a/crash 1'"
        );
        // The debugger keeps the terminal; the program's run redirects.
        assert_eq!(
            line(stdin, Some(Gdb), &["-batch"]),
            "gdb -ex \"set args < '/a/crash 1'\" -batch --args /t/debug/parse"
        );
        let lldb = launch(Path::new("b"), Path::new("/a/c"), stdin, Some(Lldb), &[]);
        assert_eq!(lldb.stdin, None);
        assert_eq!(
            lldb.args,
            ["-o", "settings set target.input-path /a/c", "--", "b"].map(OsString::from)
        );
    }
}
