//! Kinds of build of the stand-in ([`BuildKind`]): what each adds to the
//! engine's flags, its build directory, and its toolchain. The coverage
//! build's own flags are in `coverage.rs`, the AddressSanitizer build's in
//! `crate::fuzz::sanitizer`.

use cargo_reduce_messages::message::Build;

use super::coverage::{self, words};
use crate::fuzz::sanitizer::{AsanToolchain, ASAN_RUSTFLAGS};

/// Which build of the stand-in.
#[derive(Clone, Copy, Debug)]
pub(crate) enum BuildKind<'a> {
    /// Uninstrumented (reduction, replays).
    Plain,
    /// AddressSanitizer, on the nightly toolchain named.
    Asan(&'a AsanToolchain),
    /// SanitizerCoverage, on the default toolchain; with a toolchain,
    /// AddressSanitizer too on that nightly, as `cargo fuzz build` builds
    /// by default (ASan's checks have edges of their own).
    Coverage(Option<&'a AsanToolchain>),
    /// SanitizerCoverage in every block, with line tables: coverage
    /// reports.
    Lines,
}

impl<'a> From<Option<&'a AsanToolchain>> for BuildKind<'a> {
    /// The ASan build with a toolchain, else the plain one.
    fn from(asan: Option<&'a AsanToolchain>) -> Self {
        asan.map_or(BuildKind::Plain, BuildKind::Asan)
    }
}

impl<'a> BuildKind<'a> {
    /// The build directory's name before its workspace hash.
    pub(super) fn dir_name(self) -> &'static str {
        match self {
            BuildKind::Plain => "build",
            BuildKind::Asan(_) => "build-asan",
            BuildKind::Coverage(None) => "build-coverage",
            BuildKind::Coverage(Some(_)) => "build-coverage-asan",
            BuildKind::Lines => "build-coverage-lines",
        }
    }

    /// How the output contract names it.
    pub(crate) fn message(self) -> Build {
        match self {
            BuildKind::Plain => Build::Plain,
            BuildKind::Asan(_) => Build::Asan,
            BuildKind::Coverage(None) => Build::Coverage,
            BuildKind::Coverage(Some(_)) => Build::CoverageAsan,
            BuildKind::Lines => Build::Lines,
        }
    }

    /// Whether it is a coverage build (SanitizerCoverage): the features
    /// are the target's own, so it leaves out the recording copy of
    /// `arbitrary` (`instrument`) and compiles the stand-in without
    /// coverage (`sancov_exempt`).
    pub(super) fn counts_coverage(self) -> bool {
        matches!(self, BuildKind::Coverage(_) | BuildKind::Lines)
    }

    /// Whether its failures are signed (reduction, replays, the ledger):
    /// its panics keep their call sites apart (`call_sites`).
    pub(super) fn signs_failures(self) -> bool {
        !self.counts_coverage()
    }

    /// The nightly toolchain the build needs, if any.
    pub(crate) fn toolchain(self) -> Option<&'a AsanToolchain> {
        match self {
            BuildKind::Asan(asan) | BuildKind::Coverage(Some(asan)) => Some(asan),
            _ => None,
        }
    }

    /// The flags this kind adds to the engine's, for a build for `host`
    /// against the stand-in of `engine` (the package it replaces).
    pub(super) fn rustflags(self, host: &str, engine: &str) -> Vec<String> {
        match self {
            BuildKind::Plain => Vec::new(),
            BuildKind::Asan(_) => words(ASAN_RUSTFLAGS),
            BuildKind::Coverage(None) => coverage::rustflags(host, engine),
            BuildKind::Coverage(Some(_)) => {
                let mut flags = coverage::rustflags(host, engine);
                flags.extend(words(ASAN_RUSTFLAGS));
                flags
            }
            BuildKind::Lines => coverage::lines_rustflags(host, engine),
        }
    }
}
