//! `cargo reduce file INPUT -- CMD…`: the arguments, handed to
//! [`crate::job::file`] as a request.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use super::options::{parse_seconds, ReduceOptions};
use super::render::Reporter;
use crate::error::{Error, Exit};
use crate::job::file::FileRequest;
use crate::job::LangChoice;
use crate::syntax::{strategy_help, Strategy};
use crate::unit::Units;

/// Arguments of `cargo reduce file`.
#[derive(Debug, Clone, Args)]
pub(crate) struct FileArgs {
    /// The file to reduce; it is never modified.
    pub input: PathBuf,
    /// Where to write the result [default: INPUT's stem + `.reduced` + its
    /// extension, beside INPUT; `_reduced` for a `.rs` file].
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// What ddmin removes, one pass per `+`-separated unit: byte, char,
    /// line, token [default: line+char for text that is not Rust or
    /// JavaScript, byte for binary input].
    #[arg(long, value_name = "UNITS", conflicts_with = "strategy")]
    pub unit: Option<Units>,
    /// INPUT's language for syntax-aware reduction: rust, js, text, or auto
    /// (by extension, then by content).
    #[arg(long, value_name = "LANG", default_value = "auto")]
    pub lang: LangChoice,
    /// Syntax-aware strategy: a name, then any `,+PART`/`,-PART` (the
    /// help text lists them, from the registry of passes).
    #[arg(long, value_name = "STRATEGY", help = strategy_help(
        "[default: best for Rust and JavaScript; other text gets --unit passes unless a strategy is given]"
    ))]
    pub strategy: Option<Strategy>,
    /// Pretty-print the result (rustfmt; prettier where installed) when
    /// the formatted text still fails: the `format` part of the strategy.
    #[arg(long, conflicts_with = "unit")]
    pub pretty: bool,
    /// Kill a test after SECS seconds; it then counts as not interesting
    /// [default: 60 s for INPUT itself, then 10× INPUT's time, at least 1 s].
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, allow_negative_numbers = true)]
    pub timeout: Option<Duration>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub reduce: ReduceOptions,
    /// The test command: exit status 0 means the candidate is interesting.
    /// `{}` stands for the candidate's path (appended when absent).
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<OsString>,
}

impl FileArgs {
    /// The request these arguments make.
    pub(crate) fn request(&self) -> FileRequest {
        FileRequest {
            input: self.input.clone(),
            output: self.output.clone(),
            units: self.unit.clone(),
            lang: self.lang,
            strategy: self.strategy,
            format: self.pretty,
            timeout: self.timeout,
            command: self.command.clone(),
        }
    }
}

/// Runs `cargo reduce file`.
pub(crate) fn run(
    args: &FileArgs,
    reporter: &Reporter,
    interrupt: Arc<AtomicBool>,
) -> Result<Exit, Error> {
    if args.output.as_deref() == Some(std::path::Path::new("-")) && reporter.is_json() {
        return Err(Error::new(
            Exit::Usage,
            "-o - writes the result to standard output, which --message-format json fills with its messages: give -o a file path",
        ));
    }
    crate::job::file::run(&args.request(), &args.reduce.settings(interrupt), reporter)
}
