//! cargo-reduce: a test-case reducer for Rust projects.
//!
//! The library holds everything the `cargo-reduce` binary does, so that a
//! project's own tests can reduce inputs too:
//! - `engine`: delta debugging over atoms, generic over an oracle.
//! - `unit`: cutting bytes into atoms (bytes, characters, lines, tokens).
//! - `typed`: reduction of inputs decoded with `arbitrary`, as values.
//! - `command`: the oracle that runs an external test command.
//! - `syntax` (feature `syntax`): Hierarchical Delta Debugging and its
//!   relatives on tree-sitter trees.
//! - `fuzz` (feature `fuzz`): cargo-fuzz crates, their artifacts, the
//!   patched build against a stand-in, and the in-process worker pools.
//! - `job` (feature `job`): the one reduction workflow every mode runs,
//!   and its machine messages.
//! - `cli` (feature `cli`, default): the command-line interface.
//!
//! With `default-features = false` only the engine, units, the command
//! oracle and output writing are built: no tree-sitter, clap, indicatif or
//! cargo_metadata.
//!
//! Reducing with an in-memory oracle (a closure over the candidate):
//!
//! ```
//! use cargo_reduce::{Candidate, Reducer};
//!
//! let oracle = |c: &Candidate<'_, u8>| c.to_vec().windows(6).any(|w| w == b"needle");
//! let reduced = Reducer::new().jobs(2).ddmin(b"hay, a needle, more hay".to_vec(), &oracle).unwrap();
//! assert_eq!(reduced.atoms, b"needle");
//! assert!(reduced.is_minimal());
//! ```
//!
//! The same with an external test command is [`CommandOracle`]; syntax-aware
//! reduction of source text is [`syntax::reduce`] (feature `syntax`).
#![deny(missing_docs)]

// The fuzz modes run targets in worker processes that rely on Linux:
// memfd shared memory, /proc, prctl and pthread_getattr_np.
#[cfg(all(feature = "fuzz", not(target_os = "linux")))]
compile_error!(
    "cargo-reduce's fuzz modes support Linux only (memfd, /proc, prctl, pthread_getattr_np)"
);

pub mod children;
#[cfg(feature = "cli")]
pub mod cli;
pub mod command;
pub mod engine;
#[cfg(feature = "job")]
pub mod error;
#[cfg(feature = "fuzz")]
pub mod fuzz;
#[cfg(feature = "job")]
pub mod job;
pub mod output;
#[cfg(feature = "syntax")]
pub mod syntax;
pub mod typed;
pub mod unit;

pub use command::{CommandOracle, TestCommand};
pub use engine::{
    Candidate, DdminOptions, Oracle, Outcome, ReduceError, Reducer, Reduction, StopReason,
};
