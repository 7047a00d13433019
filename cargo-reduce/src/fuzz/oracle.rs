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
//!
//! A stack overflow the artifact took well past the stack limit must stay
//! well past it ([`OverflowDepth`]): reduced to the very edge, it would
//! overflow on some runs of the real program only.
//!
//! A candidate that fails another way is rejected, but it is kept: it is
//! often another bug, and a smaller one ([`HarnessOracle::others`]). One
//! that times out is rejected too, and kept for its verdict to be settled
//! under a longer timeout ([`HarnessOracle::take_timed_out`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use crate::engine::{
    Cancel, Candidate, Oracle, OracleError, Outcome as EngineOutcome, RoundOracle,
};
pub(crate) use crate::fuzz::matching::MatchLevel;
use crate::fuzz::pool::{
    keeps_request, Failure, FailureKind, Outcome, OverflowDepth, PoolError, Signature, WorkerPool,
};

/// Runs candidates in a [`WorkerPool`], interesting when they fail like
/// the artifact.
pub(crate) struct HarnessOracle<'p> {
    pool: &'p WorkerPool,
    expected: Signature,
    /// How far past the stack limit the artifact overflowed, if it did.
    expected_depth: Option<OverflowDepth>,
    /// The bytes its allocation failure asked for, if it had one.
    expected_request: Option<u64>,
    level: MatchLevel,
    /// Candidates whose verdict was a timeout (see [`Self::take_timed_out`]).
    timed_out: Mutex<Vec<Vec<u8>>>,
    /// How many verdicts were such a timeout ([`Oracle::timeouts`]).
    timeouts: AtomicU64,
    /// The other failures candidates ran into (see [`Self::others`]),
    /// by what [`MatchLevel::other_bug`] compares of them.
    others: Mutex<HashMap<Signature, OtherFailure>>,
}

/// A failure other than the one looked for, and the smallest candidate
/// that failed so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OtherFailure {
    pub failure: Failure,
    pub bytes: Vec<u8>,
}

impl<'p> HarnessOracle<'p> {
    /// An oracle looking for `expected`'s failure at `level`.
    pub(crate) fn new(pool: &'p WorkerPool, expected: &Failure, level: MatchLevel) -> Self {
        HarnessOracle {
            pool,
            expected: expected.signature(),
            expected_depth: expected.overflow_depth,
            expected_request: expected.alloc_request,
            level,
            timed_out: Mutex::new(Vec::new()),
            timeouts: AtomicU64::new(0),
            others: Mutex::new(HashMap::new()),
        }
    }

    /// One input of each other bug (a failure that differs from the one
    /// looked for at [`MatchLevel::other_bug`]) that the candidates tested
    /// so far ran into (the smallest, then the first in
    /// byte order), smallest first. Timeouts are left out: whether a
    /// candidate runs past the timeout depends on the machine's speed.
    /// Only candidates whose verdict counted are kept, so that the same
    /// reduction finds the same ones at any `-j`.
    pub(crate) fn others(&self) -> Vec<OtherFailure> {
        let others = self.others.lock().unwrap_or_else(|e| e.into_inner());
        let mut found: Vec<OtherFailure> = others.values().cloned().collect();
        found.sort_by(|a, b| (a.bytes.len(), &a.bytes).cmp(&(b.bytes.len(), &b.bytes)));
        found
    }

    /// Keeps `candidate` if its `outcome` is another failure, and the
    /// smallest of it.
    fn keep_other(&self, outcome: &Outcome, candidate: &Candidate<'_, u8>) {
        let Some(failure) = outcome.failure() else {
            return;
        };
        let level = self.level.other_bug();
        let signature = failure.signature();
        if failure.kind == FailureKind::Timeout || level.matches(&self.expected, &signature) {
            return;
        }
        let bytes = &candidate.to_vec()[..];
        let key = level.key(&signature);
        let mut others = self.others.lock().unwrap_or_else(|e| e.into_inner());
        let smaller =
            |kept: &OtherFailure| (bytes.len(), bytes) < (kept.bytes.len(), kept.bytes.as_slice());
        match others.get(&key) {
            Some(kept) if !smaller(kept) => {}
            _ => {
                let other = OtherFailure {
                    failure: failure.clone(),
                    bytes: bytes.to_vec(),
                };
                others.insert(key, other);
            }
        }
    }

