//! The `cargo-reduce` binary: parse, dispatch, set the exit code.
fn main() {}
