//! New, known or fixed: a failure seen in this run is known if the ledger
//! has an entry with its id, new otherwise; an entry is fixed if its own
//! input was replayed here and no input failed like it. (A shard that did
//! not replay an entry's input says nothing about it; the merge of all
//! shards does.)
//!
//! A failure whose panic only moved (lines added above it, so its
//! `file:line:col` changed) still matches its entry: failing that by id,
//! an entry no other failure claims matches by its *unmoored* id, the id
//! with the panic's line and column left out (same kind, file, call path).
//! Without it, any edit above a known bug would report it new and its
//! entry fixed. Pure: ids in, statuses out.

use super::report::Status;

/// The ids of one failure (or entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Keys<'a> {
    /// The signature's id at the run's `--match` level.
    pub id: &'a str,
    /// The same with the panic's line and column left out.
    pub unmoored: &'a str,
}

/// A ledger entry as classification sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Ledgered<'a> {
    /// Its ids, from its recorded signature.
    pub keys: Keys<'a>,
    /// Whether its input was replayed in this run (or shard).
    pub replayed: bool,
}

/// For each failure `seen` (one target's): its status, and the ledger
/// entry it matched.
pub(super) fn classify(seen: &[Keys<'_>], ledger: &[Ledgered<'_>]) -> Vec<(Status, Option<usize>)> {
    let mut claimed = vec![false; ledger.len()];
    let mut matched: Vec<Option<usize>> = seen
        .iter()
        .map(|keys| {
            let entry = ledger.iter().position(|e| e.keys.id == keys.id)?;
            claimed[entry] = true;
            Some(entry)
        })
        .collect();
    for (keys, matched) in seen.iter().zip(&mut matched) {
        if matched.is_none() {
            let moved = (0..ledger.len())
                .find(|&e| !claimed[e] && ledger[e].keys.unmoored == keys.unmoored);
            if let Some(entry) = moved {
                claimed[entry] = true;
                *matched = Some(entry);
            }
        }
    }
    matched
        .into_iter()
        .map(|entry| match entry {
            Some(entry) => (Status::Known, Some(entry)),
            None => (Status::New, None),
        })
        .collect()
}

/// The indices of the `ledger` entries that are fixed: replayed here, and
/// matched by no failure seen.
pub(super) fn fixed(seen: &[Keys<'_>], ledger: &[Ledgered<'_>]) -> Vec<usize> {
    let mut matched: Vec<usize> = classify(seen, ledger)
        .into_iter()
        .filter_map(|(_, entry)| entry)
        .collect();
    matched.sort_unstable();
    ledger
        .iter()
        .enumerate()
        .filter(|(i, e)| e.replayed && matched.binary_search(i).is_err())
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys<'a>(id: &'a str, unmoored: &'a str) -> Keys<'a> {
        Keys { id, unmoored }
    }

    fn entry<'a>(id: &'a str, unmoored: &'a str, replayed: bool) -> Ledgered<'a> {
        Ledgered {
            keys: keys(id, unmoored),
            replayed,
        }
    }

    #[test]
    fn new_known_and_fixed() {
        let ledger = [
            entry("a", "A", true),
            entry("b", "B", true),
            entry("c", "C", false),
        ];
        let seen = [keys("a", "A"), keys("z", "Z")];
        assert_eq!(
            classify(&seen, &ledger),
            [(Status::Known, Some(0)), (Status::New, None)]
        );
        assert_eq!(fixed(&seen, &ledger), [1], "c was not replayed here");
    }

    #[test]
    fn a_moved_panic_keeps_its_entry_once() {
        let ledger = [entry("a", "F", true)];
        // The panic moved: a new id, the same unmoored one.
        assert_eq!(
            classify(&[keys("a2", "F")], &ledger),
            [(Status::Known, Some(0))]
        );
        assert!(fixed(&[keys("a2", "F")], &ledger).is_empty());
        // The known one in place, a second panic in the same function: new.
        let both = [keys("b", "F"), keys("a", "F")];
        assert_eq!(
            classify(&both, &ledger),
            [(Status::New, None), (Status::Known, Some(0))]
        );
    }
}
