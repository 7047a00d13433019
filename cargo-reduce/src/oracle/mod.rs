//! Oracles that run real things. The engine's [`crate::engine::Oracle`]
//! trait is implemented here, outside the engine, for each way of testing a
//! candidate: [`command`] runs an external test command per candidate.

pub mod command;

pub use command::{CommandError, CommandOracle, RunResult, RunStatus, TestCommand};
