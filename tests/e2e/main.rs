//! End-to-end tests of the `cargo-reduce` binary, run as a user would, with
//! real test commands (sh, grep, python3) and the real fuzz-targets crate. One test binary, one module per
//! subcommand (ripgrep's layout).

mod afl_exit;
mod afl_mode;
mod afl_mode_errors;
mod afl_workspace;
mod asan_retry;
mod ci_mode;
mod ci_mode_errors;
mod corpus_mode;
mod coverage_mode;
mod determinism;
mod faults;
mod faults_fuzz;
mod file_mode;
mod file_mode_errors;
mod first_run;
mod fresh_state;
mod fuzz_fixture;
mod fuzz_mode;
mod fuzz_mode_errors;
mod fuzz_sources;
mod fuzz_workspace;
mod fuzzing_dependency;
mod git_engines;
mod ice_mode;
mod ice_strategy;
mod mixed_engines;
mod nightly;
mod optional_engine;
mod recycled;
mod run_mode;
mod sanitizer;
mod schema;
mod signatures;
mod standin_deps;
mod target_settings;
mod two_engines_workspace;
mod util;
