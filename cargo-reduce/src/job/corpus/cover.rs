//! The smallest set of inputs that keeps every feature, pure (no
//! processes or files): libFuzzer's `-merge=1` greedy as the baseline,
//! then greedy set covers that do better, each pruned of the inputs the
//! others make redundant; the best that is no larger than the baseline in
//! files or bytes wins. Every choice is ordered by (size, key) at a tie,
//! never by the inputs' order, so the same inputs in any order (from any
//! `-j`) give the same set.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

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
    /// The most new features.
    Features,
    /// The most new features per byte.
    FeaturesPerByte,
}

/// The smallest set this module finds: the baseline ([`merge_greedy`]) and
/// each [`Rank`]'s greedy cover, each pruned ([`prune`]); of those no
/// larger than the baseline in files or bytes, the one with the fewest
/// files, then bytes.
pub(crate) fn minimize(items: &[Item<'_>]) -> Choice {
    let baseline = merge_greedy(items);
    let cost = |choice: &Choice| (choice.len(), choice.iter().map(|&i| items[i].size).sum());
    let limit: (usize, usize) = cost(&baseline);
    let candidates = [
        prune(items, &baseline),
        prune(items, &greedy_cover(items, Rank::Features)),
        prune(items, &greedy_cover(items, Rank::FeaturesPerByte)),
    ];
    candidates
        .into_iter()
        .filter(|c| {
            let (files, bytes) = cost(c);
            files <= limit.0 && bytes <= limit.1
        })
        .min_by_key(cost)
        .expect("the pruned baseline is no larger than the baseline")
}

/// Greedy set cover: until every feature is covered, the input that adds
/// the most (as `rank` counts it) is taken; ties go to the smaller input,
/// then the lower key. Gains only shrink as features are covered, so an
/// input's gain is recomputed only when it comes to the top (lazy greedy).
pub(crate) fn greedy_cover(items: &[Item<'_>], rank: Rank) -> Choice {
    let mut covered = Covered::new(items);
    let mut heap: BinaryHeap<Candidate<'_>> = items
        .iter()
        .enumerate()
        .filter(|(_, item)| !item.features.is_empty())
        .map(|(index, item)| Candidate::new(index, item, item.features.len(), rank))
        .collect();
    let mut kept = Vec::new();
    while let Some(top) = heap.pop() {
        let item = &items[top.index];
        let gain = covered.new_in(item.features);
        if gain == 0 {
            continue;
        }
        if gain < top.gain {
            heap.push(Candidate::new(top.index, item, gain, rank));
            continue;
        }
        covered.add(item.features);
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
struct Candidate<'a> {
    index: usize,
    gain: usize,
    size: usize,
    key: &'a str,
    rank: Rank,
}

impl<'a> Candidate<'a> {
    fn new(index: usize, item: &Item<'a>, gain: usize, rank: Rank) -> Self {
        Candidate {
            index,
            gain,
            size: item.size,
            key: item.key,
            rank,
        }
    }
}

impl Ord for Candidate<'_> {
    /// Greater is better: more gain (per byte: compared as fractions, an
    /// empty input as one byte), then smaller, then the lower key.
    fn cmp(&self, other: &Self) -> Ordering {
        let by_gain = match self.rank {
            Rank::Features => self.gain.cmp(&other.gain),
            Rank::FeaturesPerByte => {
                let this = self.gain as u128 * other.size.max(1) as u128;
                let that = other.gain as u128 * self.size.max(1) as u128;
                this.cmp(&that)
            }
        };
        by_gain
            .then_with(|| other.size.cmp(&self.size))
            .then_with(|| other.key.cmp(self.key))
    }
}

impl PartialOrd for Candidate<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Candidate<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Candidate<'_> {}

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
        assert_eq!(greedy_cover(&items, Rank::Features), vec![3]);
        assert_eq!(minimize(&items), vec![3]);
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
                greedy_cover(&items, Rank::Features),
                greedy_cover(&items, Rank::FeaturesPerByte),
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
