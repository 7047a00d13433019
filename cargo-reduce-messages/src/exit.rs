//! The exit codes, defined once: `--help`'s list, the README's table and
//! the `exit` field of the `error` and `ci-finished` messages all come
//! from (or are checked against) [`Exit`].

use serde::{Deserialize, Serialize};

/// The process exit status of `cargo reduce`. Every failure a user can
/// cause has its own code, so scripts and CI can tell "your input is
/// wrong" from "your test command is wrong" from "your test is flaky"
/// without parsing messages. In JSON it is the number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "i32", try_from = "i32")]
pub enum Exit {
    /// Done.
    Success = 0,
    /// An unexpected failure (I/O and the like).
    Failure = 1,
    /// Bad command-line usage (clap's code), or a bad setting in a fuzz
    /// crate's `[package.metadata.cargo-reduce]`.
    Usage = 2,
    /// The input is missing, a directory, empty or unreadable; or no fuzz
    /// crate or artifact was found.
    BadInput = 3,
    /// The test command is missing or cannot run.
    BadCommand = 4,
    /// The test command does not find the input interesting; a named
    /// artifact does not reproduce, or none of the inputs found does
    /// (found inputs that no longer fail beside ones that do are no
    /// error).
    NotInteresting = 5,
    /// The test command hangs on the input.
    TimedOut = 6,
    /// The test command (or fuzz target) disagrees with itself.
    Flaky = 7,
    /// The fuzz crate does not build against the libfuzzer-sys stand-in;
    /// in `run`, the engine's own build (`cargo fuzz build`, `cargo afl
    /// build`) failed.
    BuildFailed = 8,
    /// Another cargo-reduce run is writing the same output.
    OutputBusy = 9,
    /// The environment is unusable: the temporary directory cannot be
    /// written (TMPDIR), or a test removed cargo-reduce's own files.
    Environment = 10,
    /// `cargo reduce ci` found a failure the ledger does not have.
    NewFailures = 11,
    /// `cargo reduce ci --fail-on known` found failures, all in the ledger.
    KnownFailures = 12,
    /// The fuzz crate has no lock and cargo cannot resolve its
    /// dependencies (before anything is built).
    ResolveFailed = 13,
    /// `ci merge` was given a report of a format version it does not
    /// read (made by another cargo-reduce).
    UnsupportedReport = 14,
    /// A tool the command needs is not installed: cargo-fuzz, cargo-afl or
    /// the debugger (`run`), a nightly toolchain (`run` on cargo-fuzz,
    /// `--sanitizer address`).
    ToolMissing = 15,
    /// Ctrl-C: the best result so far was written.
    Interrupted = 130,
}

impl Exit {
    /// Every exit status, in numeric order.
    pub const ALL: [Exit; 17] = [
        Exit::Success,
        Exit::Failure,
        Exit::Usage,
        Exit::BadInput,
        Exit::BadCommand,
        Exit::NotInteresting,
        Exit::TimedOut,
        Exit::Flaky,
        Exit::BuildFailed,
        Exit::OutputBusy,
        Exit::Environment,
        Exit::NewFailures,
        Exit::KnownFailures,
        Exit::ResolveFailed,
        Exit::UnsupportedReport,
        Exit::ToolMissing,
        Exit::Interrupted,
    ];

    /// The numeric status.
    pub fn code(self) -> i32 {
        self as i32
    }

    /// The status numbered `code`, if cargo-reduce has one.
    pub fn from_code(code: i32) -> Option<Exit> {
        Exit::ALL.into_iter().find(|e| e.code() == code)
    }

    /// The status of a run that already has `self`, after `other`: the
    /// first failure wins.
    pub fn or(self, other: Exit) -> Exit {
        if self == Exit::Success {
            other
        } else {
            self
        }
    }

