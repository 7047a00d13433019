//! The names an auxiliary crate declares and the MCVE uses, renamed in
//! both files together.
//!
//! The syntax reducer renames a file's identifiers to one letter, but an
//! auxiliary's reduction tests each candidate against the MCVE as it is,
//! and the MCVE's against the built auxiliary: a name spelled in both
//! (`pub trait Request` there, `impl semver::Request for c` here) stays
//! as long as it was. Here each such name gets a fresh one-letter name in
//! both texts at once, kept when the ICE stays. Words are replaced whole,
//! in the text (a reduced MCVE is too small for that to hit anything but
//! the name), and the oracle judges every rename.

use std::collections::HashSet;

use crate::job::ice::rustc::signature::word_runs;

/// Keywords that declare the word after them (`trait Request`).
const DECLARING: &[&str] = &[
    "trait", "struct", "enum", "union", "fn", "type", "const", "static", "mod",
];

/// The names `auxiliary` declares that `mcve` spells too, longest first,
/// but `crate_name` (the MCVE's `--extern` name for the auxiliary, which
/// the command spells as well).
pub(crate) fn shared(auxiliary: &[u8], mcve: &[u8], crate_name: &str) -> Vec<String> {
    let declared: Vec<&[u8]> = word_runs(auxiliary)
        .map(|(_, w)| w)
        .collect::<Vec<_>>()
        .windows(2)
        .filter(|pair| DECLARING.contains(&String::from_utf8_lossy(pair[0]).as_ref()))
        .map(|pair| pair[1])
        .collect();
    let spelled: HashSet<&[u8]> = word_runs(mcve).map(|(_, w)| w).collect();
    let mut names: Vec<String> = declared
        .into_iter()
        .filter(|w| w.len() > 1 && !w[0].is_ascii_digit() && spelled.contains(w))
        .map(|w| String::from_utf8_lossy(w).into_owned())
        .filter(|w| w != crate_name)
        .collect();
    names.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    names.dedup();
    names
}

/// One-letter names neither text spells, `a` to `z`.
pub(crate) fn fresh(auxiliary: &[u8], mcve: &[u8]) -> Vec<String> {
    let used: HashSet<&[u8]> = word_runs(auxiliary)
        .chain(word_runs(mcve))
        .map(|(_, w)| w)
        .collect();
    (b'a'..=b'z')
        .filter(|c| !used.contains(&[*c][..]))
        .map(|c| char::from(c).to_string())
        .collect()
}

/// `text` with every whole word `from` replaced by `to`.
pub(crate) fn renamed(text: &[u8], from: &str, to: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut copied = 0;
    for (start, word) in word_runs(text) {
        if word == from.as_bytes() {
            out.extend_from_slice(&text[copied..start]);
            out.extend_from_slice(to.as_bytes());
            copied = start + word.len();
        }
    }
    out.extend_from_slice(&text[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const AUXILIARY: &[u8] =
        b"pub trait Request{type A<'a>where Self:'a;fn f(_:Self::A<'_>)->impl Sized;}";
    const MCVE: &[u8] = b"use semver::Request;struct c<'a>();impl<'a>Request for c<'a>{type A<'a>=u8;fn f(_:Self::A<'_>)->impl Sized{}}";

    #[test]
    fn the_names_the_auxiliary_declares_and_the_mcve_spells_are_shared() {
        // `A` and `f` are one letter already, `Sized` is declared by
        // neither, `semver` is the crate's name.
        assert_eq!(shared(AUXILIARY, MCVE, "semver"), ["Request"]);
        assert_eq!(
            shared(b"pub trait semver {}", b"semver::semver", "semver"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn fresh_names_are_letters_neither_text_spells() {
        let fresh = fresh(AUXILIARY, MCVE);
        assert_eq!(fresh[..2], ["b", "d"]);
        assert!(!fresh.contains(&"f".to_string()));
    }

    #[test]
    fn only_whole_words_are_renamed() {
        assert_eq!(
            renamed(
                b"use s::Request;impl Request for Requests{}",
                "Request",
                "b"
            ),
            b"use s::b;impl b for Requests{}"
        );
        assert_eq!(renamed(MCVE, "Request", "b").len(), MCVE.len() - 12);
    }
}
