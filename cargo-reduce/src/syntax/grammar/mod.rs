//! Grammar analysis, no trees: what a tree-sitter grammar says about the
//! text of its node kinds, worked out once per language from its
//! `grammar.json` (copies in `grammars/`).
//!
//! This file reads the rules. Only what Φ needs is kept: the rule tree of
//! every named rule, the extras and the external tokens. Precedence,
//! fields and reserved-word sets change how text parses, not which text a
//! rule derives, so they are read as their content. From the rules come Φ
//! of every kind ([`phi`], with [`pattern`] for token patterns), Φ of a
//! child by the slot it fills and the list separators ([`slots`]), and the
//! optional sequences trees show as nodes ([`groups`]).

mod groups;
mod pattern;
mod phi;
mod slots;

pub(super) use groups::{is_group, optional_groups, Group, Member};
pub(super) use phi::rule_phis;
pub(super) use slots::child_phis;

use serde_json::Value;

/// One rule of the grammar DSL.
#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// Matches nothing.
    Blank,
    /// A literal token.
    String(String),
    /// A regular-expression token (JavaScript regex syntax) and its flags.
    Pattern(String, String),
    /// Another rule, by name.
    Symbol(String),
    /// All members, in order.
    Seq(Vec<Rule>),
    /// One of the members.
    Choice(Vec<Rule>),
    /// Zero or more of the content.
    Repeat(Box<Rule>),
    /// One or more of the content.
    Repeat1(Box<Rule>),
    /// The content lexed as one token; `immediate`: with no whitespace
    /// before it.
    Token {
        /// What the token matches.
        content: Box<Rule>,
        /// `token.immediate`: glued to the previous token.
        immediate: bool,
    },
    /// The content, shown as a node named `value`.
    Alias {
        /// What the alias matches.
        content: Box<Rule>,
        /// The node kind the content is shown as.
        value: String,
        /// Whether that kind is a named node.
        named: bool,
    },
}

/// A grammar: its named rules (in file order), extras and externals.
#[derive(Debug, Clone)]
pub struct Grammar {
    /// The grammar's name (`rust`, `javascript`).
    pub name: String,
    /// Every rule, in the order of the file (the first is the start rule).
    pub rules: Vec<(String, Rule)>,
    /// Tokens allowed anywhere (whitespace, comments).
    pub extras: Vec<Rule>,
    /// Tokens produced by the grammar's hand-written scanner.
    pub externals: Vec<Rule>,
    /// Hidden rules that stand for a class of node kinds (`_expression`).
    pub supertypes: Vec<String>,
}

/// A `grammar.json` that does not have the expected shape.
#[derive(Debug, thiserror::Error)]
pub enum GrammarError {
    /// Not JSON at all.
    #[error("grammar.json is not JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// A rule object without a known `type`, or a field missing.
    #[error("grammar.json: unexpected rule {0}")]
    Shape(String),
}

impl Grammar {
    /// Reads a `grammar.json` document.
    pub fn from_json(text: &str) -> Result<Self, GrammarError> {
        let doc: Value = serde_json::from_str(text)?;
        let name = doc["name"].as_str().unwrap_or_default().to_string();
        let rules = doc["rules"]
            .as_object()
            .ok_or_else(|| GrammarError::Shape("no `rules` object".into()))?
            .iter()
            .map(|(k, v)| Ok((k.clone(), rule(v)?)))
            .collect::<Result<_, GrammarError>>()?;
        Ok(Grammar {
            name,
            rules,
            extras: rule_list(&doc["extras"])?,
            externals: rule_list(&doc["externals"])?,
            supertypes: doc["supertypes"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(String::from))
                .collect(),
        })
    }

    /// The names of the extras that are rules (comments), not patterns.
    pub fn extra_symbols(&self) -> impl Iterator<Item = &str> {
        self.extras.iter().filter_map(|r| match r {
            Rule::Symbol(name) => Some(name.as_str()),
            _ => None,
        })
    }

