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

use std::sync::atomic::{AtomicU64, Ordering};

use crate::engine::{
    Cancel, Candidate, Oracle, OracleError, Outcome as EngineOutcome, RoundOracle,
};
use crate::fuzz::pool::{Failure, FailureKind, Outcome, Signature, WorkerPool};

/// How closely a candidate's failure must match the artifact's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
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

/// Runs candidates in a [`WorkerPool`], interesting when they fail like
/// the artifact.
pub(crate) struct HarnessOracle<'p> {
    pool: &'p WorkerPool,
    expected: Signature,
    level: MatchLevel,
    /// Candidates whose verdict was a timeout (see [`Self::timeouts`]).
    timeouts: AtomicU64,
}

impl<'p> HarnessOracle<'p> {
    /// An oracle looking for `expected`'s failure at `level`.
    pub(crate) fn new(pool: &'p WorkerPool, expected: &Failure, level: MatchLevel) -> Self {
        HarnessOracle {
            pool,
            expected: expected.signature(),
            level,
            timeouts: AtomicU64::new(0),
        }
    }

    /// Candidates so far whose verdict was a timeout, of a failure that is
    /// not one: their verdict depends on the machine's speed (a candidate
    /// a little slower than the timeout may fail the same way on a faster
    /// machine), so a result that needed them is not known to be
    /// 1-minimal. Only candidates whose verdict counted are counted: not
    /// those a round ran past its answer.
    pub(crate) fn timeouts(&self) -> u64 {
        self.timeouts.load(Ordering::SeqCst)
    }

    /// The verdict on `outcome`, counting it if it is such a timeout.
    fn verdict(&self, outcome: &Outcome) -> EngineOutcome {
        let timed_out = outcome
            .failure()
            .is_some_and(|f| f.kind == FailureKind::Timeout);
        if timed_out && self.expected.kind != FailureKind::Timeout {
            self.timeouts.fetch_add(1, Ordering::SeqCst);
        }
        EngineOutcome::from_bool(self.matches(outcome))
    }

    /// True when `outcome` is the failure this oracle looks for.
    pub(crate) fn matches(&self, outcome: &Outcome) -> bool {
        outcome
            .failure()
            .is_some_and(|f| self.level.matches(&self.expected, &f.signature()))
    }

    /// The pool candidates run in.
    pub(crate) fn pool(&self) -> &'p WorkerPool {
        self.pool
    }

    /// The failure looked for.
    pub(crate) fn expected(&self) -> &Signature {
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
        Ok(Some(self.verdict(&outcome)))
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
        // The engine keeps the outcomes up to the answer only.
        let kept = round.accepted.map_or(round.outcomes.len(), |a| a + 1);
        Ok(round
            .outcomes
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let o = o.as_ref()?;
                Some(match i < kept {
                    true => self.verdict(o),
                    false => EngineOutcome::from_bool(self.matches(o)),
                })
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

    /// A candidate that times out is not the panic looked for, and is
    /// counted: its verdict depends on the machine's speed. One a round ran
    /// past its answer is not.
    #[test]
    fn timeouts_that_decided_a_verdict_are_counted() {
        let pool = crate::fuzz::pool::tests::pool("crashes");
        let caught = pool.run(b"caught").unwrap().failure().unwrap().clone();
        let oracle = HarnessOracle::new(&pool, &caught, MatchLevel::Stack);
        let round = |inputs: &[&[u8]]| {
            let candidates: Vec<_> = inputs.iter().map(|i| Candidate::whole(i)).collect();
            oracle.test_round(&candidates).unwrap()
        };
        let outcomes = round(&[b"loop", b"fine", b"caught"]);
        assert_eq!(outcomes[0], Some(EngineOutcome::NotInteresting));
        assert_eq!(outcomes[2], Some(EngineOutcome::Interesting));
        assert_eq!(oracle.timeouts(), 1);
        round(&[b"caught", b"loop"]);
        assert_eq!(oracle.timeouts(), 1, "past the answer");
        let limits = crate::engine::Limits::none();
        let cancel = Cancel::by_limits(&limits);
        let single = oracle.test(&Candidate::whole(b"loop"), &cancel).unwrap();
        assert_eq!(single, Some(EngineOutcome::NotInteresting));
        assert_eq!(oracle.timeouts(), 2);
        // Looking for a timeout, a timeout is the verdict itself.
        let hang = pool.run(b"loop").unwrap().failure().unwrap().clone();
        let hangs = HarnessOracle::new(&pool, &hang, MatchLevel::Stack);
        hangs.test(&Candidate::whole(b"loop"), &cancel).unwrap();
        assert_eq!(hangs.timeouts(), 0);
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
