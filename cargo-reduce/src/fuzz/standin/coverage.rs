//! The coverage build's flags: the targets compiled with SanitizerCoverage
//! as `cargo fuzz build` compiles them (edge coverage, inline 8-bit
//! counters, the PC table, the stack depth), or an afl.rs crate's as
//! `cargo afl build` compiles them (no stack depth: AFL++ has no such
//! feature), on stable, with the stand-in
//! under `cfg(cargo_reduce_coverage)`, which registers the counters and
//! counts each test's features (`harness/src/coverage.rs`). It has a build
//! directory of its own and is built only when a coverage mode asks for it
//! (`BuildKind::Coverage`); the coverage reports' build counts every block
//! and has line tables (`BuildKind::Lines`). Why these flags:
//! docs/design/coverage.md.

/// The `cfg` of the stand-in in the coverage build.
const COVERAGE_CFG: &str = "--cfg cargo_reduce_coverage";

/// The flag that runs SanitizerCoverage; the options below tune it. The
/// stand-in's crate is compiled without it (`sancov_exempt.rs`).
pub(super) const SANCOV_PASS: &str = "-Cpasses=sancov-module";

/// SanitizerCoverage as cargo-fuzz asks for it, minus the comparison
/// tracing (`-sanitizer-coverage-trace-compares`: libFuzzer counts no
/// feature of it without `-use_value_profile=1`); and the code shaped as
/// `cargo fuzz build` shapes it, so that its edges are the same: no branch
/// folding (which merges early returns into one edge) and one codegen
/// unit.
const SANCOV_FLAGS: &str = "-Cllvm-args=-sanitizer-coverage-level=4 \
    -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
    -Cllvm-args=-sanitizer-coverage-pc-table \
    -Cllvm-args=-simplifycfg-branch-fold-threshold=0 \
    -Ccodegen-units=1";

/// The coverage reports' build (`BuildKind::Lines`) adds: a counter in
/// every block, not only in those whose execution no other counter
/// implies (SanitizerCoverage's pruning, which `cargo fuzz build` keeps),
/// and no block made after SanitizerCoverage ran (a select turned into
/// branches, blocks' common tails merged), so that the code from one
/// block's address to the next is that block's alone (a block without a
/// counter would count as the one laid out before it); and line tables
/// with the functions' entries (`limited`: each function, inlined ones
/// too, under its path and linkage name, where `line-tables-only` names an
/// inlined function, a closure say, by its last segment alone), kept in
/// the binary (cargo strips debug info from a release build whose profile
/// asks for none; the last `-C` of a kind wins).
const LINES_FLAGS: &str = "-Cllvm-args=-sanitizer-coverage-prune-blocks=0 \
    -Cllvm-args=-disable-cgp-select2branch \
    -Cllvm-args=-enable-tail-merge=false \
    -Cdebuginfo=limited -Cstrip=none";

/// On x86-64, no `cmov` turned into branches after SanitizerCoverage ran
/// either (see [`LINES_FLAGS`]).
const LINES_X86_64_FLAG: &str = "-Cllvm-args=-x86-cmov-converter=false";

/// The stack depth (cargo-fuzz turns it on for Linux targets), where the
/// stand-in defines its thread-local (x86-64 Linux).
const STACK_DEPTH_FLAG: &str = "-Cllvm-args=-sanitizer-coverage-stack-depth";

/// SanitizerCoverage as `cargo afl build` asks for it (edges, no block
/// pruning, one codegen unit, `-Copt-level=3`, `-Ctarget-cpu=native`: the
/// unrolling of a loop depends on the CPU, and with it the hit counts of
/// its edges), with inline 8-bit counters
/// where afl.rs has `trace-pc-guard` (AFL++'s runtime counts a guard's
/// hits in its map byte just as the inline counter counts them), and
/// without the comparison tracing (AFL++ maps no edge of it without
/// CMPLOG).
const AFL_SANCOV_FLAGS: &str = "-Cllvm-args=-sanitizer-coverage-level=3 \
    -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
    -Cllvm-args=-sanitizer-coverage-pc-table \
    -Cllvm-args=-sanitizer-coverage-prune-blocks=0 \
    -Ccodegen-units=1 \
    -Copt-level=3 \
    -Ctarget-cpu=native";

/// The coverage build's flags, for a build for `host` against the
/// stand-in of `engine` (`afl` or `libfuzzer-sys`).
pub(super) fn rustflags(host: &str, engine: &str) -> Vec<String> {
    if engine == "afl" {
        return words(&format!("{SANCOV_PASS} {AFL_SANCOV_FLAGS} {COVERAGE_CFG}"));
    }
    let mut flags = words(&format!("{SANCOV_PASS} {SANCOV_FLAGS} {COVERAGE_CFG}"));
    if host.starts_with("x86_64-") && host.contains("-linux") {
        flags.push(STACK_DEPTH_FLAG.to_string());
    }
    flags
}

/// The coverage reports' build's flags: the coverage build's, every
/// block counted, with line tables.
pub(super) fn lines_rustflags(host: &str, engine: &str) -> Vec<String> {
    let mut flags = rustflags(host, engine);
    flags.extend(words(LINES_FLAGS));
    if host.starts_with("x86_64-") {
        flags.push(LINES_X86_64_FLAG.to_string());
    }
    flags
}

/// A space-separated flag list as words.
pub(super) fn words(flags: &str) -> Vec<String> {
    flags.split_whitespace().map(String::from).collect()
}
