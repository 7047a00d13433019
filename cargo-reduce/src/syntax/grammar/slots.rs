//! Where a child stands: the Φ a child kind has in a parent kind, which
//! the parent's rule knows better than the child's own Φ (list elements,
//! optional parts, the slot a child fills, the alternatives of sibling
//! kinds), and the tokens that separate list elements.

use std::collections::{HashMap, HashSet};

use super::phi::RulePhis;
use super::{Grammar, Rule};

/// The Φ a child kind has in a parent kind, where the parent's rule says
/// more than the child's own Φ, and the tokens that separate list
/// elements.
///
/// - **List elements and optional children** get "": a statement's Φ is
///   not empty, but in a block's list of statements it can go (the ECFG
///   view of lists). A kind counts as removable in a parent when every
///   occurrence of it in the parent's rule (hidden rules and supertypes
///   expanded) sits under a `REPEAT` or an optional `CHOICE` with nothing
///   but nullable siblings in between.
/// - **Slots**: otherwise the Φ of the *slot* the child fills, the member
///   of the parent's sequence it stands in (Perses' minimal replacement of
///   the symbol the parent expects). Where a parent expects any
///   `_expression`, a call `f(x)` can become `0`, not only the smallest
///   call. Given only when every occurrence of the kind in the parent has
///   the same slot Φ. A member whose siblings in its sequence are all
///   nullable fills the sequence's slot. `plain` is the language's
///   expression supertype and its plainest expression (`0`): a slot that
///   takes any expression reads as that rather than as a name (`a`),
///   which would not resolve.
/// - **Sibling kinds**: two kinds of one supertype whose rules are
///   sequences differing in one member only (`function_item` ends in a
///   `block`, `function_signature_item` in `;`) give that member's child
///   the other's Φ where shorter: `fn f() {}` may become `fn f();`, the
///   node reading as the other kind.
pub(crate) fn child_phis(grammar: &Grammar, phis: &RulePhis, plain: (&str, &str)) -> Children {
    let rules: HashMap<&str, &Rule> = grammar.rules.iter().map(|(k, r)| (k.as_str(), r)).collect();
    let mut out = Children::default();
    for (parent, rule) in &grammar.rules {
        if parent.starts_with('_') {
            continue;
        }
        let mut walk = Occurrences {
            rules: &rules,
            supertypes: &grammar.supertypes,
            phis,
            plain,
            seen: HashSet::new(),
            found: HashMap::new(),
            separators: HashSet::new(),
        };
        walk.visit(rule, false, None);
        for sep in walk.separators {
            out.separators.insert((parent.clone(), sep));
        }
        for (child, place) in walk.found {
            let phi = match place {
                Place {
                    removable: true, ..
                } => String::new(),
                Place {
                    slot: Slot::One(phi),
                    ..
                } => phi,
                _ => continue,
            };
            out.phis.insert((parent.clone(), child), phi);
        }
    }
    for (key, phi) in sibling_alternatives(grammar, phis) {
        let shorter = |old: &String| phi.len() < old.len();
        if out.phis.get(&key).is_none_or(shorter) {
            out.phis.insert(key, phi);
        }
    }
    out
}

/// For each pair of kinds of a supertype whose rules are sequences of one
/// length that differ in one member: the child kind of that member in the
/// first, and Φ of the member in the second.
fn sibling_alternatives(grammar: &Grammar, phis: &RulePhis) -> Vec<(ChildOf, String)> {
    let seq = |kind: &str| match grammar.rule(kind) {
        Some(Rule::Seq(members)) => Some(members.as_slice()),
        _ => None,
    };
    let mut out = Vec::new();
    for supertype in &grammar.supertypes {
        let members: Vec<(String, &[Rule])> = grammar
            .supertype_members(supertype)
            .into_iter()
            .filter_map(|m| Some((m.clone(), seq(&m)?)))
            .collect();
        for (a, ra) in &members {
            for (b, rb) in &members {
                if a == b || ra.len() != rb.len() {
                    continue;
                }
                let mut differ = (0..ra.len()).filter(|&i| ra[i] != rb[i]);
                let (Some(i), None) = (differ.next(), differ.next()) else {
                    continue;
                };
                let child = match &ra[i] {
                    Rule::Symbol(name) if !name.starts_with('_') => (name.clone(), true),
                    Rule::String(s) => (s.clone(), false),
                    _ => continue,
                };
                if let Some(phi) = phis.of(&rb[i]) {
                    out.push(((a.clone(), child), phi));
                }
            }
        }
    }
    out
}

/// A child kind in a parent kind: `(parent, (child, child is named))`.
pub(super) type ChildOf = (String, (String, bool));

/// What [`child_phis`] finds out about the children of each parent kind.
#[derive(Debug, Default)]
pub(crate) struct Children {
    /// Φ of a child kind in a parent kind.
    pub phis: HashMap<ChildOf, String>,
    /// `(parent, token)`: the token separates the elements of a list in
    /// the parent (`,` in `sepBy(',', …)`): the grammar repeats it
    /// together with an element, so an element goes with one of its
    /// separators.
    pub separators: HashSet<(String, String)>,
}

