//! [`MatchLevel`]: when two failures are one (`--match`, a target's
//! `match` setting), for the oracle, grouping and the ledger alike.

use crate::fuzz::pool::Signature;

/// How closely a candidate's failure must match the artifact's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[cfg_attr(
    feature = "fuzz",
    derive(serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub(crate) enum MatchLevel {
    /// The same kind of failure (any panic, the same signal, a timeout…).
    Kind,
    /// The same kind and location: the `file:line:column` of a panic, a
    /// fault, an abort or an allocation; the function a test was killed
    /// in; the functions of a recursion.
    Location,
    /// The same kind, location and call path: the top functions of the
    /// user's code on the stack.
    #[default]
    Stack,
    /// The same kind, location, call path and panic message (numbers,
    /// addresses and quoted input blanked).
    Message,
}

impl MatchLevel {
    /// The level at which a failure counts as another bug
    /// ([`HarnessOracle::others`](crate::fuzz::oracle::HarnessOracle::others)): this one, but never finer than
    /// [`MatchLevel::Stack`]. A message that differs only in what it quotes
    /// is the same bug found again, whatever `--match` keeps reductions to.
    pub(crate) fn other_bug(self) -> MatchLevel {
        self.min(MatchLevel::Stack)
    }

    /// True when `actual` matches `expected` at this level.
    pub(crate) fn matches(self, expected: &Signature, actual: &Signature) -> bool {
        self.key(expected) == self.key(actual)
    }

    /// What of `signature` this level compares: two signatures match at
    /// it when their keys are equal (so inputs group by it too).
    pub(crate) fn key(self, signature: &Signature) -> Signature {
        Signature {
            kind: signature.kind,
            location: signature
                .location
                .clone()
                .filter(|_| self >= MatchLevel::Location),
            call_path: if self >= MatchLevel::Stack {
                signature.call_path.clone()
            } else {
                Vec::new()
            },
            message: signature
                .message
                .clone()
                .filter(|_| self >= MatchLevel::Message),
        }
    }
}
