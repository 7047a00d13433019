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

use std::collections::HashMap;
use std::str::FromStr;

use proc_macro2::{Delimiter, Group, Ident, Punct, Spacing, TokenStream, TokenTree};
use syn::buffer::Cursor;
use syn::ext::IdentExt;
use syn::parse::discouraged::Speculative;
use syn::parse::{ParseStream, Parser};

use super::tokens::fuses;

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
        let mut text = String::new();
        write_compact(&transcribe(rule.body.clone(), &bindings)?, &mut text);
        Some(text)
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
    let mut tokens = stream.into_iter().peekable();
    let mut out = Vec::new();
    while let Some(token) = tokens.next() {
        let matcher = match token {
            TokenTree::Group(g) => Matcher::Group(g.delimiter(), matchers(g.stream())?),
            TokenTree::Punct(p) if p.as_char() == '$' => match tokens.next()? {
                TokenTree::Ident(name) => {
                    if !is_punct(tokens.next().as_ref(), ':') {
                        return None;
                    }
                    let Some(TokenTree::Ident(kind)) = tokens.next() else {
                        return None;
                    };
                    Matcher::Fragment(name.to_string(), fragment(&kind.to_string())?)
                }
                TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => {
                    let (separator, op) = repetition_end(&mut tokens)?;
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

/// After `$( … )`: the separator, if any, and the operator.
fn repetition_end(
    tokens: &mut std::iter::Peekable<impl Iterator<Item = TokenTree>>,
) -> Option<(Option<TokenTree>, char)> {
    let op = |t: &TokenTree| match t {
        TokenTree::Punct(p) if matches!(p.as_char(), '*' | '+' | '?') => Some(p.as_char()),
        _ => None,
    };
    let first = tokens.next()?;
    match op(&first) {
        Some(op) => Some((None, op)),
        None => Some((Some(first), op(&tokens.next()?)?)),
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

/// Matches all of `input` against `pattern`.
fn match_all(pattern: &[Matcher], input: ParseStream) -> syn::Result<Bindings> {
    let mut bindings = Bindings::new();
    match_seq(pattern, input, &mut bindings)?;
    Ok(bindings)
}

/// Matches the start of `input` against `pattern`, binding its names.
fn match_seq(pattern: &[Matcher], input: ParseStream, bindings: &mut Bindings) -> syn::Result<()> {
    for matcher in pattern {
        match matcher {
            Matcher::Token(expected) => {
                let got: TokenTree = input.parse()?;
                if !same_token(&got, expected) {
                    return Err(input.error("another token"));
                }
            }
            Matcher::Group(delimiter, inner) => {
                let got: TokenTree = input.parse()?;
                let TokenTree::Group(group) = got else {
                    return Err(input.error("a group"));
                };
                if group.delimiter() != *delimiter {
                    return Err(input.error("another delimiter"));
                }
                let inner_bindings =
                    (|i: ParseStream| match_all(inner, i)).parse2(group.stream())?;
                bindings.extend(inner_bindings);
            }
            Matcher::Fragment(name, kind) => {
                let begin = input.cursor();
                parse_fragment(*kind, input)?;
                let tokens = between(begin, input.cursor());
                bindings.insert(name.clone(), Binding::One(tokens, *kind));
            }
            Matcher::Repeat(repeat) => match_repeat(repeat, input, bindings)?,
        }
    }
    Ok(())
}

/// Matches as many repetitions as `input` holds, greedily.
fn match_repeat(repeat: &Repeat, input: ParseStream, bindings: &mut Bindings) -> syn::Result<()> {
    let mut matched: Vec<Bindings> = Vec::new();
    let full = |matched: &[Bindings]| repeat.op == '?' && matched.len() == 1;
    while !input.is_empty() && !full(&matched) {
        let fork = input.fork();
        if let (Some(separator), false) = (&repeat.separator, matched.is_empty()) {
            match fork.parse::<TokenTree>() {
                Ok(t) if same_token(&t, separator) => {}
                _ => break,
            }
        }
        let mut one = Bindings::new();
        if match_seq(&repeat.inner, &fork, &mut one).is_err() || fork.cursor() == input.cursor() {
            break;
        }
        input.advance_to(&fork);
        matched.push(one);
    }
    if repeat.op == '+' && matched.is_empty() {
        return Err(input.error("one repetition at least"));
    }
    for name in names(&repeat.inner) {
        let each = matched
            .iter()
            .filter_map(|b| b.get(&name).cloned())
            .collect();
        bindings.insert(name, Binding::Many(each));
    }
    Ok(())
}

/// The names a pattern binds.
fn names(pattern: &[Matcher]) -> Vec<String> {
    pattern
        .iter()
        .flat_map(|m| match m {
            Matcher::Token(_) => Vec::new(),
            Matcher::Group(_, inner) => names(inner),
            Matcher::Fragment(name, _) => vec![name.clone()],
            Matcher::Repeat(r) => names(&r.inner),
        })
        .collect()
}

/// Two tokens are the same when they are spelled the same (a group is
/// never a literal token of a pattern: it is a [`Matcher::Group`]).
fn same_token(a: &TokenTree, b: &TokenTree) -> bool {
    match (a, b) {
        (TokenTree::Punct(a), TokenTree::Punct(b)) => a.as_char() == b.as_char(),
        (TokenTree::Ident(a), TokenTree::Ident(b)) => a == b,
        (TokenTree::Literal(a), TokenTree::Literal(b)) => a.to_string() == b.to_string(),
        _ => false,
    }
}

/// Parses one fragment of `kind` off `input`.
fn parse_fragment(kind: Fragment, input: ParseStream) -> syn::Result<()> {
    match kind {
        Fragment::Ident => input.call(Ident::parse_any).map(drop),
        Fragment::Lifetime => input.parse::<syn::Lifetime>().map(drop),
        Fragment::Literal => {
            if input.peek(syn::Token![-]) {
                input.parse::<syn::Token![-]>()?;
            }
            input.parse::<syn::Lit>().map(drop)
        }
        Fragment::Tt => input.parse::<TokenTree>().map(drop),
        Fragment::Ty => input.parse::<syn::Type>().map(drop),
        Fragment::Path => input.parse::<syn::Path>().map(drop),
        Fragment::Expr => input.parse::<syn::Expr>().map(drop),
        Fragment::Pat => syn::Pat::parse_multi_with_leading_vert(input).map(drop),
        Fragment::Stmt => input.parse::<syn::Stmt>().map(drop),
        Fragment::Block => input.parse::<syn::Block>().map(drop),
        Fragment::Item => input.parse::<syn::Item>().map(drop),
        Fragment::Vis => input.parse::<syn::Visibility>().map(drop),
        Fragment::Meta => input.parse::<syn::Meta>().map(drop),
    }
}

/// The tokens from `begin` up to `end`. The last one is no longer joined
/// to what follows it in the call (`Vec<u8>;`): written before `=` it
/// would make `>=`.
fn between(begin: Cursor<'_>, end: Cursor<'_>) -> Vec<TokenTree> {
    let mut tokens = Vec::new();
    let mut at = begin;
    while at != end {
        let Some((token, next)) = at.token_tree() else {
            break;
        };
        tokens.push(token);
        at = next;
    }
    unjoin_last(&mut tokens);
    tokens
}

/// Makes a punctuation mark at the end of `tokens` stand alone.
fn unjoin_last(tokens: &mut [TokenTree]) {
    if let Some(TokenTree::Punct(p)) = tokens.last_mut() {
        let mut alone = Punct::new(p.as_char(), Spacing::Alone);
        alone.set_span(p.span());
        *p = alone;
    }
}

/// `body` with its `$name`s, `$crate` and `$( … )` repetitions written
/// out; `None` when it names a binding it does not have, or repeats
/// with none.
fn transcribe(body: TokenStream, bindings: &Bindings) -> Option<Vec<TokenTree>> {
    let mut out = Vec::new();
    let mut tokens = body.into_iter().peekable();
    while let Some(token) = tokens.next() {
        match token {
            TokenTree::Punct(p) if p.as_char() == '$' => {
                // `&$x` with `&y` is `& &y`, never `&&y`.
                unjoin_last(&mut out);
                match tokens.next()? {
                    TokenTree::Ident(name) if name == "crate" => {
                        out.push(TokenTree::Ident(Ident::new("crate", name.span())));
                    }
                    TokenTree::Ident(name) => match bindings.get(&name.to_string())? {
                        Binding::One(tokens, kind) => out.extend(written(tokens, *kind)),
                        Binding::Many(_) => return None,
                    },
                    TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => {
                        let (separator, _) = repetition_end(&mut tokens)?;
                        out.extend(repeated(g.stream(), separator, bindings)?);
                    }
                    _ => return None,
                }
            }
            TokenTree::Group(g) => {
                let inner = transcribe(g.stream(), bindings)?.into_iter().collect();
                out.push(TokenTree::Group(Group::new(g.delimiter(), inner)));
            }
            token => out.push(token),
        }
    }
    Some(out)
}

/// A body's `$( inner ) separator op`, once per repetition of the names
/// it uses.
fn repeated(
    inner: TokenStream,
    separator: Option<TokenTree>,
    bindings: &Bindings,
) -> Option<Vec<TokenTree>> {
    let used = used_names(&inner);
    let lengths: Vec<usize> = used
        .iter()
        .filter_map(|n| match bindings.get(n) {
            Some(Binding::Many(each)) => Some(each.len()),
            _ => None,
        })
        .collect();
    let &n = lengths.first()?;
    if lengths.iter().any(|&l| l != n) {
        return None;
    }
    let mut out = Vec::new();
    for i in 0..n {
        if let (Some(separator), true) = (&separator, i > 0) {
            unjoin_last(&mut out);
            out.push(separator.clone());
        }
        let mut each = bindings.clone();
        for name in &used {
            if let Some(Binding::Many(all)) = bindings.get(name) {
                each.insert(name.clone(), all[i].clone());
            }
        }
        unjoin_last(&mut out);
        out.extend(transcribe(inner.clone(), &each)?);
    }
    Some(out)
}

/// The `$name`s a body's tokens use, at any depth.
fn used_names(stream: &TokenStream) -> Vec<String> {
    let mut out = Vec::new();
    let mut dollar = false;
    for token in stream.clone() {
        match &token {
            TokenTree::Ident(name) if dollar => out.push(name.to_string()),
            TokenTree::Group(g) => out.extend(used_names(&g.stream())),
            _ => {}
        }
        dollar = matches!(&token, TokenTree::Punct(p) if p.as_char() == '$');
    }
    out
}

/// Writes `tokens` with a space only where two would read as one
/// (proc-macro2 puts one between every two): an expansion replaces its
/// call only when the text gets shorter.
fn write_compact(tokens: &[TokenTree], out: &mut String) {
    let mut joint = false;
    for token in tokens {
        let (open, close, text) = match token {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::None => ("", ""),
                };
                let mut inner = String::new();
                write_compact(&g.stream().into_iter().collect::<Vec<_>>(), &mut inner);
                (open, close, inner)
            }
            other => ("", "", other.to_string()),
        };
        let first = open.bytes().chain(text.bytes()).chain(close.bytes()).next();
        let fused = matches!((out.bytes().last(), first), (Some(a), Some(b)) if fuses(a, b));
        if fused && !joint {
            out.push(' ');
        }
        out.push_str(open);
        out.push_str(&text);
        out.push_str(close);
        joint = matches!(token, TokenTree::Punct(p) if p.spacing() == Spacing::Joint);
    }
}

/// A bound fragment as the body holds it: an expression of more than
/// one token in parentheses, as rustc keeps it one operand (`$e * 2`
/// with `a + b` is `(a + b) * 2`).
fn written(tokens: &[TokenTree], kind: Fragment) -> Vec<TokenTree> {
    if kind == Fragment::Expr && tokens.len() > 1 {
        let group = Group::new(Delimiter::Parenthesis, tokens.iter().cloned().collect());
        return vec![TokenTree::Group(group)];
    }
    tokens.to_vec()
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
    fn what_is_not_a_definition_or_not_written_is_none() {
        assert!(MacroRules::parse("fn f() {}").is_none());
        assert!(MacroRules::parse("macro_rules! m { ($x:nonsense) => {} }").is_none());
        let unknown = "macro_rules! m { () => { $y } }";
        assert_eq!(expand(unknown, "()"), None);
    }
}