/// What the occurrences of one child kind in a parent rule agree on.
struct Place {
    /// Every occurrence is a list element or optional.
    removable: bool,
    /// The slot Φ of the occurrences.
    slot: Slot,
}

/// The slot Φ of a child kind's occurrences so far.
enum Slot {
    /// Every occurrence so far fills a slot with this Φ.
    One(String),
    /// Some occurrence has no slot, or two have different Φs.
    Mixed,
}

/// Collects the child kinds of one parent rule, whether every occurrence
/// is removable, and the Φ of the slots they fill.
struct Occurrences<'g> {
    rules: &'g HashMap<&'g str, &'g Rule>,
    /// Supertypes are hidden in trees even without a leading `_`.
    supertypes: &'g [String],
    phis: &'g RulePhis,
    plain: (&'g str, &'g str),
    /// Hidden rules entered, with the context they were entered in.
    seen: HashSet<(&'g str, bool, usize)>,
    found: HashMap<(String, bool), Place>,
    separators: HashSet<String>,
}

impl<'g> Occurrences<'g> {
    fn record(&mut self, kind: &str, named: bool, removable: bool, slot: Option<&Rule>) {
        let phi = slot.and_then(|r| self.slot_phi(r));
        let place = self
            .found
            .entry((kind.to_string(), named))
            .or_insert_with(|| Place {
                removable: true,
                slot: phi.clone().map_or(Slot::Mixed, Slot::One),
            });
        place.removable &= removable;
        if !matches!((&place.slot, &phi), (Slot::One(a), Some(b)) if a == b) {
            place.slot = Slot::Mixed;
        }
    }

    /// Φ of a slot: the plain expression where any expression goes.
    fn slot_phi(&self, slot: &Rule) -> Option<String> {
        let phi = self.phis.of(slot)?;
        let (expression, plain) = self.plain;
        let any_expression = |r: &Rule| matches!(r, Rule::Symbol(s) if s == expression);
        let takes_expression = match slot {
            Rule::Choice(members) => members.iter().any(any_expression),
            other => any_expression(other),
        };
        Some(if takes_expression && plain.len() <= phi.len() {
            plain.to_string()
        } else {
            phi
        })
    }

    fn nullable(&self, rule: &Rule) -> bool {
        match rule {
            Rule::Blank | Rule::Repeat(_) => true,
            Rule::Symbol(name) => self.phis.rules.get(name).is_some_and(String::is_empty),
            Rule::Choice(members) => members.iter().any(|m| self.nullable(m)),
            Rule::Seq(members) => members.iter().all(|m| self.nullable(m)),
            _ => false,
        }
    }

    /// Visits `rule`; `optional`: it may be left out where it stands;
    /// `slot`: the member of the enclosing sequence it is part of.
    fn visit(&mut self, rule: &'g Rule, optional: bool, slot: Option<&'g Rule>) {
        match rule {
            Rule::Symbol(name) if name.starts_with('_') || self.supertypes.contains(name) => {
                if let Some(inner) = self.rules.get(name.as_str()).copied() {
                    let at = slot.map_or(0, |r| r as *const Rule as usize);
                    if self.seen.insert((name.as_str(), optional, at)) {
                        self.visit(inner, optional, slot);
                    }
                }
            }
            Rule::Symbol(name) => self.record(name, true, optional, slot),
            Rule::String(s) => self.record(s, false, optional, slot),
            Rule::Alias { value, named, .. } => self.record(value, *named, optional, slot),
            Rule::Repeat(c) | Rule::Repeat1(c) => {
                if let Rule::Seq(members) = &**c {
                    let ends = [members.first(), members.last()];
                    let seps = ends.into_iter().flatten().filter_map(|m| match m {
                        Rule::String(s) if members.len() > 1 => Some(s.clone()),
                        _ => None,
                    });
                    self.separators.extend(seps);
                }
                self.visit(c, true, Some(c))
            }
            Rule::Choice(members) => {
                let optional = optional || members.contains(&Rule::Blank);
                members.iter().for_each(|m| self.visit(m, optional, slot));
            }
            Rule::Seq(members) => {
                for (i, m) in members.iter().enumerate() {
                    let alone = members
                        .iter()
                        .enumerate()
                        .all(|(j, o)| j == i || self.nullable(o));
                    // A member whose siblings may all be absent stands for
                    // the whole sequence: its slot is the sequence's
                    // (`struct S {}` can end in `;`, the alternative of
                    // `seq(optional(where_clause), field_declaration_list)`).
                    let member_slot = if alone { slot.or(Some(m)) } else { Some(m) };
                    self.visit(m, optional && alone, member_slot);
                }
            }
            Rule::Blank | Rule::Pattern(..) | Rule::Token { .. } => {}
        }
    }
}
