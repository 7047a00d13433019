//! Oracles that run real things. The engine's [`crate::engine::Oracle`]
//! trait is implemented here, outside the engine, for each way of testing a
//! candidate: [`command`] runs an external test command per candidate,
//! [`harness`] runs fuzz-target candidates in in-process worker pools.

pub mod command;
pub mod harness;

pub use command::{CommandError, CommandOracle, RunResult, RunStatus, TestCommand};
pub use harness::{HarnessOracle, MatchLevel};
