//! The `protograph` command: parse arguments, run, set the exit code.

fn main() {
    let cli = <protograph::cli::Cli as clap::Parser>::parse();
    if let Err(err) = protograph::cli::run(cli) {
        eprintln!("protograph: {err:#}");
        std::process::exit(1);
    }
}
