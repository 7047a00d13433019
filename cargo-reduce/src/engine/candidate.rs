//! A candidate: the current configuration with one chunk kept (a subset),
//! one chunk removed (a complement) or one chunk replaced (a splice),
//! described as at most three borrowed slices so that building a candidate
//! never copies atoms.

use std::hash::{Hash, Hasher};

/// A variant of the current configuration, as up to three slices.
///
/// ```
/// use cargo_reduce::Candidate;
///
/// let atoms = b"abcdef";
/// assert_eq!(Candidate::subset(atoms, 1..3).to_vec(), b"bc");
/// let without = Candidate::complement(atoms, 1..3);
/// assert_eq!((without.len(), without.to_vec()), (4, b"adef".to_vec()));
/// assert_eq!(Candidate::spliced(atoms, 0..3, b"x").to_vec(), b"xdef");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a, A> {
    parts: [&'a [A]; 3],
}

impl<'a, A> Candidate<'a, A> {
    /// The whole of `atoms`.
    pub fn whole(atoms: &'a [A]) -> Self {
        Candidate {
            parts: [atoms, &[], &[]],
        }
    }

    /// `atoms[range]` only.
    pub fn subset(atoms: &'a [A], range: std::ops::Range<usize>) -> Self {
        Candidate {
            parts: [&atoms[range], &[], &[]],
        }
    }

    /// `atoms` without `atoms[range]`.
    pub fn complement(atoms: &'a [A], range: std::ops::Range<usize>) -> Self {
        Candidate {
            parts: [&atoms[..range.start], &[], &atoms[range.end..]],
        }
    }

    /// `atoms` with `atoms[range]` replaced by `replacement`.
    pub fn spliced(atoms: &'a [A], range: std::ops::Range<usize>, replacement: &'a [A]) -> Self {
        Candidate {
            parts: [&atoms[..range.start], replacement, &atoms[range.end..]],
        }
    }

    /// The slices whose concatenation is the candidate.
    pub fn parts(&self) -> [&'a [A]; 3] {
        self.parts
    }

    /// Number of atoms.
    pub fn len(&self) -> usize {
        self.parts.iter().map(|p| p.len()).sum()
    }

    /// True when the candidate has no atom.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The atoms in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a A> + 'a {
        self.parts.into_iter().flatten()
    }

    /// The atoms, copied into one vector.
    pub fn to_vec(&self) -> Vec<A>
    where
        A: Clone,
    {
        let mut v = Vec::with_capacity(self.len());
        for part in self.parts {
            v.extend_from_slice(part);
        }
        v
    }

    /// A 128-bit hash of the candidate's content.
    ///
    /// The parts are fed to one streaming hasher without separators, so the
    /// key depends on the atoms only, not on where the cut fell; with atoms
    /// whose `Hash` writes raw bytes (`u8`, the crate's byte spans) it is a
    /// hash of the candidate's bytes, and equal contents share a cache entry
    /// across passes and granularities.
    pub fn content_hash(&self) -> u128
    where
        A: Hash,
    {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        self.hash(&mut h);
        h.digest128()
    }
}

impl<A: Hash> Hash for Candidate<'_, A> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        for part in self.parts {
            A::hash_slice(part, state);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complement_and_subset_cover_the_config() {
        let atoms = [1, 2, 3, 4, 5];
        assert_eq!(Candidate::subset(&atoms, 1..3).to_vec(), vec![2, 3]);
        assert_eq!(Candidate::complement(&atoms, 1..3).to_vec(), vec![1, 4, 5]);
        assert_eq!(Candidate::whole(&atoms).len(), 5);
        assert_eq!(
            Candidate::spliced(&atoms, 1..3, &[0]).to_vec(),
            vec![1, 0, 4, 5]
        );
    }

    #[test]
    fn content_hash_ignores_where_the_cut_fell() {
        let a = b"hello world".to_vec();
        let b = b"hello XXworld".to_vec();
        let whole = Candidate::whole(&a);
        let cut = Candidate::complement(&b, 6..8);
        assert_eq!(whole.content_hash(), cut.content_hash());
        assert_ne!(
            whole.content_hash(),
            Candidate::subset(&a, 0..5).content_hash()
        );
    }
}
