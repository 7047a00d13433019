//! cargo-reduce: a test-case reducer for Rust projects.
//!
//! The library holds everything the `cargo-reduce` binary does, so that a
//! project's own tests can reduce inputs too:
//! - [`engine`]: delta debugging over atoms, generic over an oracle.
//! - [`unit`]: cutting bytes into atoms (bytes, characters, lines, tokens).
//! - [`oracle`]: oracles that run real things (an external command, a
//!   fuzz target's worker pool).
//! - [`project`], [`artifact`], [`pool`]: cargo-fuzz crates, their
//!   artifacts, and the in-process workers that run them.
//! - [`cli`]: the command-line interface.
//!
//! Reducing with an in-memory oracle:
//!
//! ```
//! use cargo_reduce::engine::{ddmin, Candidate, Context, Counters, DdminOptions, Limits, OutcomeCache};
//!
//! let input = b"a long failing input with the needle somewhere".to_vec();
//! let oracle = |c: &Candidate<'_, u8>| {
//!     let bytes = c.to_vec();
//!     bytes.windows(6).any(|w| w == b"needle")
//! };
//! let (limits, counters, cache) = (Limits::none(), Counters::default(), OutcomeCache::new());
//! let ctx = Context { jobs: 1, limits: &limits, cache: Some(&cache), counters: &counters, observer: &() };
//! let reduced = ddmin(input, &oracle, &DdminOptions::default(), &ctx).unwrap();
//! assert_eq!(reduced.atoms, b"needle");
//! assert!(reduced.is_minimal());
//! ```
#![deny(missing_docs)]

pub mod cli;
pub mod command;
pub mod engine;
pub mod error;
pub mod fuzz;
pub mod job;
pub mod output;
pub mod syntax;
pub mod unit;