    /// What the status means, in one line, as `--help` and the README's
    /// table say it.
    pub fn meaning(self) -> &'static str {
        match self {
            Exit::Success => "done",
            Exit::Failure => "unexpected failure (I/O…); a finished result that could not be written is saved elsewhere",
            Exit::Usage => "usage error: unknown option, target or package; bad Cargo.toml setting; unwritable output",
            Exit::BadInput => "bad input: missing, directory or empty INPUT; no fuzz crate; missing artifact",
            Exit::BadCommand => "the test command is missing or cannot run",
            Exit::NotInteresting => "INPUT is not interesting; a named artifact does not reproduce, or none of those found does",
            Exit::TimedOut => "the test command times out on INPUT",
            Exit::Flaky => "flaky: the test disagrees with itself",
            Exit::BuildFailed => "a fuzz target with inputs does not build against the stand-in (run: by its front end)",
            Exit::OutputBusy => "another cargo-reduce run is writing the same output",
            Exit::Environment => "the environment is unusable: TMPDIR cannot be written, or a test removed cargo-reduce's files",
            Exit::NewFailures => "ci: a new failure (not in the regression ledger)",
            Exit::KnownFailures => "ci --fail-on known: failures, all of them in the ledger",
            Exit::ResolveFailed => "the fuzz crate has no Cargo.lock and cargo cannot resolve its dependencies",
            Exit::UnsupportedReport => "ci merge: a report of another format version (made by another cargo-reduce)",
            Exit::ToolMissing => "a tool is not installed (cargo-fuzz, cargo-afl, cargo-bisect-rustc, nightly, a debugger)",
            Exit::Interrupted => "interrupted; the best result so far was written",
        }
    }

    /// The list `--help` ends with: `Exit codes:`, then one line per
    /// status, the code right-aligned.
    pub fn help() -> String {
        let mut text = String::from("Exit codes:");
        for exit in Exit::ALL {
            text.push_str(&format!("\n{:>5}  {}", exit.code(), exit.meaning()));
        }
        text
    }
}

impl From<Exit> for i32 {
    fn from(exit: Exit) -> i32 {
        exit.code()
    }
}

impl TryFrom<i32> for Exit {
    type Error = String;

    fn try_from(code: i32) -> Result<Exit, String> {
        Exit::from_code(code).ok_or_else(|| format!("{code} is not an exit code of cargo-reduce"))
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Exit {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Exit".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let codes: Vec<i32> = Exit::ALL.iter().map(|e| e.code()).collect();
        let meanings: Vec<String> = Exit::ALL
            .iter()
            .map(|e| format!("{}: {}", e.code(), e.meaning()))
            .collect();
        schemars::json_schema!({
            "description": format!("The exit status. {}", meanings.join("; ")),
            "type": "integer",
            "enum": codes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fails to compile when a variant is added without a place in
    /// [`Exit::ALL`]'s match below.
    fn listed(exit: Exit) -> bool {
        match exit {
            Exit::Success
            | Exit::Failure
            | Exit::Usage
            | Exit::BadInput
            | Exit::BadCommand
            | Exit::NotInteresting
            | Exit::TimedOut
            | Exit::Flaky
            | Exit::BuildFailed
            | Exit::OutputBusy
            | Exit::Environment
            | Exit::NewFailures
            | Exit::KnownFailures
            | Exit::ResolveFailed
            | Exit::UnsupportedReport
            | Exit::ToolMissing
            | Exit::Interrupted => Exit::ALL.contains(&exit),
        }
    }

    #[test]
    fn every_code_is_listed_once_in_order_and_round_trips() {
        for exit in Exit::ALL {
            assert!(listed(exit));
            assert_eq!(Exit::from_code(exit.code()), Some(exit));
            assert_eq!(
                serde_json::to_string(&exit).unwrap(),
                exit.code().to_string()
            );
            let back: Exit = serde_json::from_str(&exit.code().to_string()).unwrap();
            assert_eq!(back, exit);
        }
        assert!(Exit::ALL.windows(2).all(|w| w[0].code() < w[1].code()));
        assert!(serde_json::from_str::<Exit>("99").is_err());
    }

    #[test]
    fn help_has_a_line_per_code() {
        let help = Exit::help();
        assert_eq!(help.lines().count(), Exit::ALL.len() + 1);
        assert!(help.contains("\n   11  ci: a new failure"));
        assert!(help.contains("\n  130  interrupted"));
    }
}
