//! New, known or fixed: a failure seen in this run is known if the ledger
//! has an entry with its id, new otherwise; an entry is fixed if its own
//! input was replayed here and no input failed with its id. (A shard that
//! did not replay an entry's input says nothing about it; the merge of all
//! shards does.) Pure: ids in, statuses out.

use super::report::Status;

/// A ledger entry as classification sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ledgered<'a> {
    /// Its signature id at the run's `--match` level.
    pub id: &'a str,
    /// Whether its input was replayed in this run (or shard).
    pub replayed: bool,
}

/// The status of each failure id `seen` (one target's).
pub fn statuses(seen: &[&str], ledger: &[Ledgered<'_>]) -> Vec<Status> {
    seen.iter()
        .map(|id| match ledger.iter().any(|e| e.id == *id) {
            true => Status::Known,
            false => Status::New,
        })
        .collect()
}

/// The indices of the `ledger` entries that are fixed.
pub fn fixed(seen: &[&str], ledger: &[Ledgered<'_>]) -> Vec<usize> {
    ledger
        .iter()
        .enumerate()
        .filter(|(_, e)| e.replayed && !seen.contains(&e.id))
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_known_and_fixed() {
        let ledger = [
            Ledgered {
                id: "a",
                replayed: true,
            },
            Ledgered {
                id: "b",
                replayed: true,
            },
            Ledgered {
                id: "c",
                replayed: false,
            },
        ];
        let seen = ["a", "z"];
        assert_eq!(statuses(&seen, &ledger), [Status::Known, Status::New]);
        assert_eq!(fixed(&seen, &ledger), [1], "c was not replayed here");
    }
}
