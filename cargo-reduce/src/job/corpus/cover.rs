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

use crate::job::threads::map_in_order;

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
/// has a feature none kept before it has. `items`' features are `index`'s
/// groups ([`Index::grouped`]), counted by their weight.
pub(crate) fn merge_greedy(items: &[Item<'_>], index: &Index) -> Choice {
    let mut order: Vec<usize> = (0..items.len()).collect();
    let rank = |i: usize| {
        let count = index.weight_of(items[i].features);
        (items[i].size, std::cmp::Reverse(count), items[i].key)
    };
    order.sort_by_cached_key(|&i| rank(i));
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

impl Rank {
    /// What an input of `size` bytes costs: gains are compared per this
    /// (an empty input as one byte; one of 4 GiB or more as 4 GiB, so
    /// that a gain times a cost fits in a u64).
    fn cost(self, size: usize) -> u32 {
        match self {
            Rank::Features => 1,
            Rank::PerByte { overhead } => {
                u32::try_from((size + overhead).max(1)).unwrap_or(u32::MAX)
            }
        }
    }
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
/// and adds nothing after it. The covers see the features grouped
/// ([`Index::grouped`]), and run on up to `threads` threads (the same set
/// for any number).
pub(crate) fn minimize(items: &[Item<'_>], threads: usize) -> Choice {
    let distinct = distinct(items);
    let chosen: Vec<Item<'_>> = distinct.iter().map(|&i| items[i].clone()).collect();
    let (groups, index) = Index::grouped(&chosen);
    let chosen: Vec<Item<'_>> = chosen
        .into_iter()
        .zip(&groups)
        .map(|(item, features)| Item { features, ..item })
        .collect();
    let mut choice: Choice = minimize_distinct(&chosen, &index, threads)
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

/// The baseline ([`merge_greedy`]) and the greedy covers of
/// [`Rank::Features`] and of each of [`OVERHEADS`], each pruned
/// ([`prune`]); of those no larger than the baseline in files or bytes,
/// the one with the fewest files, then bytes (libFuzzer's
/// `-set_cover_merge=1` counts files too; the covers between the two ends
/// find sets nearly as few within the baseline's bytes when the fewest-file
/// cover is larger).
fn minimize_distinct(items: &[Item<'_>], index: &Index, threads: usize) -> Choice {
    let baseline = merge_greedy(items, index);
    let cost = |choice: &Choice| (choice.len(), choice.iter().map(|&i| items[i].size).sum());
    let limit: (usize, usize) = cost(&baseline);
    let per_byte = OVERHEADS.map(|overhead| Rank::PerByte { overhead });
    let ranks: Vec<Rank> = std::iter::once(Rank::Features).chain(per_byte).collect();
    let covers = map_in_order(&ranks, threads, |&rank| {
        prune(items, &greedy_cover(items, index, rank))
    });
    std::iter::once(prune(items, &baseline))
        .chain(covers)
        .filter(|c| {
            let (files, bytes) = cost(c);
            files <= limit.0 && bytes <= limit.1
        })
        .min_by_key(cost)
        .expect("the pruned baseline is no larger than the baseline")
}

/// What the covers look up: which inputs have each feature (each group
/// of features), how many features it stands for, and each input's place
/// in (size, key) order, which breaks their ties.
pub(crate) struct Index {
    /// The inputs' indices, by feature.
    holders: Vec<Vec<u32>>,
    /// By feature.
    weight: Vec<u32>,
    /// By input.
    order: Vec<u32>,
}

impl Index {
    /// `items`' features grouped by the inputs that have them, each group a
    /// feature weighing as many, numbered from 0 (libFuzzer's run up to
    /// 2²¹): the features of one group are covered by the same inputs, so
    /// every choice here takes the same inputs for the groups as for the
    /// features, at a fraction of the work (on a large queue most of an
    /// input's features are the same edges as most other inputs'). Each
    /// input's groups (sorted, no repeats), and the index of them.
    pub(crate) fn grouped(items: &[Item<'_>]) -> (Vec<Vec<u32>>, Index) {
        let partition = Partition::of(items);
        let holders = partition.holders(items);
        let mut groups = vec![Vec::new(); items.len()];
        for (group, inputs) in holders.iter().enumerate() {
            for &i in inputs {
                groups[i as usize].push(group as u32);
            }
        }
        let index = Index {
            holders,
            weight: partition.size,
            order: size_order(items),
        };
        (groups, index)
    }

    /// How many features `features` (groups of this index) stand for.
    fn weight_of(&self, features: &[u32]) -> u32 {
        features.iter().map(|&f| self.weight[f as usize]).sum()
    }
}

/// The features of a set of inputs split into groups by the inputs that
/// have them (partition refinement: all in one group, then each input
/// splits every group it has some but not all of in two), in linear time
/// and in tables as large as the features are many.
struct Partition {
    /// By feature: its group (`u32::MAX`: no input has it).
    group: Vec<u32>,
    /// By group: how many features it has.
    size: Vec<u32>,
    /// By group, scratch for [`Partition::split_by`]: how many of its
    /// features the input has, and where those go.
    count: Vec<u32>,
    split: Vec<u32>,
}

impl Partition {
    fn of(items: &[Item<'_>]) -> Partition {
        let mut group = vec![u32::MAX; feature_space(items)];
        let mut present = 0;
        for &f in items.iter().flat_map(|item| item.features) {
            if group[f as usize] == u32::MAX {
                group[f as usize] = 0;
                present += 1;
            }
        }
        let groups = usize::from(present > 0);
        let mut partition = Partition {
            group,
            size: vec![present; groups],
            count: vec![0; groups],
            split: vec![0; groups],
        };
        let mut touched = Vec::new();
        for item in items {
            partition.split_by(item.features, &mut touched);
        }
        partition
    }

    /// Moves `features` (one input's) out of each group whose other
    /// features it lacks, into a new group for each.
    fn split_by(&mut self, features: &[u32], touched: &mut Vec<u32>) {
        touched.clear();
        for &f in features {
            let g = self.group[f as usize] as usize;
            if self.count[g] == 0 {
                touched.push(g as u32);
            }
            self.count[g] += 1;
        }
        for &g in touched.iter() {
            let g = g as usize;
            self.split[g] = match self.count[g] == self.size[g] {
                true => g as u32,
                false => self.new_group(),
            };
            self.count[g] = 0;
        }
        for &f in features {
            let g = self.group[f as usize] as usize;
            let to = self.split[g];
            if to as usize != g {
                self.group[f as usize] = to;
                self.size[g] -= 1;
                self.size[to as usize] += 1;
            }
        }
    }

    fn new_group(&mut self) -> u32 {
        self.size.push(0);
        self.count.push(0);
        self.split.push(0);
        self.size.len() as u32 - 1
    }

    /// The inputs (indices into `items`, those it was made of) that have
    /// each group.
    fn holders(&self, items: &[Item<'_>]) -> Vec<Vec<u32>> {
        let mut holders = vec![Vec::new(); self.size.len()];
        // The last input each group was given (one past it: 0 is none), in
        // a table as small as the groups are few.
        let mut last = vec![0; self.size.len()];
        for (i, item) in items.iter().enumerate() {
            for &f in item.features {
                let g = self.group[f as usize] as usize;
                if last[g] != i as u32 + 1 {
                    last[g] = i as u32 + 1;
                    holders[g].push(i as u32);
                }
            }
        }
        holders
    }
}

/// Each input's place in (size, key) order.
fn size_order(items: &[Item<'_>]) -> Vec<u32> {
    let mut by_size: Vec<usize> = (0..items.len()).collect();
    by_size.sort_unstable_by_key(|&i| (items[i].size, items[i].key));
    let mut order = vec![0; items.len()];
    for (place, i) in by_size.into_iter().enumerate() {
        order[i] = place as u32;
    }
    order
}

/// Greedy set cover: until every feature is covered, the input that adds
/// the most (as `rank` counts it) is taken; ties go to the smaller input,
/// then the lower key. Each input's gain is kept up to date as features
/// are covered (through `index`, whose groups are `items`' features:
/// [`Index::grouped`]); gains only shrink, so an input is queued again
/// only when it comes to the top with less than it was queued with (lazy
/// greedy).
pub(crate) fn greedy_cover(items: &[Item<'_>], index: &Index, rank: Rank) -> Choice {
    let mut gains: Vec<u32> = items
        .iter()
        .map(|item| index.weight_of(item.features))
        .collect();
    let mut covered = vec![false; index.holders.len()];
    let candidate = |i: usize, gain: u32| Candidate {
        gain,
        order: index.order[i],
        index: i as u32,
        cost: rank.cost(items[i].size),
    };
    let mut heap: BinaryHeap<Candidate> = (0..items.len())
        .filter(|&i| gains[i] > 0)
        .map(|i| candidate(i, gains[i]))
        .collect();
    let mut kept = Vec::new();
    while let Some(top) = heap.pop() {
        let item = &items[top.index as usize];
        let gain = gains[top.index as usize];
        if gain == 0 {
            continue;
        }
        if gain < top.gain {
            heap.push(candidate(top.index as usize, gain));
            continue;
        }
        for &f in item.features {
            if !std::mem::replace(&mut covered[f as usize], true) {
                let weight = index.weight[f as usize];
                for &holder in &index.holders[f as usize] {
                    gains[holder as usize] -= weight;
                }
            }
        }
        kept.push(top.index as usize);
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
    let mut present = vec![false; feature_space(items)];
    for item in items {
        for &f in item.features {
            present[f as usize] = true;
        }
    }
    (0..present.len() as u32)
        .filter(|&f| present[f as usize])
        .collect()
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

/// An input in the greedy cover's queue, with the gain it had when queued
/// (small: sifting the queue is most of a cover's work).
struct Candidate {
    gain: u32,
    /// Its place in (size, key) order.
    order: u32,
    index: u32,
    /// Its [`Rank::cost`].
    cost: u32,
}

impl Ord for Candidate {
    /// Greater is better: more gain per cost (compared as fractions), then
    /// smaller, then the lower key.
    fn cmp(&self, other: &Self) -> Ordering {
        let this = self.gain as u64 * other.cost as u64;
        let that = other.gain as u64 * self.cost as u64;
        this.cmp(&that).then_with(|| other.order.cmp(&self.order))
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

    /// The index of `items`' own features: each its own group.
    fn ungrouped(items: &[Item<'_>]) -> Index {
        let mut holders = vec![Vec::new(); feature_space(items)];
        for (i, item) in items.iter().enumerate() {
            for &f in item.features {
                holders[f as usize].push(i as u32);
            }
        }
        let weight = vec![1; holders.len()];
        Index {
            holders,
            weight,
            order: size_order(items),
        }
    }

    fn cover(items: &[Item<'_>], rank: Rank) -> Choice {
        greedy_cover(items, &ungrouped(items), rank)
    }

    fn merge(items: &[Item<'_>]) -> Choice {
        merge_greedy(items, &ungrouped(items))
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
        assert_eq!(merge(&items), vec![0, 1, 2]);
        assert_eq!(cover(&items, Rank::Features), vec![3]);
        assert_eq!(minimize(&items, 2), vec![3]);
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
        assert_eq!(cost(&items, &merge(&items)), (6, 6));
        assert_eq!(cover(&items, Rank::Features), vec![8]);
        let per_byte = cover(&items, Rank::PerByte { overhead: 0 });
        assert_eq!(per_byte, (0..6).collect::<Vec<_>>());
        assert_eq!(minimize(&items, 2), vec![6, 7]);
    }

    proptest! {
        #[test]
        fn every_feature_is_kept_and_no_more_than_merge_keeps(sets in corpus()) {
            let keys = keys(sets.len());
            let items = items(&sets, &keys);
            let all = all_features(&items);
            let baseline = merge(&items);
            prop_assert_eq!(features_of(&items, &baseline), all.clone());
            for choice in [
                minimize(&items, 2),
                cover(&items, Rank::Features),
                cover(&items, Rank::PerByte { overhead: 0 }),
                cover(&items, Rank::PerByte { overhead: 64 }),
            ] {
                prop_assert_eq!(features_of(&items, &choice), all.clone());
                prop_assert!(choice.windows(2).all(|w| w[0] < w[1]), "a subset, in order");
                prop_assert!(choice.iter().all(|&i| i < items.len()));
            }
            let best = minimize(&items, 2);
            let (files, bytes) = cost(&items, &best);
            let (merge_files, merge_bytes) = cost(&items, &baseline);
            prop_assert!(files <= merge_files && bytes <= merge_bytes);
            // Converges: minimizing the result again keeps all of it.
            let again: Vec<Item<'_>> = best.iter().map(|&i| items[i].clone()).collect();
            prop_assert_eq!(minimize(&again, 1).len(), again.len());
        }

        /// Grouped features are covered as the features they stand for:
        /// the baseline, every cover and the set take the same inputs.
        #[test]
        fn grouping_the_features_changes_no_choice(sets in corpus()) {
            let keys = keys(sets.len());
            let items = items(&sets, &keys);
            let plain = ungrouped(&items);
            let (groups, index) = Index::grouped(&items);
            let grouped: Vec<Item<'_>> = items
                .iter()
                .zip(&groups)
                .map(|(item, features)| Item { features, ..item.clone() })
                .collect();
            prop_assert_eq!(merge_greedy(&items, &plain), merge_greedy(&grouped, &index));
            for rank in [Rank::Features, Rank::PerByte { overhead: 0 }, Rank::PerByte { overhead: 64 }] {
                prop_assert_eq!(
                    greedy_cover(&items, &plain, rank),
                    greedy_cover(&grouped, &index, rank)
                );
            }
            prop_assert_eq!(
                minimize_distinct(&items, &plain, 1),
                minimize_distinct(&grouped, &index, 2)
            );
        }

        /// The assignment splits the set's features among its inputs: each
        /// feature to one input that has it, none left out, the same for
        /// any order of the inputs.
        #[test]
        fn every_feature_goes_to_one_kept_input_that_has_it(sets in corpus()) {
            let keys = keys(sets.len());
            let items = items(&sets, &keys);
            let choice = minimize(&items, 2);
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
            let mut chosen: Vec<&str> = minimize(&items, 2).iter().map(|&i| items[i].key).collect();
            let mut again: Vec<&str> =
                minimize(&shuffled, 3).iter().map(|&i| shuffled[i].key).collect();
            chosen.sort_unstable();
            again.sort_unstable();
            prop_assert_eq!(chosen, again);
        }
    }
}
