//! cargo-reduce: a test-case reducer for Rust projects.
//!
//! This library is the engine of the `cargo reduce` command, for a
//! project's own tests and tools to reduce inputs with. Its surface is
//! small on purpose:
//! - [`Reducer`]: the settings of a reduction (jobs, test and time limits,
//!   cache, interrupt, [`DdminOptions`]) with a builder, and
//!   [`Reducer::ddmin`]: minimizing delta debugging over any atoms with an
//!   [`Oracle`] (a closure over the [`Candidate`] will do), in parallel,
//!   with results equal to a sequential run's;
//! - [`CommandOracle`]: the oracle that runs an external test command, as
//!   creduce's interestingness tests do;
//! - [`syntax::reduce`] (feature `syntax`): Hierarchical Delta Debugging and
//!   its relatives on tree-sitter trees of Rust and JavaScript.
//!
//! The fuzz-crate discovery, patched builds, in-process worker pools and
//! the command line are the binary's and are not part of this surface.
//! With `default-features = false` only the engine, the command oracle and
//! output writing are built: no tree-sitter, clap, indicatif or
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
#![deny(unreachable_pub)]
// Dead code is looked for in the full build (feature `cli`, the default),
// where the binary uses everything; smaller feature sets leave the parts
// only the left-out layers call (typed reduction, the search, the child
// guardian) unused by design.
#![cfg_attr(not(feature = "cli"), allow(dead_code, unused_imports))]

// The fuzz modes run targets in worker processes that rely on Linux:
// memfd shared memory, /proc, prctl and pthread_getattr_np.
#[cfg(all(feature = "fuzz", not(target_os = "linux")))]
compile_error!(
    "cargo-reduce's fuzz modes support Linux only (memfd, /proc, prctl, pthread_getattr_np)"
);

mod children;
#[cfg(feature = "cli")]
mod cli;
mod command;
mod engine;
#[cfg(feature = "job")]
mod error;
#[cfg(feature = "fuzz")]
mod fuzz;
#[cfg(feature = "job")]
mod job;
mod output;
#[cfg(feature = "fuzz")]
mod spans;
#[cfg(feature = "syntax")]
pub mod syntax;
mod typed;
mod unit;

pub use command::{CommandError, CommandOracle, RunResult, RunStatus, TestCommand};
pub use engine::{
    Algorithm, Cancel, Candidate, DdminOptions, Iteration, Oracle, OracleError, Outcome,
    ReduceError, Reducer, Reduction, RoundOracle, Start, StopReason,
};

// docs/library.md's examples are compiled and run as doc tests.
#[cfg(all(doctest, feature = "syntax"))]
#[doc = include_str!("../../docs/library.md")]
struct LibraryDoc;

/// The `cargo-reduce` command line: what the binary runs (`argv` as given
/// to the process); returns the exit code.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub fn run_cli(argv: Vec<std::ffi::OsString>) -> i32 {
    cli::main(argv)
}
