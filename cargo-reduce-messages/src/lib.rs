//! The machine-readable output of [cargo-reduce]: the messages of
//! `--message-format json` ([`Line`], [`Message`]), the report of
//! `cargo reduce ci --report` ([`ci::CiReport`]) and the exit codes
//! ([`Exit`]), as types to read them with. The crate depends on serde
//! only; the `schema` feature derives the JSON Schemas that cargo-reduce
//! commits in `schemas/`.
//!
//! ```
//! use cargo_reduce_messages::{Line, Message};
//!
//! let text = r#"{"reason":"reduction-stopped","why":"max-time","format_version":1}"#;
//! # let parse = |t: &str| -> Line { serde_json::from_str(t).unwrap() };
//! let line: Line = parse(text);
//! assert!(matches!(line.message, Message::ReductionStopped { .. }));
//! ```
//!
//! A consumer ignores fields it does not know (fields are added within a
//! format version) and checks `format_version` (a message's) or `version`
//! (a report's) before trusting the rest.
//!
//! [cargo-reduce]: https://github.com/cargo-reduce/cargo-reduce

pub mod ci;
mod exit;
mod kinds;
pub mod message;

pub use exit::Exit;
pub use message::{Line, Message};

/// The version of the message format: [`Line::format_version`]. Raised
/// when a field is removed or renamed, or changes its meaning.
pub const FORMAT_VERSION: u32 = 1;
