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
//! ([`crate::syntax::lang`]); otherwise, like anything unknown, a node keeps its
//! own text. Extras (comments) have Φ "", as they may appear anywhere.

use std::collections::{HashMap, HashSet};

use super::pattern::shortest_match;
use super::{Grammar, Rule};
use crate::syntax::tokens::fuses;

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
pub(crate) struct RulePhis {
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
    pub(crate) fn named(&self, kind: &str) -> Option<&str> {
        if self.extras.contains(kind) {
            return Some("");
        }
        self.rules
            .get(kind)
            .or_else(|| self.aliases.get(kind))
            .map(String::as_str)
    }

    /// Φ of `rule`, a part of some rule of the grammar.
    pub(crate) fn of(&self, rule: &Rule) -> Option<String> {
        self.eval.eval(rule, false).map(|f| f.text)
    }
}

/// Computes Φ for `grammar`; `externals` seeds Φ of external tokens
/// (which have no rule).
pub(crate) fn rule_phis(grammar: &Grammar, externals: &[(&str, &str)]) -> RulePhis {
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
