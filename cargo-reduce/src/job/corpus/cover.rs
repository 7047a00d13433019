//! The smallest set of inputs that keeps every feature, pure (no
//! processes or files): libFuzzer's `-merge=1` greedy as the baseline,
//! then greedy set covers that do better, from the fewest files to the
//! fewest bytes, each pruned of the inputs the others make redundant; of
//! those no larger than the baseline in files or bytes, the one with the
//! fewest files, then bytes, wins. Every choice is ordered by (size, key) at a tie,
//! never by the inputs' order, so the same inputs in any order (from any
//! `-j`) give the same set.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

/// One input, as the set algorithms see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Item<'a> {
    /// Its size in bytes.
    pub size: usize,
    /// What breaks ties: its content's hash (distinct inputs, distinct keys).
    pub key: &'a str,
    /// Its features, sorted, no repeats.
    pub features: &'a [u32],
}

/// The chosen inputs (indices into the items), in index order.
pub(crate) type Choice = Vec<usize>;

/// libFuzzer's `-merge=1`: the inputs by size (then by more features
/// first, as its `MergeFileInfo` sorts them; then by key), each kept if it
/// has a feature none kept before it has.
pub(crate) fn merge_greedy(items: &[Item<'_>]) -> Choice {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&items[a], &items[b]);
        (a.size, std::cmp::Reverse(a.features.len()), a.key).cmp(&(
            b.size,
            std::cmp::Reverse(b.features.len()),
            b.key,
        ))
    });
    let mut seen = Covered::new(items);
    let mut kept: Choice = order
        .into_iter()
        .filter(|&i| seen.add_if_new(items[i].features))
        .collect();
    kept.sort_unstable();
    kept
}

/// How a greedy set cover ranks an input by what it would add.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rank {
    /// The most new features: the fewest files, whatever their bytes.
    Features,
    /// The most new features per byte of the input and `overhead` bytes
    /// more: as if each file cost that much besides its bytes, so that no
    /// overhead gives the fewest bytes, and each larger one trades bytes
    /// for fewer files.
    PerByte { overhead: usize },
}

/// The overheads of the covers [`minimize`] tries between the two ends
/// (each about twice the last): on a corpus whose fewest-file cover holds
/// more bytes than the baseline, one of them has nearly as few files in
/// far fewer bytes.
const OVERHEADS: [usize; 14] = [
    0, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536,
];

