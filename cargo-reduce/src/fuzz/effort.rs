//! How hard a byte reduction searches (`--effort`): the search budget and
//! the typed reduction's budget of each level.

use crate::engine::{Budget, DdminOptions};
use crate::typed::TypedOptions;

/// How hard a byte reduction searches past ddmin and canonicalization
/// (`--effort`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[cfg_attr(
    feature = "fuzz",
    derive(serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub(crate) enum Effort {
    /// ddmin and canonicalization only.
    Quick,
    /// ddmin, canonicalization, then a search of 2,000 candidates at most.
    #[default]
    Default,
    /// ddmin, canonicalization, then a search of 200,000 candidates at
    /// most.
    Max,
}

impl Effort {
    /// The search budget of this effort. The default one keeps the
    /// reduction of a tiny artifact within a few milliseconds (2,000
    /// candidates at most, each a few microseconds in a worker pool), and
    /// its byte budget gives a large input proportionally fewer candidates.
    pub(crate) fn budget(self) -> Budget {
        match self {
            Effort::Quick => Budget::NONE,
            Effort::Default => Budget {
                candidates: 2_000,
                bytes: 32 << 20,
                per_pass: 500,
                mutations: 300,
                scan: 20_000,
                window: 8,
                trailing: 8,
            },
            Effort::Max => Budget {
                candidates: 200_000,
                bytes: 4 << 30,
                per_pass: 50_000,
                mutations: 20_000,
                scan: 2_000_000,
                window: 64,
                trailing: 32,
            },
        }
    }

    /// The typed reduction this effort runs on a typed target's input:
    /// none, 5,000 tests (and accepted candidates) at most per run, or
    /// 200,000 (it runs twice when the byte search between changes the input);
    /// runs of up to 16 draws or characters at `default` (an entry of a
    /// binary table inside a byte string is often longer than 8 bytes:
    /// gimli's DWARF abbreviations).
    pub(crate) fn typed(self, ddmin: DdminOptions, lower_values: bool) -> TypedOptions {
        let (budget, window) = match self {
            Effort::Quick => (0, 0),
            Effort::Default => (5_000, 16),
            Effort::Max => (200_000, 32),
        };
        TypedOptions {
            budget,
            window,
            ddmin,
            lower_values,
        }
    }
}
