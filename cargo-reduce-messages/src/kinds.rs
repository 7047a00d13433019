//! The closed sets of names the messages use (`why`, `kind`, `engine`,
//! `cause`): enums, so that a consumer matches on them rather than on
//! strings.

use serde::{Deserialize, Serialize};

/// What stopped a reduction before it was 1-minimal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    /// `--max-tests` ran out.
    MaxTests,
    /// `--max-time` ran out.
    MaxTime,
    /// Ctrl-C.
    Interrupted,
    /// Written by earlier releases only (kept so that their messages still
    /// parse): a reduction whose candidates timed out now settles those
    /// verdicts under a longer timeout before it ends.
    Timeouts,
    /// Not a stop: one pass of recursive ddmin (`--algorithm ddrmin`
    /// without `--dd-star`) ran to its end; its result is 1-minimal only
    /// for a monotone test.
    OnePass,
}

/// Why an artifact is not reduced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum SkipCause {
    /// A leak under `--sanitizer none`: only the AddressSanitizer build's
    /// LeakSanitizer finds it.
    Leak,
    /// An out-of-memory artifact with the memory limit turned off
    /// (`--rss-limit-mb 0`): it cannot fail as out-of-memory.
    NoMemoryLimit,
    /// An input found in the project that does not fail (or not alike)
    /// any more: its bug fixed, or it needs another build (a sanitizer);
    /// `why` says which runs it passed.
    DoesNotReproduce,
}

/// A fuzz artifact's kind, from libFuzzer's file-name prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum ArtifactKind {
    /// `crash-`.
    Crash,
    /// `oom-`.
    Oom,
    /// `timeout-` (and AFL++'s hangs).
    Timeout,
    /// `leak-`.
    Leak,
    /// `slow-unit-`.
    SlowUnit,
    /// No known prefix.
    Unknown,
}

/// The fuzzing engine a target is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// cargo-fuzz's libfuzzer-sys.
    Libfuzzer,
    /// afl.rs.
    Afl,
}

/// Which build of a fuzz crate's targets against the stand-in: what it
/// is for, and how it is instrumented.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Build {
    /// Uninstrumented: reductions and replays.
    #[default]
    Plain,
    /// With AddressSanitizer (nightly).
    Asan,
    /// With SanitizerCoverage's edge counters: a corpus's features.
    Coverage,
    /// With SanitizerCoverage and AddressSanitizer (nightly), as `cargo
    /// fuzz build` builds by default.
    CoverageAsan,
    /// With a counter in every block and line tables: coverage reports.
    Lines,
}

/// The wire names, for human output too.
macro_rules! names {
    ($type:ty { $($variant:ident => $name:literal),* $(,)? }) => {
        impl $type {
            /// The name JSON gives it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(<$type>::$variant => $name,)*
                }
            }
        }

        impl std::fmt::Display for $type {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

names!(StopReason {
    MaxTests => "max-tests",
    MaxTime => "max-time",
    Interrupted => "interrupted",
    Timeouts => "timeouts",
    OnePass => "one-pass",
});
names!(ArtifactKind {
    Crash => "crash",
    Oom => "oom",
    Timeout => "timeout",
    Leak => "leak",
    SlowUnit => "slow-unit",
    Unknown => "unknown",
});
names!(SkipCause {
    Leak => "leak",
    NoMemoryLimit => "no-memory-limit",
    DoesNotReproduce => "does-not-reproduce",
});
names!(Build {
    Plain => "plain",
    Asan => "asan",
    Coverage => "coverage",
    CoverageAsan => "coverage-asan",
    Lines => "lines",
});
names!(Engine {
    Libfuzzer => "libfuzzer",
    Afl => "afl",
});

/// How serious a failure is, from what its signature holds (CASR's idea:
/// which failures to look at first), most serious first: the order is
/// the declaration order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// A write out of bounds or after free, a double or bad free, a wild
    /// write or jump (AddressSanitizer): memory corrupted.
    MemoryWrite,
    /// A read out of bounds or after free, or a wild read
    /// (AddressSanitizer): memory disclosed.
    MemoryRead,
    /// A segmentation fault, bus error, illegal instruction or arithmetic
    /// fault without a sanitizer's detail: most often a null dereference.
    InvalidAccess,
    /// A panic, an abort, an exit, or a misuse the allocator caught.
    Abort,
    /// A stack overflow.
    StackOverflow,
    /// Out of memory, or a timeout: resources, not memory safety.
    Resource,
}

impl Severity {
    /// Every class, most serious first.
    pub const ALL: [Severity; 6] = [
        Severity::MemoryWrite,
        Severity::MemoryRead,
        Severity::InvalidAccess,
        Severity::Abort,
        Severity::StackOverflow,
        Severity::Resource,
    ];

    /// Its name in the messages (`memory-write`, …).
    pub fn name(self) -> &'static str {
        match self {
            Severity::MemoryWrite => "memory-write",
            Severity::MemoryRead => "memory-read",
            Severity::InvalidAccess => "invalid-access",
            Severity::Abort => "abort",
            Severity::StackOverflow => "stack-overflow",
            Severity::Resource => "resource",
        }
    }

    /// GitHub code scanning's `security-severity` (a CVSS-like score:
    /// 9.0 and above critical, 7.0 high, 4.0 medium, below low).
    pub fn security_severity(self) -> &'static str {
        match self {
            Severity::MemoryWrite => "9.3",
            Severity::MemoryRead => "7.5",
            Severity::InvalidAccess => "6.5",
            Severity::Abort => "4.0",
            Severity::StackOverflow => "3.0",
            Severity::Resource => "2.0",
        }
    }
}
