//! An oracle over any atoms (the pieces of a layout, the characters of one
//! string field) that tests the bytes a candidate encodes to, so the
//! engine's ddmin can reduce a decoded value instead of its bytes.

use std::hash::Hash;

use crate::engine::{
    Cancel, Candidate, Context, Counters, Oracle, OracleError, Outcome, RoundOracle,
};

/// Tests a candidate of `A`s as the bytes `encode` makes of it, through a
/// byte oracle and its context: the byte cache, the limits and the test
/// counters are the byte reduction's, so a typed step costs what the same
/// tests would cost anywhere else.
pub(super) struct Encoded<'a, 'c, O: ?Sized, F> {
    oracle: &'a O,
    ctx: &'a Context<'c, u8>,
    encode: F,
}

impl<'a, 'c, O: ?Sized, F> Encoded<'a, 'c, O, F> {
    /// `encode` turns a candidate's atoms into the input to test.
    pub(super) fn new(oracle: &'a O, ctx: &'a Context<'c, u8>, encode: F) -> Self {
        Encoded {
            oracle,
            ctx,
            encode,
        }
    }

    /// A context for reducing `A`s with this oracle: no cache of its own
    /// (the byte cache answers), the byte reduction's limits, and counters
    /// nobody reads (the byte context counts the tests).
    pub(super) fn context<'x, A>(&'x self, counters: &'x Counters) -> Context<'x, A> {
        Context {
            jobs: self.ctx.jobs,
            limits: self.ctx.limits,
            cache: None,
            counters,
            observer: &(),
        }
    }
}

impl<A, O, F> Oracle<A> for Encoded<'_, '_, O, F>
where
    A: Clone + Hash + Sync,
    O: Oracle<u8> + ?Sized,
    F: Fn(&[A]) -> Vec<u8> + Sync,
{
    fn test(
        &self,
        candidate: &Candidate<'_, A>,
        cancel: &Cancel<'_>,
    ) -> Result<Option<Outcome>, OracleError> {
        let bytes = (self.encode)(&candidate.to_vec());
        self.ctx
            .test(self.oracle, &Candidate::whole(&bytes), cancel)
    }

    fn rounds(&self) -> Option<&dyn RoundOracle<A>> {
        Some(self)
    }
}

impl<A, O, F> RoundOracle<A> for Encoded<'_, '_, O, F>
where
    A: Clone + Hash + Sync,
    O: Oracle<u8> + ?Sized,
    F: Fn(&[A]) -> Vec<u8> + Sync,
{
    /// The byte context's first interesting candidate of the round; the
    /// ones before it did not fail, the ones after it were not needed.
    fn test_round(
        &self,
        candidates: &[Candidate<'_, A>],
    ) -> Result<Vec<Option<Outcome>>, OracleError> {
        let inputs: Vec<Vec<u8>> = candidates
            .iter()
            .map(|c| (self.encode)(&c.to_vec()))
            .collect();
        let winner = self
            .ctx
            .first_interesting(self.oracle, inputs.len(), &|i| Candidate::whole(&inputs[i]))?;
        let stopped = self.ctx.limits.should_stop();
        Ok((0..inputs.len())
            .map(|i| match winner {
                Some(w) if i == w => Some(Outcome::Interesting),
                Some(w) if i > w => None,
                _ if stopped => None,
                _ => Some(Outcome::NotInteresting),
            })
            .collect())
    }
}
