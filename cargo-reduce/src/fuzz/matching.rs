//! [`MatchLevel`]: when two failures are one (`--match`, a target's
//! `match` setting), for the oracle, grouping and the ledger alike.

use crate::fuzz::pool::{FailureKind, Signature};

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

    /// True when `actual` matches `expected` at this level. A timeout
    /// whose stack could not be taken matches any timeout at every level
    /// ([`Signature::is_unplaced_timeout`]): it says nothing of where the
    /// test looped, and rejecting it made a hang's reduction on a loaded
    /// machine stop short of 1-minimal.
    pub(crate) fn matches(self, expected: &Signature, actual: &Signature) -> bool {
        let unplaced = expected.is_unplaced_timeout() || actual.is_unplaced_timeout();
        self.key(expected) == self.key(actual) || (unplaced && expected.kind == actual.kind)
    }

    /// The one placed timeout among `signatures` at this level, if there
    /// is exactly one: the failure a timeout whose stack could not be
    /// taken is taken for where failures are grouped (it matches any
    /// timeout, see [`MatchLevel::matches`], so alone it would be grouped
    /// as a failure of its own).
    pub(crate) fn only_placed_timeout<'s>(
        self,
        signatures: impl IntoIterator<Item = &'s Signature>,
    ) -> Option<&'s Signature> {
        let mut placed = signatures
            .into_iter()
            .filter(|s| s.kind == FailureKind::Timeout && !s.is_unplaced_timeout());
        let first = placed.next()?;
        let key = self.key(first);
        placed.all(|s| self.key(s) == key).then_some(first)
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
            message: signature.message.clone().filter(|message| {
                self >= MatchLevel::Message
                    || (self >= MatchLevel::Location && is_arithmetic_check(message))
            }),
        }
    }
}

/// The messages of the checks rustc compiles into arithmetic, which every
/// level that compares locations compares too: fixed text that names the
/// operation and never quotes the input, and two of them can share a
/// location (`a * 2 + 1` overflows in its multiplication or its addition
/// at one column).
const ARITHMETIC_CHECKS: [&str; 10] = [
    "attempt to add with overflow",
    "attempt to subtract with overflow",
    "attempt to multiply with overflow",
    "attempt to divide with overflow",
    "attempt to calculate the remainder with overflow",
    "attempt to negate with overflow",
    "attempt to shift left with overflow",
    "attempt to shift right with overflow",
    "attempt to divide by zero",
    "attempt to calculate the remainder with a divisor of zero",
];

fn is_arithmetic_check(message: &str) -> bool {
    ARITHMETIC_CHECKS.contains(&message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panic(message: &str) -> Signature {
        Signature {
            kind: FailureKind::Panic,
            location: Some("src/parse.rs:364:30".into()),
            call_path: vec!["semver::parse::comparator".into()],
            message: Some(message.into()),
        }
    }

    /// An overflow in a multiplication is not one in the addition at the
    /// same column (helper-40: semver's `(major as u8) * 2 + 100` slipped
    /// from the one to the other at `--match stack`); other messages are
    /// compared at `message` only.
    #[test]
    fn arithmetic_checks_are_told_apart_wherever_locations_are() {
        let (mul, add) = (
            panic("attempt to multiply with overflow"),
            panic("attempt to add with overflow"),
        );
        for level in [MatchLevel::Location, MatchLevel::Stack, MatchLevel::Message] {
            assert!(!level.matches(&mul, &add), "{level:?}");
            assert!(level.matches(&mul, &mul.clone()), "{level:?}");
        }
        assert!(MatchLevel::Kind.matches(&mul, &add));
        let (a, b) = (panic("expected a number, found `_`"), panic("bad digit"));
        assert!(MatchLevel::Stack.matches(&a, &b));
        assert!(!MatchLevel::Message.matches(&a, &b));
    }
}
