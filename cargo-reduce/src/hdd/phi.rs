//! Φ: the smallest text each node kind can be replaced with (HDD's
//! "minimal replacement string"), computed once per grammar.
//!
//! A fixpoint over the grammar's rules, each rule's Φ only ever getting
//! shorter: `BLANK`, `REPEAT` → empty; `REPEAT1` → the content once;
//! `CHOICE` → the shortest member; `SEQ` → the members joined (with a space
//! where two tokens would fuse, none inside a `TOKEN` or before an
//! immediate token); `STRING` → itself; `PATTERN` → its shortest match;
//! `SYMBOL` → that rule's Φ; aliases, fields and precedences → their
//! content. External tokens have no rule: a language may give them a Φ
//! ([`super::lang`]); otherwise, like anything unknown, a node keeps its
//! own text. Extras (comments) have Φ "", as they may appear anywhere.

use std::collections::{HashMap, HashSet};

use super::grammar::{Grammar, Rule};
use super::pattern::shortest_match;
use super::render::fuses;

/// A Φ under construction: its text, and whether its first token must be
/// glued to what comes before (`token.immediate`).
#[derive(Debug, Clone, PartialEq)]
struct Frag {
    text: String,
    glue: bool,
}

impl Frag {
    fn new(text: impl Into<String>) -> Self {
        Frag {
            text: text.into(),
            glue: false,
        }
    }

    /// `self` followed by `next`, with a space if their tokens would fuse.
    fn join(mut self, next: Frag, in_token: bool) -> Frag {
        if self.text.is_empty() {
            return Frag {
                text: next.text,
                glue: self.glue || next.glue,
            };
        }
        let (Some(&a), Some(&b)) = (self.text.as_bytes().last(), next.text.as_bytes().first())
        else {
            return self;
        };
        if !in_token && !next.glue && fuses(a, b) {
            self.text.push(' ');
        }
        self.text.push_str(&next.text);
        self
    }
}

/// Φ of every rule and every named alias of a grammar, by name.
pub struct RulePhis {
    /// Φ of each rule that derives some text.
    pub rules: HashMap<String, String>,
    /// Φ of each named alias kind (the shortest over its occurrences).
    pub aliases: HashMap<String, String>,
    /// Named extras (comments): Φ "".
    pub extras: HashSet<String>,
    /// The fixpoint's evaluator, for Φ of any part of a rule.
    eval: Eval,
}

impl RulePhis {
    /// Φ of the named node kind `kind`, if the grammar gives one.
    pub fn named(&self, kind: &str) -> Option<&str> {
        if self.extras.contains(kind) {
            return Some("");
        }
        self.rules
            .get(kind)
            .or_else(|| self.aliases.get(kind))
            .map(String::as_str)
    }

    /// Φ of `rule`, a part of some rule of the grammar.
    pub fn of(&self, rule: &Rule) -> Option<String> {
        self.eval.eval(rule, false).map(|f| f.text)
    }
}

/// Computes Φ for `grammar`; `externals` seeds Φ of external tokens
/// (which have no rule).
pub fn rule_phis(grammar: &Grammar, externals: &[(&str, &str)]) -> RulePhis {
    let mut eval = Eval::new(grammar);
    for &(name, phi) in externals {
        eval.phi.insert(name.to_string(), Frag::new(phi));
    }
    eval.fixpoint(grammar);
    let aliases = eval.aliases(grammar);
    RulePhis {
        rules: eval
            .phi
            .iter()
            .map(|(k, f)| (k.clone(), f.text.clone()))
            .collect(),
        aliases,
        extras: grammar.extra_symbols().map(str::to_string).collect(),
        eval,
    }
}

struct Eval {
    patterns: HashMap<(String, String), Option<String>>,
    phi: HashMap<String, Frag>,
}

impl Eval {
    fn new(grammar: &Grammar) -> Self {
        let mut patterns = HashMap::new();
        grammar.visit(&mut |r| {
            if let Rule::Pattern(p, flags) = r {
                patterns
                    .entry((p.clone(), flags.clone()))
                    .or_insert_with(|| shortest_match(p, flags));
            }
        });
        Eval {
            patterns,
            phi: HashMap::new(),
        }
    }

