//! Optional groups as nodes: the ECFG view of `optional(seq(…))`.
//!
//! In an extended CFG, `('->' type)?` is one quantified unit that can go
//! as a whole; picireny's ANTLR trees give it a node of its own (a
//! quantifier node with Φ ""). tree-sitter's trees do not: `->` and the
//! type are plain children of `function_item`, the `->` reads as itself
//! and the type as its Φ, so HDD can only make `-> a` of `-> u64`, and
//! Coarse HDD cannot touch either. Here every run of children that matches
//! an optional sequence of the parent's rule led by a token (`-> T`, `: T`
//! and `= value` in `let`, `if guard` in a match arm) is wrapped in a node
//! of its own with Φ "", so a single edit removes it. This module finds the
//! groups in the grammar; [`crate::syntax::parse::wrap_groups`] wraps them in a
//! tree.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::{Grammar, Rule};

/// Start of the kind of every group node (`"(optional ->)"`).
pub(super) const PREFIX: &str = "(optional ";

/// An optional sequence of a parent rule: what its members match.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// Kind of the node a match is wrapped in: [`PREFIX`], the leading
    /// token, `)`.
    pub kind: &'static str,
    /// The sequence's members; the first one is the leading token.
    pub members: Vec<Member>,
}

/// What one member of a group matches among a node's children.
#[derive(Debug, Clone, PartialEq)]
pub enum Member {
    /// One child of one of these kinds (a token's kind is its text).
    One(BTreeSet<String>),
    /// A nested optional sequence, matched if it can be.
    Optional(Group),
}

impl Group {
    /// A group of `members`, its kind named after the first member's
    /// first kind (`…` when that is a nested group itself).
    fn new(members: Vec<Member>) -> Group {
        let lead = match members.first() {
            Some(Member::One(kinds)) => kinds.iter().next().map_or("…", String::as_str),
            _ => "…",
        };
        Group {
            kind: group_kind(lead),
            members,
        }
    }
}

/// Whether `kind` is the kind of a group node.
pub(crate) fn is_group(kind: &str) -> bool {
    kind.starts_with(PREFIX)
}

/// The optional groups of every visible rule of `grammar`, by parent kind.
pub(crate) fn optional_groups(grammar: &Grammar) -> HashMap<String, Vec<Group>> {
    let rules: HashMap<&str, &Rule> = grammar.rules.iter().map(|(k, r)| (k.as_str(), r)).collect();
    let finder = Finder {
        grammar,
        rules: &rules,
    };
    let mut out: HashMap<String, Vec<Group>> = HashMap::new();
    for (parent, rule) in &grammar.rules {
        if parent.starts_with('_') || grammar.supertypes.contains(parent) {
            continue;
        }
        let mut groups = Vec::new();
        finder.walk(rule, &mut HashSet::new(), &mut groups);
        if !groups.is_empty() {
            out.insert(parent.clone(), groups);
        }
    }
    out
}

/// Walks a parent's rule, hidden rules inlined, for optional sequences.
struct Finder<'g> {
    grammar: &'g Grammar,
    rules: &'g HashMap<&'g str, &'g Rule>,
}

impl<'g> Finder<'g> {
    /// `rule` without hidden, non-supertype symbols around it: what
    /// tree-sitter inlines into the parent.
    fn inlined(&self, mut rule: &'g Rule, seen: &mut HashSet<&'g str>) -> &'g Rule {
        while let Rule::Symbol(name) = rule {
            let hidden = name.starts_with('_') && !self.grammar.supertypes.contains(name);
            match self.rules.get(name.as_str()) {
                Some(inner) if hidden && seen.insert(name.as_str()) => rule = inner,
                _ => break,
            }
        }
        rule
    }

    fn walk(&self, rule: &'g Rule, seen: &mut HashSet<&'g str>, found: &mut Vec<Group>) {
        let rule = self.inlined(rule, seen);
        match rule {
            Rule::Choice(members) => {
                if let Some(group) = self.optional_seq(members) {
                    found.push(group);
                }
                members.iter().for_each(|m| self.walk(m, seen, found));
            }
            Rule::Seq(members) => members.iter().for_each(|m| self.walk(m, seen, found)),
            Rule::Repeat(c) | Rule::Repeat1(c) => self.walk(c, seen, found),
            _ => {}
        }
    }

    /// The group of `choice(seq(TOKEN, …), blank)` when each member is
    /// one child or a nested optional sequence.
    fn optional_seq(&self, choice: &'g [Rule]) -> Option<Group> {
        let [seq] = optional_content(choice)? else {
            return None;
        };
        let Rule::Seq(members) = self.inlined(seq, &mut HashSet::new()) else {
            return None;
        };
        if members.len() < 2 || !matches!(members[0], Rule::String(_)) {
            return None;
        }
        let members: Option<Vec<Member>> = members.iter().map(|m| self.member(m)).collect();
        members.map(Group::new)
    }

    fn member(&self, rule: &'g Rule) -> Option<Member> {
        match self.inlined(rule, &mut HashSet::new()) {
            Rule::Choice(members) if members.contains(&Rule::Blank) => {
                let content = optional_content(members)?;
                match content {
                    [Rule::Seq(seq)] => seq.iter().map(|m| self.member(m)).collect(),
                    _ => Some(vec![Member::One(self.kinds(content)?)]),
                }
                .map(|members| Member::Optional(Group::new(members)))
            }
            other => Some(Member::One(self.kinds(std::slice::from_ref(other))?)),
        }
    }

    /// The kinds of the single node one of `rules` becomes, if each does
    /// become a single node.
    fn kinds(&self, rules: &'g [Rule]) -> Option<BTreeSet<String>> {
        let mut kinds = BTreeSet::new();
        for rule in rules {
            match self.inlined(rule, &mut HashSet::new()) {
                Rule::String(s) => {
                    kinds.insert(s.clone());
                }
                Rule::Alias { value, .. } => {
                    kinds.insert(value.clone());
                }
                Rule::Symbol(name) if self.grammar.supertypes.contains(name) => {
                    kinds.extend(self.grammar.supertype_members(name));
                }
                Rule::Symbol(name) => {
                    kinds.insert(name.clone());
                }
                Rule::Choice(members) if !members.contains(&Rule::Blank) => {
                    kinds.extend(self.kinds(members)?);
                }
                _ => return None,
            }
        }
        Some(kinds)
    }
}

/// The non-blank members of an optional choice (`None`: not optional).
fn optional_content(choice: &[Rule]) -> Option<&[Rule]> {
    let blank = choice.iter().position(|m| *m == Rule::Blank)?;
    match (blank, choice.len()) {
        (1, 2) => Some(&choice[..1]),
        (0, 2) => Some(&choice[1..]),
        _ => None,
    }
}

/// The kind of a group led by `lead`. Kinds are `&'static` in trees;
/// there are a few dozen, made once per grammar when its spec is built.
fn group_kind(lead: &str) -> &'static str {
    use std::sync::{Mutex, OnceLock};
    static KINDS: OnceLock<Mutex<HashMap<String, &'static str>>> = OnceLock::new();
    let mut kinds = KINDS
        .get_or_init(Default::default)
        .lock()
        .expect("not poisoned");
    kinds
        .entry(lead.to_string())
        .or_insert_with(|| Box::leak(format!("{PREFIX}{lead})").into_boxed_str()))
}
