//! The `cargo-reduce` binary: all logic lives in the library.
fn main() {
    std::process::exit(cargo_reduce::cli::main(std::env::args_os().collect()));
}
