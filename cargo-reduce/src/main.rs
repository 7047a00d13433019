//! The `cargo-reduce` binary: all logic lives in the library.
fn main() {
    std::process::exit(cargo_reduce::run_cli(std::env::args_os().collect()));
}
