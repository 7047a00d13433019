//! Outcomes keyed by candidate content.
//!
//! ddmin meets the same candidate again and again: in the next DD* pass,
//! when granularity changes, and when the line pass and the character pass
//! of a text overlap. The key is a 128-bit hash of the candidate's content
//! ([`super::Candidate::content_hash`]), so equal contents share one entry
//! whatever chunking produced them; at 128 bits a collision is not a
//! practical concern.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Mutex;

use super::Outcome;

/// Hashes a content hash for a hash table: it is uniform already, so its
/// low half is the table hash (SipHash over it cost more than a test in
/// the searches' bookkeeping).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct ContentKeyHasher(u64);

impl Hasher for ContentKeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only content hashes are keys; anything else still hashes.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u128(&mut self, key: u128) {
        self.0 = key as u64;
    }
}

/// A set of content hashes.
pub(crate) type ContentKeys = HashSet<u128, BuildHasherDefault<ContentKeyHasher>>;

/// A thread-safe map from content hash to outcome.
#[derive(Debug, Default)]
pub(crate) struct OutcomeCache {
    map: Mutex<HashMap<u128, Outcome, BuildHasherDefault<ContentKeyHasher>>>,
}

impl OutcomeCache {
    /// An empty cache.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// The outcome recorded for `key`, if any.
    pub(crate) fn get(&self, key: u128) -> Option<Outcome> {
        self.map.lock().expect("cache lock").get(&key).copied()
    }

    /// Records `outcome` for `key`.
    pub(crate) fn insert(&self, key: u128, outcome: Outcome) {
        self.map.lock().expect("cache lock").insert(key, outcome);
    }

    /// Forgets every outcome (the oracle changed, e.g. a shorter timeout).
    pub(crate) fn clear(&self) {
        self.map.lock().expect("cache lock").clear();
    }

    /// Number of recorded outcomes.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.map.lock().expect("cache lock").len()
    }
}
