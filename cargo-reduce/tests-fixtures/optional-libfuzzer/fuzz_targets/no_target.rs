//! A bin of the fuzz crate that runs no fuzz target.
fn main() {}
