//! Outcomes keyed by candidate content.
//!
//! ddmin meets the same candidate again and again: in the next DD* pass,
//! when granularity changes, and when the line pass and the character pass
//! of a text overlap. The key is a 128-bit hash of the candidate's content
//! ([`super::Candidate::content_hash`]), so equal contents share one entry
//! whatever chunking produced them; at 128 bits a collision is not a
//! practical concern.

use std::collections::HashMap;
use std::sync::Mutex;

use super::Outcome;

/// A thread-safe map from content hash to outcome.
#[derive(Debug, Default)]
pub struct OutcomeCache {
    map: Mutex<HashMap<u128, Outcome>>,
}

impl OutcomeCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The outcome recorded for `key`, if any.
    pub fn get(&self, key: u128) -> Option<Outcome> {
        self.map.lock().expect("cache lock").get(&key).copied()
    }

    /// Records `outcome` for `key`.
    pub fn insert(&self, key: u128, outcome: Outcome) {
        self.map.lock().expect("cache lock").insert(key, outcome);
    }

    /// Forgets every outcome (the oracle changed, e.g. a shorter timeout).
    pub fn clear(&self) {
        self.map.lock().expect("cache lock").clear();
    }

    /// Number of recorded outcomes.
    pub fn len(&self) -> usize {
        self.map.lock().expect("cache lock").len()
    }

    /// True when nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
