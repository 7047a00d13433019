//! One step of `macro_rules!` expansion: a call of a crate's own macro
//! becomes the tokens its first matching rule writes.
//!
//! Crates write their impls for many types through a macro
//! (`impl_ops!(f32 f64);`); when the failure is in such an impl, HDD
//! shrinks the macro and its calls but keeps both, since no deletion
//! turns a call into what it expands to. This is the expansion a human
//! does by hand: match the call's tokens against each rule's pattern in
//! order (`$x:frag` bindings, `$( … ) sep op` repetitions, literal
//! tokens, groups), then transcribe the rule's body with the bindings.
//!
//! proc-macro2 lexes the texts and syn parses the fragments, as a
//! procedural macro would. Matching is greedy and never backtracks, much
//! as rustc's matcher, which rejects the ambiguous patterns that would
//! need it. Hygiene is not modelled (a `let` of the body can capture a
//! name of the call): the oracle judges every expansion, so one that
//! reads differently from rustc's costs a test, never a wrong result.
//! For the same reason a macro as reduction leaves it is read leniently
//! (rustc reports it, and often still expands it): `$x` without its
//! `:kind` is one token tree, a `$( … )` without its operator is a `*`.
//!
//! - [`matcher`]: a call's tokens against a rule's pattern;
//! - [`transcribe`]: the rule's body with the bindings;
//! - [`write`]: the tokens as text, short, with the body's line breaks.

mod matcher;
mod transcribe;
mod write;

use std::collections::HashMap;
use std::str::FromStr;

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};

use matcher::match_all;
use transcribe::transcribe;
use write::Writer;

/// A `macro_rules!` definition.
#[derive(Debug)]
pub(crate) struct MacroRules {
    /// The macro's name (`impl_ops`).
    pub(crate) name: String,
    rules: Vec<Rule>,
}

/// `(pattern) => { body }`.
#[derive(Debug)]
struct Rule {
    pattern: Vec<Matcher>,
    body: TokenStream,
}

/// A piece of a rule's pattern.
#[derive(Debug)]
enum Matcher {
    /// A token the call must have, the same one.
    Token(TokenTree),
    /// A group, with a pattern for what it holds.
    Group(Delimiter, Vec<Matcher>),
    /// `$name:kind`.
    Fragment(String, Fragment),
    /// `$( … ) sep op`.
    Repeat(Repeat),
}

/// `$( inner ) separator op`.
#[derive(Debug)]
struct Repeat {
    inner: Vec<Matcher>,
    separator: Option<TokenTree>,
    op: char,
}

/// What a `$name:kind` fragment matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fragment {
    Ident,
    Lifetime,
    Literal,
    Tt,
    Ty,
    Path,
    Expr,
    Pat,
    Stmt,
    Block,
    Item,
    Vis,
    Meta,
}

/// What a name is bound to: one fragment, or one per repetition.
#[derive(Debug, Clone)]
enum Binding {
    One(Vec<TokenTree>, Fragment),
    Many(Vec<Binding>),
}

type Bindings = HashMap<String, Binding>;

impl MacroRules {
    /// Reads `macro_rules! name { (…) => {…}; … }`; `None` when `text`
    /// is not one.
    pub(crate) fn parse(text: &str) -> Option<MacroRules> {
        let mut tokens = TokenStream::from_str(text).ok()?.into_iter();
        let is_ident =
            |t: &Option<TokenTree>, s: &str| matches!(t, Some(TokenTree::Ident(i)) if i == s);
        if !is_ident(&tokens.next(), "macro_rules") || !is_punct(tokens.next().as_ref(), '!') {
            return None;
        }
        let Some(TokenTree::Ident(name)) = tokens.next() else {
            return None;
        };
        let Some(TokenTree::Group(rules)) = tokens.next() else {
            return None;
        };
        Some(MacroRules {
            name: name.to_string(),
            rules: rules_of(rules.stream())?,
        })
    }