    /// Re-evaluates every rule until no Φ gets shorter. Values only
    /// shrink, so this terminates.
    fn fixpoint(&mut self, grammar: &Grammar) {
        loop {
            let mut changed = false;
            for (name, rule) in &grammar.rules {
                let Some(new) = self.eval(rule, false) else {
                    continue;
                };
                let shorter = self
                    .phi
                    .get(name)
                    .is_none_or(|old| new.text.len() < old.text.len());
                if shorter {
                    self.phi.insert(name.clone(), new);
                    changed = true;
                }
            }
            if !changed {
                return;
            }
        }
    }

    /// Φ of each named alias: the shortest Φ of the aliased contents.
    fn aliases(&self, grammar: &Grammar) -> HashMap<String, String> {
        let mut out: HashMap<String, String> = HashMap::new();
        grammar.visit(&mut |r| {
            let Rule::Alias {
                content,
                value,
                named: true,
            } = r
            else {
                return;
            };
            let Some(frag) = self.eval(content, false) else {
                return;
            };
            let slot = out
                .entry(value.clone())
                .or_insert_with(|| frag.text.clone());
            if frag.text.len() < slot.len() {
                *slot = frag.text;
            }
        });
        out
    }

    fn eval(&self, rule: &Rule, in_token: bool) -> Option<Frag> {
        match rule {
            Rule::Blank | Rule::Repeat(_) => Some(Frag::new("")),
            Rule::String(s) => Some(Frag::new(s.as_str())),
            Rule::Pattern(p, f) => self.patterns[&(p.clone(), f.clone())]
                .as_deref()
                .map(Frag::new),
            Rule::Symbol(name) => self.phi.get(name).cloned(),
            Rule::Seq(members) => members.iter().try_fold(Frag::new(""), |acc, m| {
                Some(acc.join(self.eval(m, in_token)?, in_token))
            }),
            Rule::Choice(members) => members
                .iter()
                .filter_map(|m| self.eval(m, in_token))
                .min_by_key(|f| f.text.len()),
            Rule::Repeat1(content) => self.eval(content, in_token),
            Rule::Token { content, immediate } => {
                let mut frag = self.eval(content, true)?;
                frag.glue |= *immediate;
                Some(frag)
            }
            Rule::Alias {
                content,
                value,
                named,
            } => self
                .eval(content, in_token)
                .or_else(|| (!named).then(|| Frag::new(value.as_str()))),
        }
    }
}

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
///   the same slot Φ. `plain` is the language's expression supertype and
///   its plainest expression (`0`): a slot that takes any expression
///   reads as that rather than as a name (`a`), which would not resolve.
pub fn child_phis(grammar: &Grammar, phis: &RulePhis, plain: (&str, &str)) -> Children {
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
    out
}

/// What [`child_phis`] finds out about the children of each parent kind.
#[derive(Debug, Default)]
pub struct Children {
    /// Φ of a child kind in a parent kind: `(parent, (child, named))`.
    pub phis: HashMap<(String, (String, bool)), String>,
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
                    self.visit(m, optional && alone, Some(m));
                }
            }
            Rule::Blank | Rule::Pattern(..) | Rule::Token { .. } => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grammar(json: &str) -> Grammar {
        Grammar::from_json(json).unwrap()
    }

    #[test]
    fn fixpoint_picks_shortest_alternatives_and_spaces_fused_tokens() {
        let g = grammar(
            r#"{"name":"t","rules":{
              "file":{"type":"REPEAT","content":{"type":"SYMBOL","name":"item"}},
              "item":{"type":"CHOICE","members":[
                 {"type":"SYMBOL","name":"func"},
                 {"type":"SEQ","members":[{"type":"STRING","value":"let"},{"type":"SYMBOL","name":"ident"},{"type":"STRING","value":";"}]}]},
              "func":{"type":"SEQ","members":[{"type":"STRING","value":"fn"},{"type":"SYMBOL","name":"ident"},{"type":"STRING","value":"()"},{"type":"SYMBOL","name":"item"}]},
              "ident":{"type":"PATTERN","value":"[a-z]+"},
              "num":{"type":"TOKEN","content":{"type":"SEQ","members":[{"type":"STRING","value":"0x"},{"type":"PATTERN","value":"[0-9]+"}]}}
            },"extras":[],"externals":[]}"#,
        );
        let phis = rule_phis(&g, &[]);
        assert_eq!(phis.named("file"), Some(""));
        assert_eq!(phis.named("item"), Some("let a;"));
        assert_eq!(phis.named("func"), Some("fn a()let a;"));
        assert_eq!(phis.named("num"), Some("0x0"));
    }
}
