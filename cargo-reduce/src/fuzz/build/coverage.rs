//! Kinds of build of the stand-in ([`BuildKind`]), and the coverage build:
//! the targets compiled with SanitizerCoverage as `cargo fuzz build`
//! compiles them (edge coverage, inline 8-bit counters, the PC table, the
//! stack depth), on stable, with the stand-in under
//! `cfg(cargo_reduce_coverage)`, which registers the counters and counts
//! each test's features (`harness/src/coverage.rs`). It has a build
//! directory of its own and is built only when a coverage mode asks for it.
//! Why these flags: docs/design/coverage.md.

use crate::fuzz::sanitizer::{AsanToolchain, ASAN_RUSTFLAGS};

/// Which build of the stand-in.
#[derive(Clone, Copy, Debug)]
pub(crate) enum BuildKind<'a> {
    /// Uninstrumented (reduction, replays).
    Plain,
    /// AddressSanitizer, on the nightly toolchain named.
    Asan(&'a AsanToolchain),
    /// SanitizerCoverage, on the default toolchain.
    Coverage,
}

impl<'a> From<Option<&'a AsanToolchain>> for BuildKind<'a> {
    /// The ASan build with a toolchain, else the plain one.
    fn from(asan: Option<&'a AsanToolchain>) -> Self {
        asan.map_or(BuildKind::Plain, BuildKind::Asan)
    }
}

/// The `cfg` of the stand-in in the coverage build.
const COVERAGE_CFG: &str = "--cfg cargo_reduce_coverage";

/// SanitizerCoverage as cargo-fuzz asks for it, minus the comparison
/// tracing (`-sanitizer-coverage-trace-compares`: libFuzzer counts no
/// feature of it without `-use_value_profile=1`); and the code shaped as
/// `cargo fuzz build` shapes it, so that its edges are the same: no branch
/// folding (which merges early returns into one edge) and one codegen
/// unit.
const SANCOV_FLAGS: &str = "-Cpasses=sancov-module \
    -Cllvm-args=-sanitizer-coverage-level=4 \
    -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
    -Cllvm-args=-sanitizer-coverage-pc-table \
    -Cllvm-args=-simplifycfg-branch-fold-threshold=0 \
    -Ccodegen-units=1";

/// The stack depth (cargo-fuzz turns it on for Linux targets), where the
/// stand-in defines its thread-local (x86-64 Linux).
const STACK_DEPTH_FLAG: &str = "-Cllvm-args=-sanitizer-coverage-stack-depth";

impl<'a> BuildKind<'a> {
    /// The build directory's name before its workspace hash.
    pub(super) fn dir_name(self) -> &'static str {
        match self {
            BuildKind::Plain => "build",
            BuildKind::Asan(_) => "build-asan",
            BuildKind::Coverage => "build-coverage",
        }
    }

    /// Whether the build leaves out the recording copy of `arbitrary`
    /// (`instrument`): only the coverage build does.
    pub(super) fn records_nothing(self) -> bool {
        matches!(self, BuildKind::Coverage)
    }

    /// The nightly toolchain the build needs, if any.
    pub(super) fn toolchain(self) -> Option<&'a AsanToolchain> {
        match self {
            BuildKind::Asan(asan) => Some(asan),
            _ => None,
        }
    }

    /// The flags this kind adds to the engine's, for a build for `host`.
    pub(super) fn rustflags(self, host: &str) -> Vec<String> {
        let words = |flags: &str| {
            flags
                .split(' ')
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect()
        };
        match self {
            BuildKind::Plain => Vec::new(),
            BuildKind::Asan(_) => words(ASAN_RUSTFLAGS),
            BuildKind::Coverage => {
                let mut flags: Vec<String> = words(&format!("{SANCOV_FLAGS} {COVERAGE_CFG}"));
                if host.starts_with("x86_64-") && host.contains("-linux") {
                    flags.push(STACK_DEPTH_FLAG.to_string());
                }
                flags
            }
        }
    }
}
