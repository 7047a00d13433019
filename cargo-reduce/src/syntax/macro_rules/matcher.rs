//! Matching a call's tokens against a rule's pattern: literal tokens,
//! groups, `$x:kind` fragments parsed by syn, `$( … ) sep op` greedily.

use proc_macro2::{Ident, Punct, Spacing, TokenTree};
use syn::buffer::Cursor;
use syn::ext::IdentExt;
use syn::parse::discouraged::Speculative;
use syn::parse::{ParseStream, Parser};

use super::{Binding, Bindings, Fragment, Matcher, Repeat};

/// Matches all of `input` against `pattern`.
pub(super) fn match_all(pattern: &[Matcher], input: ParseStream) -> syn::Result<Bindings> {
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
pub(super) fn unjoin_last(tokens: &mut [TokenTree]) {
    if let Some(TokenTree::Punct(p)) = tokens.last_mut() {
        let mut alone = Punct::new(p.as_char(), Spacing::Alone);
        alone.set_span(p.span());
        *p = alone;
    }
}
