//! Where `typed-lower`'s searches ended, so that a later round confirms a
//! value instead of searching it again.

use std::collections::HashMap;

/// The values a search of `typed-lower` ended at, by draw, while the
/// layout keeps its number of draws: searched again in a later round
/// (another value may have changed what fails), such a value is first
/// tested at 0 and just below itself, as a large one is, instead of
/// searched down from 0 (which a large count pays in tests every round).
#[derive(Debug, Default)]
pub(super) struct Settled {
    pieces: usize,
    values: HashMap<usize, u128>,
}

impl Settled {
    /// The value the search of draw `at` ended at, if the layout still
    /// has `pieces` draws (else everything is forgotten).
    pub(super) fn get(&mut self, pieces: usize, at: usize) -> Option<u128> {
        if self.pieces != pieces {
            self.pieces = pieces;
            self.values.clear();
        }
        self.values.get(&at).copied()
    }

    /// Records where the search of draw `at` ended (`None`: nowhere to
    /// keep), while the layout has `pieces` draws.
    pub(super) fn set(&mut self, pieces: usize, at: usize, value: Option<u128>) {
        if self.pieces == pieces {
            match value {
                Some(value) => self.values.insert(at, value),
                None => self.values.remove(&at),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settled_values_are_forgotten_when_the_draws_change() {
        let mut settled = Settled::default();
        assert_eq!(settled.get(3, 1), None);
        settled.set(3, 1, Some(7));
        assert_eq!(settled.get(3, 1), Some(7));
        settled.set(3, 1, None);
        assert_eq!(settled.get(3, 1), None);
        settled.set(3, 2, Some(9));
        assert_eq!(settled.get(2, 2), None, "another number of draws");
        assert_eq!(settled.get(3, 2), None);
    }
}