    /// The candidates shorter than `len` bytes whose verdict was a timeout,
    /// of a failure that is not one, smallest first (then in byte order),
    /// each once; the others recorded are forgotten. Their verdict depends
    /// on the machine's speed (a candidate a little slower than the timeout
    /// may fail the same way on a faster machine), so a result that has
    /// such candidates below it is not known to be 1-minimal until they are
    /// settled ([`Self::first_settled`]). Only candidates whose verdict
    /// counted are recorded: not those a round ran past its answer.
    pub(crate) fn take_timed_out(&self, len: usize) -> Vec<Vec<u8>> {
        let mut recorded = self.timed_out.lock().unwrap_or_else(|e| e.into_inner());
        let mut shorter: Vec<Vec<u8>> = recorded.drain(..).filter(|b| b.len() < len).collect();
        shorter.sort_by(|a, b| (a.len(), a).cmp(&(b.len(), b)));
        shorter.dedup();
        shorter
    }

    /// The index of the first of `candidates` that fails as looked for
    /// when run under `timeout` (longer than the pool's), the others before
    /// it settled as not failing so: one that still runs at `timeout` is
    /// taken to hang. Nothing is recorded as timed out; other failures
    /// before the answer are kept ([`Self::others`]).
    pub(crate) fn first_settled(
        &self,
        candidates: &[Vec<u8>],
        timeout: Duration,
    ) -> Result<Option<usize>, PoolError> {
        let inputs: Vec<&[u8]> = candidates.iter().map(Vec::as_slice).collect();
        let accept = |outcome: &Outcome| self.matches(outcome);
        let usual = self.pool.timeout();
        self.pool.set_timeout(timeout);
        let round = self.pool.first_accepted(&inputs, &accept);
        self.pool.set_timeout(usual);
        let round = round?;
        let kept = round.accepted.map_or(round.outcomes.len(), |a| a + 1);
        for (outcome, input) in round.outcomes[..kept].iter().zip(&inputs) {
            if let Some(outcome) = outcome {
                self.keep_other(outcome, &Candidate::whole(input));
            }
        }
        Ok(round.accepted)
    }

    /// The verdict on `outcome` of `candidate`, recording it if it is such
    /// a timeout. A candidate that fails as looked for is the reduction's
    /// new best (the result will be no larger), so the recorded ones not
    /// smaller than it are forgotten: they cannot bear on the result.
    fn verdict(&self, outcome: &Outcome, candidate: &Candidate<'_, u8>) -> EngineOutcome {
        let timed_out = outcome
            .failure()
            .is_some_and(|f| f.kind == FailureKind::Timeout);
        let matches = self.matches(outcome);
        if matches || (timed_out && self.expected.kind != FailureKind::Timeout) {
            let mut recorded = self.timed_out.lock().unwrap_or_else(|e| e.into_inner());
            match matches {
                true => recorded.retain(|bytes| bytes.len() < candidate.len()),
                false => {
                    recorded.push(candidate.to_vec());
                    self.timeouts.fetch_add(1, Ordering::SeqCst);
                }
            }
        }
        EngineOutcome::from_bool(matches)
    }

    /// True when `outcome` is the failure this oracle looks for (a stack
    /// overflow as deep as it must stay, an allocation failure's request
    /// no larger).
    pub(crate) fn matches(&self, outcome: &Outcome) -> bool {
        outcome.failure().is_some_and(|f| {
            self.level.matches(&self.expected, &f.signature())
                && OverflowDepth::keeps(self.expected_depth, f.overflow_depth)
                && keeps_request(self.expected_request, f.alloc_request)
        })
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
        // Ctrl-C ended the test (the pool's stop flag): no verdict, and the
        // engine stops on the same flag.
        let outcome = match self.pool.run(&candidate.to_vec()) {
            Err(PoolError::Interrupted) => return Ok(None),
            outcome => outcome?,
        };
        self.keep_other(&outcome, candidate);
        Ok(Some(self.verdict(&outcome, candidate)))
    }

    fn rounds(&self) -> Option<&dyn RoundOracle<u8>> {
        Some(self)
    }

