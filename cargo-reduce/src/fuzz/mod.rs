//! Everything about fuzz engines: finding fuzz crates and their failing
//! inputs, building the user's targets against the stand-in, running them
//! in long-lived worker pools, and reducing one failing input.

pub(crate) mod effort;
pub(crate) mod engines;
pub(crate) mod lines;
pub(crate) mod matching;
pub(crate) mod oracle;
pub(crate) mod pool;
pub(crate) mod project;
pub(crate) mod sanitizer;
pub(crate) mod shrink;
pub(crate) mod standin;
pub(crate) mod toolchain;
