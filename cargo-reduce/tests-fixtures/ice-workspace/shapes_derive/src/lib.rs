//! `#[derive(Transform)]`: a shape whose transform leaves it as it is.

use proc_macro::{TokenStream, TokenTree};

/// Implements `shapes::Transform` for the struct, with `()` as its output.
#[proc_macro_derive(Transform)]
pub fn derive_transform(input: TokenStream) -> TokenStream {
    let mut tokens = input.into_iter();
    let is_struct = |t: &TokenTree| matches!(t, TokenTree::Ident(i) if i.to_string() == "struct");
    tokens.find(is_struct).expect("a struct");
    let name = tokens.next().expect("the struct's name");
    format!("impl shapes::Transform for {name} {{ type Output<'a> = (); }}")
        .parse()
        .expect("an impl")
}
