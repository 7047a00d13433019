//! Grouping failing inputs by failure: a fuzzer saves many inputs per bug
//! (AFL++'s `crashes/` holds hundreds for a handful), and reducing each is
//! wasted work that ends in the same few minimal inputs. Each group of
//! inputs with one signature gets one representative, its smallest input
//! (the cheapest to reduce, and the nearest to the minimal one), unless a
//! member the caller prefers is there.
//!
//! Pure: the caller decides what a signature is and runs the inputs.

use std::collections::HashMap;
use std::hash::Hash;

/// One input, as grouping sees it.
#[derive(Debug, Clone)]
pub(super) struct Member<K> {
    /// The failure it reproduced with (and whatever else keeps groups
    /// apart, such as the target).
    pub key: K,
    /// Its size in bytes.
    pub size: u64,
    /// A name that orders inputs of equal size.
    pub name: String,
    /// Whether it has a minimized copy already.
    pub done: bool,
    /// Whether it goes before the members that are not, whatever their
    /// sizes.
    pub preferred: bool,
}

/// What becomes of one member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// Reduce it: its group's representative (or every member, with `all`).
    Reduce,
    /// Its group is reduced by member `of` (an index into the members).
    Duplicate {
        /// The representative, or the member already reduced.
        of: usize,
    },
    /// It has a minimized copy and is not to be reduced again.
    Done,
}

/// The groups of `members` by key, in order of first appearance, each
/// sorted preferred first, then smallest first, then by name.
pub(super) fn groups<K: Eq + Hash + Clone>(members: &[Member<K>]) -> Vec<Vec<usize>> {
    let mut index: HashMap<K, usize> = HashMap::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, member) in members.iter().enumerate() {
        let g = *index.entry(member.key.clone()).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(i);
    }
    for group in &mut groups {
        group.sort_by(|&a, &b| {
            let (a, b) = (&members[a], &members[b]);
            (!a.preferred, a.size, &a.name).cmp(&(!b.preferred, b.size, &b.name))
        });
    }
    groups
}

/// Each member's role. With `all`, every member without a minimized copy
/// is reduced (with `force`, every member). Otherwise a group with a
/// reduced member is done, its other members its duplicates (unless
/// `force`), and in any other group the first member ([`groups`]) is
/// reduced and the others are its duplicates.
pub(super) fn roles<K: Eq + Hash + Clone>(
    members: &[Member<K>],
    all: bool,
    force: bool,
) -> Vec<Role> {
    let mut roles = vec![Role::Done; members.len()];
    for group in groups(members) {
        let reduced = group.iter().copied().find(|&i| members[i].done);
        let reduced = reduced.filter(|_| !force);
        for (rank, &i) in group.iter().enumerate() {
            roles[i] = match reduced {
                _ if members[i].done && !force => Role::Done,
                _ if all => Role::Reduce,
                Some(done) => Role::Duplicate { of: done },
                None if rank == 0 => Role::Reduce,
                None => Role::Duplicate { of: group[0] },
            };
        }
    }
    roles
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(key: &str, size: u64, name: &str, done: bool) -> Member<String> {
        Member {
            key: key.to_string(),
            size,
            name: name.to_string(),
            done,
            preferred: false,
        }
    }

    #[test]
    fn the_smallest_input_of_each_failure_is_reduced() {
        let members = [
            member("a", 30, "x", false),
            member("b", 9, "y", false),
            member("a", 12, "z", false),
            member("a", 12, "w", false),
        ];
        assert_eq!(groups(&members), [vec![3, 2, 0], vec![1]]);
        assert_eq!(
            roles(&members, false, false),
            [
                Role::Duplicate { of: 3 },
                Role::Reduce,
                Role::Duplicate { of: 3 },
                Role::Reduce
            ]
        );
        assert_eq!(roles(&members, true, false), [Role::Reduce; 4]);
    }

    #[test]
    fn a_preferred_input_is_reduced_before_smaller_ones() {
        let preferred = Member {
            preferred: true,
            ..member("a", 40, "p", false)
        };
        let members = [member("a", 12, "z", false), preferred];
        assert_eq!(groups(&members), [vec![1, 0]]);
        assert_eq!(
            roles(&members, false, false),
            [Role::Duplicate { of: 1 }, Role::Reduce]
        );
    }

    #[test]
    fn all_reduces_what_has_no_minimized_copy() {
        let members = [member("a", 5, "x", false), member("a", 50, "y", true)];
        assert_eq!(roles(&members, true, false), [Role::Reduce, Role::Done]);
        assert_eq!(roles(&members, true, true), [Role::Reduce, Role::Reduce]);
    }

    #[test]
    fn a_failure_reduced_before_is_done() {
        let members = [
            member("a", 5, "x", false),
            member("a", 50, "y", true),
            member("b", 7, "z", true),
        ];
        assert_eq!(
            roles(&members, false, false),
            [Role::Duplicate { of: 1 }, Role::Done, Role::Done]
        );
        // --force: reduced again, from the smallest input.
        assert_eq!(
            roles(&members, false, true),
            [Role::Reduce, Role::Duplicate { of: 0 }, Role::Reduce]
        );
    }
}
