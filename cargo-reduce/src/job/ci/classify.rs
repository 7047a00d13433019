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
//! entry fixed. Two panics of one function share an unmoored id, so the
//! entry whose own input failed as the moved failure in this run is taken
//! first; only without such evidence (a shard that did not replay it) does
//! the first unclaimed entry stand in. Pure: ids in, statuses out.

use super::report::Status;

/// The ids of one failure (or entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Keys<'a> {
    /// The signature's id at the run's `--match` level.
    pub id: &'a str,
    /// The same with the panic's line and column left out.
    pub unmoored: &'a str,
}

/// A failure seen in this run, as classification sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Seen<'a> {
    /// Its ids.
    pub keys: Keys<'a>,
    /// The ledger entries whose own inputs failed so in this run.
    pub from_entries: Vec<usize>,
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
pub(super) fn classify(seen: &[Seen<'_>], ledger: &[Ledgered<'_>]) -> Vec<(Status, Option<usize>)> {
    let mut claimed = vec![false; ledger.len()];
    let mut matched: Vec<Option<usize>> = seen
        .iter()
        .map(|failure| {
            let entry = ledger.iter().position(|e| e.keys.id == failure.keys.id)?;
            claimed[entry] = true;
            Some(entry)
        })
        .collect();
    let moved = |failure: &Seen<'_>, e: usize| ledger[e].keys.unmoored == failure.keys.unmoored;
    let own_input = |failure: &Seen<'_>, e: usize| failure.from_entries.contains(&e);
    for with_evidence in [true, false] {
        for (failure, matched) in seen.iter().zip(&mut matched) {
            if matched.is_some() {
                continue;
            }
            let entry = (0..ledger.len()).find(|&e| {
                !claimed[e] && moved(failure, e) && (!with_evidence || own_input(failure, e))
            });
            if let Some(entry) = entry {
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
pub(super) fn fixed(seen: &[Seen<'_>], ledger: &[Ledgered<'_>]) -> Vec<usize> {
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

    fn seen<'a>(id: &'a str, unmoored: &'a str) -> Seen<'a> {
        failed_from(id, unmoored, &[])
    }

    fn failed_from<'a>(id: &'a str, unmoored: &'a str, entries: &[usize]) -> Seen<'a> {
        Seen {
            keys: keys(id, unmoored),
            from_entries: entries.to_vec(),
        }
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
        let seen = [seen("a", "A"), seen("z", "Z")];
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
            classify(&[seen("a2", "F")], &ledger),
            [(Status::Known, Some(0))]
        );
        assert!(fixed(&[seen("a2", "F")], &ledger).is_empty());
        // The known one in place, a second panic in the same function: new.
        let both = [seen("b", "F"), seen("a", "F")];
        assert_eq!(
            classify(&both, &ledger),
            [(Status::New, None), (Status::Known, Some(0))]
        );
    }

    /// Two panics of one function, the first fixed and the second moved
    /// up by the fix: the moved one is the entry whose input fails so
    /// now, whatever the entries' order; the fixed one is fixed.
    #[test]
    fn a_moved_panic_takes_the_entry_whose_input_fails_so() {
        let ledger = [entry("a", "F", true), entry("b", "F", true)];
        let moved_b = [failed_from("b2", "F", &[1])];
        assert_eq!(classify(&moved_b, &ledger), [(Status::Known, Some(1))]);
        assert_eq!(fixed(&moved_b, &ledger), [0]);
        // Without the evidence (its input not replayed), the first stands in.
        assert_eq!(
            classify(&[seen("b2", "F")], &ledger),
            [(Status::Known, Some(0))]
        );
    }
}