    /// What the call with `argument` (the call's group, delimiters
    /// included: `(f32, f64)`) expands to, by the first rule whose
    /// pattern matches it; `None` when none does or the body cannot be
    /// written.
    pub(crate) fn expand(&self, argument: &str) -> Option<String> {
        let Some(TokenTree::Group(group)) =
            TokenStream::from_str(argument).ok()?.into_iter().next()
        else {
            return None;
        };
        let rule = self.rules.iter().find_map(|rule| {
            let matched =
                (|input: ParseStream| match_all(&rule.pattern, input)).parse2(group.stream());
            matched.ok().map(|bindings| (rule, bindings))
        });
        let (rule, bindings) = rule?;
        let mut writer = Writer::default();
        writer.tokens(&transcribe(rule.body.clone(), &bindings)?);
        Some(writer.out)
    }
}

/// The rules of a definition's group.
fn rules_of(stream: TokenStream) -> Option<Vec<Rule>> {
    let mut tokens = stream.into_iter().peekable();
    let mut rules = Vec::new();
    while let Some(pattern) = tokens.next() {
        let TokenTree::Group(pattern) = pattern else {
            return None;
        };
        if !is_punct(tokens.next().as_ref(), '=') || !is_punct(tokens.next().as_ref(), '>') {
            return None;
        }
        let Some(TokenTree::Group(body)) = tokens.next() else {
            return None;
        };
        rules.push(Rule {
            pattern: matchers(pattern.stream())?,
            body: body.stream(),
        });
        if tokens.peek().is_some_and(|t| is_punct(Some(t), ';')) {
            tokens.next();
        }
    }
    Some(rules)
}

/// A pattern's pieces.
fn matchers(stream: TokenStream) -> Option<Vec<Matcher>> {
    let mut tokens = tokens_of(stream);
    let mut out = Vec::new();
    while let Some(token) = tokens.next() {
        let matcher = match token {
            TokenTree::Group(g) => Matcher::Group(g.delimiter(), matchers(g.stream())?),
            TokenTree::Punct(p) if p.as_char() == '$' => match tokens.next()? {
                TokenTree::Ident(name) => {
                    // `$x` without `:kind`, as reduction leaves it: one
                    // token tree.
                    let kind = match is_punct(tokens.peek(), ':') {
                        true => match tokens.nth(1) {
                            Some(TokenTree::Ident(kind)) => fragment(&kind.to_string())?,
                            _ => return None,
                        },
                        false => Fragment::Tt,
                    };
                    Matcher::Fragment(name.to_string(), kind)
                }
                TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => {
                    let (separator, op) = repetition_end(&mut tokens);
                    Matcher::Repeat(Repeat {
                        inner: matchers(g.stream())?,
                        separator,
                        op,
                    })
                }
                _ => return None,
            },
            token => Matcher::Token(token),
        };
        out.push(matcher);
    }
    Some(out)
}

/// A pattern's or body's tokens, with a look ahead.
type Tokens = std::iter::Peekable<std::vec::IntoIter<TokenTree>>;

fn tokens_of(stream: TokenStream) -> Tokens {
    stream
        .into_iter()
        .collect::<Vec<_>>()
        .into_iter()
        .peekable()
}

/// After `$( … )`: the separator, if any, and the operator. A repetition
/// left with neither (HDD removes tokens inside a macro as anywhere)
/// reads as `*`.
fn repetition_end(tokens: &mut Tokens) -> (Option<TokenTree>, char) {
    let op = |t: &TokenTree| match t {
        TokenTree::Punct(p) if matches!(p.as_char(), '*' | '+' | '?') => Some(p.as_char()),
        _ => None,
    };
    let mut ahead = tokens.clone();
    let first = ahead.next();
    if let Some(op) = first.as_ref().and_then(op) {
        tokens.next();
        return (None, op);
    }
    match (first, ahead.next().as_ref().and_then(op)) {
        (Some(separator), Some(op)) => {
            tokens.nth(1);
            (Some(separator), op)
        }
        _ => (None, '*'),
    }
}