    fn timeouts(&self) -> u64 {
        self.timeouts.load(Ordering::SeqCst)
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
        let round = match self
            .pool
            .first_accepted_with(candidates.len(), &mut produce, &accept)
        {
            Err(PoolError::Interrupted) => return Ok(vec![None; candidates.len()]),
            round => round?,
        };
        // The engine keeps the outcomes up to the answer only.
        let kept = round.accepted.map_or(round.outcomes.len(), |a| a + 1);
        Ok(round
            .outcomes
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let o = o.as_ref()?;
                Some(match i < kept {
                    true => {
                        self.keep_other(o, &candidates[i]);
                        self.verdict(o, &candidates[i])
                    }
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
            overflow_depth: None,
            alloc_request: None,
        }
        .signature()
    }

    /// `inputs` tested as one round.
    fn round(oracle: &HarnessOracle<'_>, inputs: &[&[u8]]) -> Vec<Option<EngineOutcome>> {
        let candidates: Vec<_> = inputs.iter().map(|i| Candidate::whole(i)).collect();
        oracle.test_round(&candidates).unwrap()
    }

    /// A candidate that times out is not the panic looked for, and is
    /// recorded: its verdict depends on the machine's speed. One a round ran
    /// past its answer is not; settled, a candidate still running at the
    /// longer timeout is no, one that ends in the panic is the answer.
    #[test]
    fn timeouts_that_decided_a_verdict_are_recorded_and_settled() {
        let pool = crate::fuzz::pool::tests::pool("crashes");
        pool.set_timeout(Duration::from_millis(500));
        let patient = pool.run(b"patient!").unwrap().failure().unwrap().clone();
        let oracle = HarnessOracle::new(&pool, &patient, MatchLevel::Stack);
        let round = |inputs: &[&[u8]]| round(&oracle, inputs);
        let outcomes = round(&[b"loop", b"fine", b"patient!"]);
        assert_eq!(outcomes[0], Some(EngineOutcome::NotInteresting));
        assert_eq!(outcomes[2], Some(EngineOutcome::Interesting));
        round(&[b"patient!", b"loop past"]);
        assert_eq!(oracle.timeouts(), 1, "not the one past the answer");
        let limits = crate::engine::Limits::none();
        let cancel = Cancel::by_limits(&limits);
        let single = oracle.test(&Candidate::whole(b"patient"), &cancel).unwrap();
        assert_eq!(single, Some(EngineOutcome::NotInteresting));
        oracle
            .test(&Candidate::whole(b"loop, long"), &cancel)
            .unwrap();
        // A new best of 8 bytes: the larger ones cannot bear on the result.
        oracle
            .test(&Candidate::whole(b"patient!"), &cancel)
            .unwrap();
        let timed_out = oracle.take_timed_out(usize::MAX);
        assert_eq!(timed_out, [b"loop".to_vec(), b"patient".to_vec()]);
        assert!(oracle.take_timed_out(usize::MAX).is_empty(), "taken once");
        oracle.test(&Candidate::whole(b"patient"), &cancel).unwrap();
        assert!(oracle.take_timed_out(7).is_empty(), "shorter than 7 only");
        assert_eq!(oracle.timeouts(), 4, "every counted one, taken or not");
        let longer = Duration::from_millis(2000);
        assert_eq!(oracle.first_settled(&timed_out, longer).unwrap(), Some(1));
        assert_eq!(pool.timeout(), Duration::from_millis(500), "restored");
        // Looking for a timeout, a timeout is the verdict itself.
        let hang = pool.run(b"loop").unwrap().failure().unwrap().clone();
        let hangs = HarnessOracle::new(&pool, &hang, MatchLevel::Stack);
        hangs.test(&Candidate::whole(b"loop"), &cancel).unwrap();
        assert!(hangs.take_timed_out(usize::MAX).is_empty());
        assert_eq!(hangs.timeouts(), 0);
    }

    /// An overflow found well past the stack limit is reduced only to
    /// inputs that stay well past it; one found near the limit to any
    /// overflow of its recursion.
    #[test]
    fn a_deep_stack_overflow_stays_deep() {
        let pool = crate::fuzz::pool::tests::pool("crashes");
        let overflow = |input: &[u8]| pool.run(input).unwrap().failure().unwrap().clone();
        let (near, well_past) = (overflow(b"past:8"), overflow(b"past:40"));
        let verdicts = |expected: &Failure| {
            let oracle = HarnessOracle::new(&pool, expected, MatchLevel::Stack);
            round(&oracle, &[b"past:8", b"past:40"])
        };
        let (no, yes) = (
            Some(EngineOutcome::NotInteresting),
            Some(EngineOutcome::Interesting),
        );
        assert_eq!(verdicts(&well_past), [no, yes]);
        assert_eq!(verdicts(&near)[0], yes);
    }

    /// Other failures are kept, the smallest input of each; not the one
    /// looked for, not a timeout, not one a round ran past its answer.
    #[test]
    fn other_failures_keep_their_smallest_counted_input() {
        let pool = crate::fuzz::pool::tests::pool("crashes");
        let caught = pool.run(b"caught").unwrap().failure().unwrap().clone();
        let oracle = HarnessOracle::new(&pool, &caught, MatchLevel::Stack);
        round(
            &oracle,
            &[b"abort, long", b"loop", b"abort!", b"caught", b"segv"],
        );
        round(&oracle, &[b"caught too", b"exit"]);
        let limits = crate::engine::Limits::none();
        let cancel = Cancel::by_limits(&limits);
        oracle.test(&Candidate::whole(b"abort"), &cancel).unwrap();
        let others: Vec<(Vec<u8>, FailureKind)> = oracle
            .others()
            .into_iter()
            .map(|o| (o.bytes, o.failure.kind))
            .collect();
        assert_eq!(others, [(b"abort".to_vec(), FailureKind::Signal(6))]);
    }

    /// Another bug is told apart at `--match`'s level, never finer than
    /// the call path: a message that only quotes other input is no new bug.
    #[test]
    fn other_bugs_are_never_told_apart_by_message() {
        assert_eq!(MatchLevel::Message.other_bug(), MatchLevel::Stack);
        assert_eq!(MatchLevel::Stack.other_bug(), MatchLevel::Stack);
        assert_eq!(MatchLevel::Kind.other_bug(), MatchLevel::Kind);
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
            overflow_depth: None,
            alloc_request: None,
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

    /// A timeout whose stack could not be taken is any timeout, at every
    /// level, either way round; two placed ones are compared as placed.
    #[test]
    fn an_unplaced_timeout_matches_any_timeout() {
        let timeout = |function: Option<&str>| {
            Failure {
                kind: FailureKind::Timeout,
                message: Some("timeout after 1s".into()),
                location: function.map(str::to_string),
                call_path: function.into_iter().map(str::to_string).collect(),
                overflow_depth: None,
                alloc_request: None,
            }
            .signature()
        };
        let (spin, wait, unplaced) = (
            timeout(Some("demo::spin")),
            timeout(Some("demo::wait")),
            timeout(None),
        );
        let panic = panic_at("src/a.rs:3:5", "boom");
        for level in [
            MatchLevel::Kind,
            MatchLevel::Location,
            MatchLevel::Stack,
            MatchLevel::Message,
        ] {
            assert!(level.matches(&spin, &unplaced), "{level:?}");
            assert!(level.matches(&unplaced, &spin), "{level:?}");
            assert!(!level.matches(&unplaced, &panic), "{level:?}");
        }
        assert!(!MatchLevel::Stack.matches(&spin, &wait));
        assert!(MatchLevel::Kind.matches(&spin, &wait));
        // Where an unplaced one is grouped: the only placed timeout.
        let only = |level: MatchLevel, known: &[&Signature]| {
            level.only_placed_timeout(known.iter().copied()).cloned()
        };
        let stack = MatchLevel::Stack;
        assert_eq!(
            only(stack, &[&unplaced, &panic, &spin, &spin]),
            Some(spin.clone())
        );
        assert_eq!(only(stack, &[&spin, &wait]), None, "two places");
        assert_eq!(only(MatchLevel::Kind, &[&spin, &wait]), Some(spin.clone()));
        assert_eq!(only(stack, &[&unplaced, &panic]), None);
    }
}
