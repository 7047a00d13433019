//! Writing a rule's body with the bindings of a match.

use proc_macro2::{Delimiter, Group, Ident, TokenStream, TokenTree};

use super::matcher::unjoin_last;
use super::{repetition_end, tokens_of, Binding, Bindings, Fragment};

/// `body` with its `$name`s, `$crate` and `$( … )` repetitions written
/// out; `None` when it names a binding it does not have, or repeats
/// names a different number of times.
pub(super) fn transcribe(body: TokenStream, bindings: &Bindings) -> Option<Vec<TokenTree>> {
    let mut out = Vec::new();
    let mut tokens = tokens_of(body);
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
                        let (separator, _) = repetition_end(&mut tokens);
                        out.extend(repeated(g.stream(), separator, bindings)?);
                    }
                    _ => return None,
                }
            }
            TokenTree::Group(g) => {
                let inner = transcribe(g.stream(), bindings)?.into_iter().collect();
                let mut group = Group::new(g.delimiter(), inner);
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
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
    // Repeating names that match once (reduction removed the pattern's
    // repetition and kept the body's): written once.
    let n = lengths.first().copied().unwrap_or(1);
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
