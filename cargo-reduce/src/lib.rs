//! cargo-reduce: a test-case reducer for Rust projects.
//!
//! The library holds everything the `cargo-reduce` binary does, so that a
//! project's own tests can reduce inputs too:
//! - [`engine`]: delta debugging over atoms, generic over an oracle.
//! - [`unit`]: cutting bytes into atoms (bytes, characters, lines, tokens).
//! - [`oracle`]: oracles that run real things (an external command).
//! - [`cli`]: the command-line interface.
#![deny(missing_docs)]

pub mod artifact;
pub mod cli;
pub mod engine;
pub mod oracle;
pub mod output;
pub mod pool;
pub mod project;
pub mod unit;