    /// The rule named `name`.
    pub fn rule(&self, name: &str) -> Option<&Rule> {
        self.rules.iter().find(|(n, _)| n == name).map(|(_, r)| r)
    }

    /// The visible node kinds a supertype stands for: its choices, with
    /// hidden rules (a choice, or an alias such as `_type_identifier`) and
    /// nested supertypes expanded.
    pub fn supertype_members(&self, supertype: &str) -> Vec<String> {
        let mut members = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![supertype.to_string()];
        while let Some(name) = stack.pop() {
            if !seen.insert(name.clone()) {
                continue;
            }
            let choices = match self.rule(&name) {
                Some(Rule::Choice(choices)) => choices.as_slice(),
                Some(rule @ Rule::Alias { .. }) => std::slice::from_ref(rule),
                _ => continue,
            };
            for choice in choices {
                match choice {
                    Rule::Symbol(s) if s.starts_with('_') || self.supertypes.contains(s) => {
                        stack.push(s.clone())
                    }
                    Rule::Symbol(s) => members.push(s.clone()),
                    Rule::Alias {
                        value, named: true, ..
                    } => members.push(value.clone()),
                    _ => {}
                }
            }
        }
        members
    }

    /// Calls `f` on every rule and sub-rule of the grammar.
    pub fn visit(&self, f: &mut dyn FnMut(&Rule)) {
        for (_, r) in &self.rules {
            r.visit(f);
        }
    }
}

impl Rule {
    /// Calls `f` on this rule and every sub-rule, parents first.
    pub fn visit(&self, f: &mut dyn FnMut(&Rule)) {
        f(self);
        match self {
            Rule::Seq(members) | Rule::Choice(members) => {
                members.iter().for_each(|m| m.visit(f));
            }
            Rule::Repeat(c) | Rule::Repeat1(c) => c.visit(f),
            Rule::Token { content, .. } | Rule::Alias { content, .. } => content.visit(f),
            Rule::Blank | Rule::String(_) | Rule::Pattern(..) | Rule::Symbol(_) => {}
        }
    }
}

fn rule_list(v: &Value) -> Result<Vec<Rule>, GrammarError> {
    v.as_array()
        .map(|a| a.iter().map(rule).collect())
        .unwrap_or_else(|| Ok(Vec::new()))
}

fn text(v: &Value, field: &str) -> Result<String, GrammarError> {
    v[field]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| GrammarError::Shape(format!("`{field}` missing in {v}")))
}

fn content(v: &Value) -> Result<Box<Rule>, GrammarError> {
    Ok(Box::new(rule(&v["content"])?))
}

fn rule(v: &Value) -> Result<Rule, GrammarError> {
    let kind = text(v, "type")?;
    Ok(match kind.as_str() {
        "BLANK" => Rule::Blank,
        "STRING" => Rule::String(text(v, "value")?),
        "PATTERN" => Rule::Pattern(
            text(v, "value")?,
            v["flags"].as_str().unwrap_or_default().to_string(),
        ),
        "SYMBOL" => Rule::Symbol(text(v, "name")?),
        "SEQ" => Rule::Seq(rule_list(&v["members"])?),
        "CHOICE" => Rule::Choice(rule_list(&v["members"])?),
        "REPEAT" => Rule::Repeat(content(v)?),
        "REPEAT1" => Rule::Repeat1(content(v)?),
        "TOKEN" | "IMMEDIATE_TOKEN" => Rule::Token {
            content: content(v)?,
            immediate: kind == "IMMEDIATE_TOKEN",
        },
        "ALIAS" => Rule::Alias {
            content: content(v)?,
            value: text(v, "value")?,
            named: v["named"].as_bool().unwrap_or(false),
        },
        "PREC" | "PREC_LEFT" | "PREC_RIGHT" | "PREC_DYNAMIC" | "FIELD" | "RESERVED" => {
            rule(&v["content"])?
        }
        _ => return Err(GrammarError::Shape(kind)),
    })
}