/// A fragment specifier's meaning.
fn fragment(kind: &str) -> Option<Fragment> {
    Some(match kind {
        "ident" => Fragment::Ident,
        "lifetime" => Fragment::Lifetime,
        "literal" => Fragment::Literal,
        "tt" => Fragment::Tt,
        "ty" => Fragment::Ty,
        "path" => Fragment::Path,
        "expr" | "expr_2021" => Fragment::Expr,
        "pat" | "pat_param" => Fragment::Pat,
        "stmt" => Fragment::Stmt,
        "block" => Fragment::Block,
        "item" => Fragment::Item,
        "vis" => Fragment::Vis,
        "meta" => Fragment::Meta,
        _ => return None,
    })
}

fn is_punct(token: Option<&TokenTree>, c: char) -> bool {
    matches!(token, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(definition: &str, argument: &str) -> Option<String> {
        MacroRules::parse(definition)
            .expect("a definition")
            .expand(argument)
    }

    #[test]
    fn a_fragment_is_written_where_the_body_names_it() {
        let m = "macro_rules! ops { ($t:ty) => { impl Mul for $t { type Output = $t; } }; }";
        assert_eq!(
            expand(m, "(Vec<u8>)").as_deref(),
            Some("impl Mul for Vec<u8>{type Output=Vec<u8>;}")
        );
        // `>` is joined to `;` in the call, and would make `>=` here.
        let joined = "macro_rules! m { ($t:ty;) => { let x: $t= 1; } }";
        assert_eq!(
            expand(joined, "(Vec<u8>;)").as_deref(),
            Some("let x:Vec<u8> =1;")
        );
    }

    #[test]
    fn the_first_rule_that_matches_expands() {
        let m = "macro_rules! m { (a $x:ident) => { struct $x; }; ($e:expr) => { $e * 2 } }";
        assert_eq!(expand(m, "(a S)").as_deref(), Some("struct S;"));
        assert_eq!(expand(m, "(x + 1)").as_deref(), Some("(x+1)*2"));
        assert_eq!(expand(m, "{ x }").as_deref(), Some("x*2"));
        assert_eq!(expand(m, "(struct)"), None);
    }

    #[test]
    fn repetitions_are_written_once_per_match() {
        let m =
            "macro_rules! ops { ($($t:ty),* ; $f:ident) => { $(impl X for $t {})* fn $f() {} } }";
        assert_eq!(
            expand(m, "[f32, Vec<u8, A>; go]").as_deref(),
            Some("impl X for f32{}impl X for Vec<u8,A>{}fn go(){}")
        );
        let sum = "macro_rules! sum { ($($e:expr),+ $(,)?) => { 0 $(+ $e)+ } }";
        assert_eq!(expand(sum, "(1, 2,)").as_deref(), Some("0+1+2"));
        assert_eq!(expand(sum, "()"), None);
    }

    #[test]
    fn crate_paths_and_nested_groups_are_kept() {
        let m = "macro_rules! m { ({ $($k:ident => $v:literal)* }) => { $($crate::f($k, $v);)* } }";
        assert_eq!(
            expand(m, "({ a => 1 b => -2 })").as_deref(),
            Some("crate::f(a,1);crate::f(b,-2);")
        );
    }

    #[test]
    fn a_macro_as_reduction_leaves_it_still_expands() {
        // No fragment specifiers, and a repetition without its operator.
        let m = "macro_rules! c { ($a, $t) => { $(impl X for $t {}) } }";
        assert_eq!(expand(m, "(i8, u8)").as_deref(), Some("impl X for u8{}"));
        // A line break of the body stays (rustc recovers `type Output;`).
        let m = "macro_rules! c { ($t:ty) => { impl X for $t { type Output\n} } }";
        assert_eq!(
            expand(m, "(u8)").as_deref(),
            Some("impl X for u8{type Output\n}")
        );
        let m = "macro_rules! c { ($($t),*) => { $(impl X for $t {}) } }";
        assert_eq!(
            expand(m, "(i8, u8)").as_deref(),
            Some("impl X for i8{}impl X for u8{}")
        );
    }

    #[test]
    fn what_is_not_a_definition_or_not_written_is_none() {
        assert!(MacroRules::parse("fn f() {}").is_none());
        assert!(MacroRules::parse("macro_rules! m { ($x:nonsense) => {} }").is_none());
        let unknown = "macro_rules! m { () => { $y } }";
        assert_eq!(expand(unknown, "()"), None);
    }
}
