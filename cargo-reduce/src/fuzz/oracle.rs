//! The in-process oracle of `cargo reduce` for fuzz artifacts: candidates
//! run in the target's worker pool, and a candidate is interesting only if
//! it fails *the same way* as the original artifact.
//!
//! "The same way" is a [`Signature`] comparison at a chosen [`MatchLevel`]:
//! by default the kind (panic, signal, timeout, out of memory…), the
//! location and the call path in the user's code (for each kind as
//! `pool/place.rs` says). Without it,
//! ddmin happily slips from one bug to another that a shorter input
//! reaches (the `two_panics` demo target is such a trap). The message is
//! not compared by default: one that quotes the input (a `{:?}` of a
//! token, a serde error naming a value) changes with every smaller input.

use crate::engine::{
    Cancel, Candidate, Oracle, OracleError, Outcome as EngineOutcome, RoundOracle,
};
use crate::fuzz::pool::{Failure, Outcome, Signature, WorkerPool};

/// How closely a candidate's failure must match the artifact's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum MatchLevel {
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
    /// True when `actual` matches `expected` at this level.
    pub fn matches(self, expected: &Signature, actual: &Signature) -> bool {
        self.key(expected) == self.key(actual)
    }

    /// What of `signature` this level compares: two signatures match at
    /// it when their keys are equal (so inputs group by it too).
    pub fn key(self, signature: &Signature) -> Signature {
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

/// Runs candidates in a [`WorkerPool`], interesting when they fail like
/// the artifact.
pub struct HarnessOracle<'p> {
    pool: &'p WorkerPool,
    expected: Signature,
    level: MatchLevel,
}

impl<'p> HarnessOracle<'p> {
    /// An oracle looking for `expected`'s failure at `level`.
    pub fn new(pool: &'p WorkerPool, expected: &Failure, level: MatchLevel) -> Self {
        HarnessOracle {
            pool,
            expected: expected.signature(),
            level,
        }
    }

    /// True when `outcome` is the failure this oracle looks for.
    pub fn matches(&self, outcome: &Outcome) -> bool {
        outcome
            .failure()
            .is_some_and(|f| self.level.matches(&self.expected, &f.signature()))
    }

    /// The pool candidates run in.
    pub fn pool(&self) -> &'p WorkerPool {
        self.pool
    }

    /// The failure looked for.
    pub fn expected(&self) -> &Signature {
        &self.expected
    }
}

impl Oracle<u8> for HarnessOracle<'_> {
    fn test(
        &self,
        candidate: &Candidate<'_, u8>,
        _cancel: &Cancel<'_>,
    ) -> Result<Option<EngineOutcome>, OracleError> {
        let outcome = self.pool.run(&candidate.to_vec())?;
        Ok(Some(EngineOutcome::from_bool(self.matches(&outcome))))
    }

    fn rounds(&self) -> Option<&dyn RoundOracle<u8>> {
        Some(self)
    }
}

impl RoundOracle<u8> for HarnessOracle<'_> {
    fn test_round(
        &self,
        candidates: &[Candidate<'_, u8>],
    ) -> Result<Vec<Option<EngineOutcome>>, OracleError> {
        let mut produce = |i: usize, out: &mut Vec<u8>| {
            for part in candidates[i].parts() {
                out.extend_from_slice(part);
            }
        };
        let accept = |outcome: &Outcome| self.matches(outcome);
        let round = self
            .pool
            .first_accepted_with(candidates.len(), &mut produce, &accept)?;
        Ok(round
            .outcomes
            .iter()
            .map(|o| {
                o.as_ref()
                    .map(|o| EngineOutcome::from_bool(self.matches(o)))
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::pool::FailureKind;

    fn panic_at(location: &str, message: &str) -> Signature {
        panic_from(location, message, &["demo::parse", "demo::run"])
    }

    fn panic_from(location: &str, message: &str, call_path: &[&str]) -> Signature {
        Failure {
            kind: FailureKind::Panic,
            message: Some(message.into()),
            location: Some(location.into()),
            call_path: call_path.iter().map(|s| s.to_string()).collect(),
        }
        .signature()
    }

    #[test]
    fn levels_loosen_from_message_to_kind() {
        let expected = panic_at("src/a.rs:3:5", "index 7 out of range");
        let renumbered = panic_at("src/a.rs:3:5", "index 2 out of range");
        let other_message = panic_at("src/a.rs:3:5", "slice too short");
        let other_caller = panic_from("src/a.rs:3:5", "index 7 out of range", &["demo::b"]);
        let elsewhere = panic_at("src/b.rs:9:1", "index 7 out of range");
        let abort = Failure {
            kind: FailureKind::Signal(6),
            message: None,
            location: None,
            call_path: Vec::new(),
        }
        .signature();
        assert!(
            MatchLevel::Message.matches(&expected, &renumbered),
            "numbers are normalized"
        );
        assert!(!MatchLevel::Message.matches(&expected, &other_message));
        assert!(MatchLevel::Stack.matches(&expected, &other_message));
        assert!(!MatchLevel::Stack.matches(&expected, &other_caller));
        assert!(MatchLevel::Location.matches(&expected, &other_caller));
        assert!(MatchLevel::Location.matches(&expected, &other_message));
        assert!(!MatchLevel::Location.matches(&expected, &elsewhere));
        assert!(MatchLevel::Kind.matches(&expected, &elsewhere));
        assert!(!MatchLevel::Kind.matches(&expected, &abort));
    }
}
