//! Everything about fuzz engines: finding fuzz crates and their failing
//! inputs, building the user's targets against the stand-in, running them
//! in long-lived worker pools, and reducing one failing input.

pub mod afl;
pub mod build;
pub mod effort;
pub mod libfuzzer;
pub mod minimize;
pub mod oracle;
pub mod pool;
pub mod project;
pub mod sanitizer;