/// The smallest set this module finds ([`minimize_distinct`]), chosen among
/// the smallest input of each set of features (then the lower key): an
/// input with the same features as a smaller one is never taken before it,
/// and adds nothing after it. The features are numbered again from 0 in
/// the same order (libFuzzer's run up to 2²¹), so that the covers' tables
/// are as small as the corpus's features are few.
pub(crate) fn minimize(items: &[Item<'_>]) -> Choice {
    let distinct = distinct(items);
    let chosen: Vec<Item<'_>> = distinct.iter().map(|&i| items[i].clone()).collect();
    let dense = dense_features(&chosen);
    let chosen: Vec<Item<'_>> = chosen
        .into_iter()
        .zip(&dense)
        .map(|(item, features)| Item { features, ..item })
        .collect();
    let mut choice: Choice = minimize_distinct(&chosen)
        .into_iter()
        .map(|i| distinct[i])
        .collect();
    choice.sort_unstable();
    choice
}

/// The indices of the smallest input (then the lower key) of each set of
/// features, in index order.
fn distinct(items: &[Item<'_>]) -> Vec<usize> {
    let mut smallest: HashMap<&[u32], usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        let best = smallest.entry(item.features).or_insert(i);
        if (item.size, item.key) < (items[*best].size, items[*best].key) {
            *best = i;
        }
    }
    let mut distinct: Vec<usize> = smallest.into_values().collect();
    distinct.sort_unstable();
    distinct
}

/// `items`' features numbered by their rank among all of them (so still
/// sorted, without repeats).
fn dense_features(items: &[Item<'_>]) -> Vec<Vec<u32>> {
    let all = all_features(items);
    let rank = |f: &u32| all.binary_search(f).expect("one of all") as u32;
    items
        .iter()
        .map(|item| item.features.iter().map(rank).collect())
        .collect()
}

/// The baseline ([`merge_greedy`]) and the greedy covers of
/// [`Rank::Features`] and of each of [`OVERHEADS`], each pruned
/// ([`prune`]); of those no larger than the baseline in files or bytes,
/// the one with the fewest files, then bytes (libFuzzer's
/// `-set_cover_merge=1` counts files too; the covers between the two ends
/// find sets nearly as few within the baseline's bytes when the fewest-file
/// cover is larger).
fn minimize_distinct(items: &[Item<'_>]) -> Choice {
    let baseline = merge_greedy(items);
    let cost = |choice: &Choice| (choice.len(), choice.iter().map(|&i| items[i].size).sum());
    let limit: (usize, usize) = cost(&baseline);
    let per_byte = OVERHEADS.map(|overhead| Rank::PerByte { overhead });
    let index = Index::of(items);
    let covers = std::iter::once(Rank::Features)
        .chain(per_byte)
        .map(|rank| greedy_cover(items, &index, rank));
    std::iter::once(baseline.clone())
        .chain(covers)
        .map(|choice| prune(items, &choice))
        .filter(|c| {
            let (files, bytes) = cost(c);
            files <= limit.0 && bytes <= limit.1
        })
        .min_by_key(cost)
        .expect("the pruned baseline is no larger than the baseline")
}

/// What the greedy covers look up: which inputs have each feature, and
/// each input's place in (size, key) order, which breaks their ties.
pub(crate) struct Index {
    /// The inputs' indices, by feature.
    holders: Vec<Vec<u32>>,
    /// By input.
    order: Vec<u32>,
}

impl Index {
    pub(crate) fn of(items: &[Item<'_>]) -> Index {
        let mut holders = vec![Vec::new(); feature_space(items)];
        for (i, item) in items.iter().enumerate() {
            for &f in item.features {
                holders[f as usize].push(i as u32);
            }
        }
        let mut by_size: Vec<usize> = (0..items.len()).collect();
        by_size.sort_unstable_by_key(|&i| (items[i].size, items[i].key));
        let mut order = vec![0; items.len()];
        for (place, i) in by_size.into_iter().enumerate() {
            order[i] = place as u32;
        }
        Index { holders, order }
    }
}

/// Greedy set cover: until every feature is covered, the input that adds
/// the most (as `rank` counts it) is taken; ties go to the smaller input,
/// then the lower key. Each input's gain is kept up to date as features
/// are covered (through `index`, [`Index::of`] `items`); gains only
/// shrink, so an input is queued again only when it comes to the top with
/// less than it was queued with (lazy greedy).
pub(crate) fn greedy_cover(items: &[Item<'_>], index: &Index, rank: Rank) -> Choice {
    let mut gains: Vec<usize> = items.iter().map(|item| item.features.len()).collect();
    let mut covered = vec![false; index.holders.len()];
    let candidate = |i: usize, gain: usize| Candidate {
        index: i,
        gain,
        size: items[i].size,
        order: index.order[i],
        rank,
    };
    let mut heap: BinaryHeap<Candidate> = (0..items.len())
        .filter(|&i| gains[i] > 0)
        .map(|i| candidate(i, gains[i]))
        .collect();
    let mut kept = Vec::new();
    while let Some(top) = heap.pop() {
        let item = &items[top.index];
        let gain = gains[top.index];
        if gain == 0 {
            continue;
        }
        if gain < top.gain {
            heap.push(candidate(top.index, gain));
            continue;
        }
        for &f in item.features {
            if !std::mem::replace(&mut covered[f as usize], true) {
                for &holder in &index.holders[f as usize] {
                    gains[holder as usize] -= 1;
                }
            }
        }
        kept.push(top.index);
    }
    kept.sort_unstable();
    kept
}

/// `choice` without the inputs whose every feature another kept input
/// has: the largest are tried first (then the higher key), each dropped
/// if it is still redundant then.
pub(crate) fn prune(items: &[Item<'_>], choice: &Choice) -> Choice {
    let mut holders = vec![0u32; feature_space(items)];
    for &i in choice {
        for &f in items[i].features {
            holders[f as usize] += 1;
        }
    }
    let mut order = choice.clone();
    order.sort_by(|&a, &b| (items[b].size, items[b].key).cmp(&(items[a].size, items[a].key)));
    let mut dropped = vec![false; items.len()];
    for i in order {
        if items[i].features.iter().all(|&f| holders[f as usize] > 1) {
            for &f in items[i].features {
                holders[f as usize] -= 1;
            }
            dropped[i] = true;
        }
    }
    choice.iter().copied().filter(|&i| !dropped[i]).collect()
}

/// The features each chosen input is kept for, in `choice`'s order: every
/// feature of the chosen inputs goes to exactly one of its holders, the
/// smallest (then the lower key), so a larger input need keep only what
/// no smaller kept input has (and `--shrink` can cut the rest). Depends
/// on the inputs only, not on their order.
pub(crate) fn assign(items: &[Item<'_>], choice: &[usize]) -> Vec<Vec<u32>> {
    let mut owner: Vec<Option<usize>> = vec![None; feature_space(items)];
    let mut order: Vec<usize> = (0..choice.len()).collect();
    order.sort_by_key(|&c| (items[choice[c]].size, items[choice[c]].key));
    for &c in &order {
        for &f in items[choice[c]].features {
            owner[f as usize].get_or_insert(c);
        }
    }
    choice
        .iter()
        .enumerate()
        .map(|(c, &i)| {
            let owns = |f: &&u32| owner[**f as usize] == Some(c);
            items[i].features.iter().filter(owns).copied().collect()
        })
        .collect()
}

/// Every feature of `items`, without repeats, sorted.
pub(crate) fn all_features(items: &[Item<'_>]) -> Vec<u32> {
    let mut all: Vec<u32> = items
        .iter()
        .flat_map(|i| i.features.iter().copied())
        .collect();
    all.sort_unstable();
    all.dedup();
    all
}

/// One past the largest feature of `items`.
fn feature_space(items: &[Item<'_>]) -> usize {
    items
        .iter()
        .filter_map(|i| i.features.last())
        .max()
        .map_or(0, |&f| f as usize + 1)
}

/// The features covered so far.
struct Covered(Vec<bool>);

impl Covered {
    fn new(items: &[Item<'_>]) -> Self {
        Covered(vec![false; feature_space(items)])
    }

    fn new_in(&self, features: &[u32]) -> usize {
        features.iter().filter(|&&f| !self.0[f as usize]).count()
    }

    fn add(&mut self, features: &[u32]) {
        for &f in features {
            self.0[f as usize] = true;
        }
    }

    /// Adds `features` if one is new; whether one was.
    fn add_if_new(&mut self, features: &[u32]) -> bool {
        let new = self.new_in(features) > 0;
        if new {
            self.add(features);
        }
        new
    }
}

/// An input in the greedy cover's queue, with the gain it had when queued.
struct Candidate {
    index: usize,
    gain: usize,
    size: usize,
    /// Its place in (size, key) order.
    order: u32,
    rank: Rank,
}

impl Ord for Candidate {
    /// Greater is better: more gain (per byte: compared as fractions, an
    /// empty input as one byte), then smaller, then the lower key.
    fn cmp(&self, other: &Self) -> Ordering {
        let by_gain = match self.rank {
            Rank::Features => self.gain.cmp(&other.gain),
            Rank::PerByte { overhead } => {
                let cost = |size: usize| (size + overhead).max(1) as u128;
                let this = self.gain as u128 * cost(other.size);
                let that = other.gain as u128 * cost(self.size);
                this.cmp(&that)
            }
        };
        by_gain.then_with(|| other.order.cmp(&self.order))
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Candidate {}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Inputs as (size, features), keyed by position.
    fn items<'a>(sets: &'a [(usize, Vec<u32>)], keys: &'a [String]) -> Vec<Item<'a>> {
        sets.iter()
            .zip(keys)
            .map(|((size, features), key)| Item {
                size: *size,
                key,
                features,
            })
            .collect()
    }

    fn keys(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("{i:04}")).collect()
    }

    fn corpus() -> impl Strategy<Value = Vec<(usize, Vec<u32>)>> {
        let input = (0usize..64, proptest::collection::btree_set(0u32..40, 0..12))
            .prop_map(|(size, set)| (size, set.into_iter().collect()));
        proptest::collection::vec(input, 0..24)
    }

    fn cover(items: &[Item<'_>], rank: Rank) -> Choice {
        greedy_cover(items, &Index::of(items), rank)
    }

    fn cost(items: &[Item<'_>], choice: &Choice) -> (usize, usize) {
        (choice.len(), choice.iter().map(|&i| items[i].size).sum())
    }

    fn features_of(items: &[Item<'_>], choice: &Choice) -> Vec<u32> {
        let chosen: Vec<Item<'_>> = choice.iter().map(|&i| items[i].clone()).collect();
        all_features(&chosen)
    }

    #[test]
    fn set_cover_beats_the_size_order() {
        // By size, the three small ones come first and each adds a
        // feature; the big one, which alone has all three, adds none then.
        let sets = vec![(1, vec![1]), (2, vec![2]), (3, vec![3]), (4, vec![1, 2, 3])];
        let keys = keys(sets.len());
        let items = items(&sets, &keys);
        assert_eq!(merge_greedy(&items), vec![0, 1, 2]);
        assert_eq!(cover(&items, Rank::Features), vec![3]);
        assert_eq!(minimize(&items), vec![3]);
    }

    /// When the fewest-file cover holds more bytes than the baseline, a
    /// cover that counts each file as some bytes more finds fewer files
    /// within the baseline's bytes than the fewest-byte cover.
    #[test]
    fn an_overhead_per_file_trades_bytes_for_files() {
        let singles = (1..=6).map(|f| (1, vec![f]));
        let halves = [(3, vec![1, 2, 3]), (3, vec![4, 5, 6])];
        let sets: Vec<_> = singles
            .chain(halves)
            .chain([(100, (1..=6).collect())])
            .collect();
        let keys = keys(sets.len());
        let items = items(&sets, &keys);
        assert_eq!(cost(&items, &merge_greedy(&items)), (6, 6));
        assert_eq!(cover(&items, Rank::Features), vec![8]);
        let per_byte = cover(&items, Rank::PerByte { overhead: 0 });
        assert_eq!(per_byte, (0..6).collect::<Vec<_>>());
        assert_eq!(minimize(&items), vec![6, 7]);
    }

    proptest! {
        #[test]
        fn every_feature_is_kept_and_no_more_than_merge_keeps(sets in corpus()) {
            let keys = keys(sets.len());
            let items = items(&sets, &keys);
            let all = all_features(&items);
            let baseline = merge_greedy(&items);
            prop_assert_eq!(features_of(&items, &baseline), all.clone());
            for choice in [
                minimize(&items),
                cover(&items, Rank::Features),
                cover(&items, Rank::PerByte { overhead: 0 }),
                cover(&items, Rank::PerByte { overhead: 64 }),
            ] {
                prop_assert_eq!(features_of(&items, &choice), all.clone());
                prop_assert!(choice.windows(2).all(|w| w[0] < w[1]), "a subset, in order");
                prop_assert!(choice.iter().all(|&i| i < items.len()));
            }
            let best = minimize(&items);
            let (files, bytes) = cost(&items, &best);
            let (merge_files, merge_bytes) = cost(&items, &baseline);
            prop_assert!(files <= merge_files && bytes <= merge_bytes);
            // Converges: minimizing the result again keeps all of it.
            let again: Vec<Item<'_>> = best.iter().map(|&i| items[i].clone()).collect();
            prop_assert_eq!(minimize(&again).len(), again.len());
        }

        /// The assignment splits the set's features among its inputs: each
        /// feature to one input that has it, none left out, the same for
        /// any order of the inputs.
        #[test]
        fn every_feature_goes_to_one_kept_input_that_has_it(sets in corpus()) {
            let keys = keys(sets.len());
            let items = items(&sets, &keys);
            let choice = minimize(&items);
            let assigned = assign(&items, &choice);
            prop_assert_eq!(assigned.len(), choice.len());
            let mut all: Vec<u32> = assigned.iter().flatten().copied().collect();
            let count = all.len();
            all.sort_unstable();
            all.dedup();
            prop_assert_eq!(all.len(), count, "no feature twice");
            prop_assert_eq!(all, features_of(&items, &choice));
            for (keep, &i) in assigned.iter().zip(&choice) {
                prop_assert!(keep.iter().all(|f| items[i].features.contains(f)));
            }
            let reversed: Vec<usize> = choice.iter().rev().copied().collect();
            let mut again = assign(&items, &reversed);
            again.reverse();
            prop_assert_eq!(again, assign(&items, &choice));
        }

        #[test]
        fn the_same_inputs_in_any_order_give_the_same_set(
            sets in corpus(),
            seed in any::<u64>(),
        ) {
            let keys = keys(sets.len());
            let items = items(&sets, &keys);
            let mut order: Vec<usize> = (0..items.len()).collect();
            // A permutation from the seed (Fisher-Yates on a xorshift).
            let mut state = seed | 1;
            for i in (1..order.len()).rev() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                order.swap(i, (state % (i as u64 + 1)) as usize);
            }
            let shuffled: Vec<Item<'_>> = order.iter().map(|&i| items[i].clone()).collect();
            let mut chosen: Vec<&str> = minimize(&items).iter().map(|&i| items[i].key).collect();
            let mut again: Vec<&str> =
                minimize(&shuffled).iter().map(|&i| shuffled[i].key).collect();
            chosen.sort_unstable();
            again.sort_unstable();
            prop_assert_eq!(chosen, again);
        }
    }
}
