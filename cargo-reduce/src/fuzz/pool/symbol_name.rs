//! A function's name as a signature spells it, whichever mangling scheme
//! its binary used. Stable rustc mangles symbols with the legacy scheme,
//! nightly with v0 (`_R…`), and the two demangle differently
//! (`main::{{closure}}` against `main::{closure#0}`): a failure must keep
//! its signature when the user builds with the other toolchain, so a v0
//! name is brought to its legacy spelling where the two agree on what the
//! name says. v0 does not record the module an inherent impl is written in
//! when it is not its type's (legacy `a::b::<impl a::T>::f`, v0
//! `<a::T>::f`): a legacy name leaves that module out too, as `a::T::f`
//! (`<u64>::f` for a type that is not a plain path). Nor do the two agree
//! on a generic type's arguments (legacy prints its parameters, `a::Ty<T>`,
//! v0 the instance's types, `a::Ty<u8>`): both are left out (`a::Ty::f`,
//! `<alloc::vec::Vec as core::ops::drop::Drop>::drop`), one function of
//! the source, one name.

/// The name of a function whose symbol is `raw` and demangles to
/// `demangled`, as a signature spells it: without the legacy scheme's
/// hash and an inherent impl's module, a v0 name in the legacy spelling.
pub(super) fn spelled(raw: &str, demangled: &str) -> String {
    if raw.starts_with("_R") {
        legacy_spelling(demangled)
    } else {
        without_impl_module(&without_generic_args(without_hash(demangled)))
    }
}

/// `a::Ty<T>::f` → `a::Ty::f`, `<a::Ty<u8> as a::Tr<u8>>::f` → `<a::Ty as
/// a::Tr>::f`: the arguments of every generic path (a `<` right after a
/// name; a turbofish's `::<` and an impl's `<impl …>` are not that).
fn without_generic_args(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(at) = rest.find('<') {
        let named = rest[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        out.push_str(&rest[..at]);
        match matching_close(&rest[at..]).filter(|_| named) {
            Some(end) => rest = &rest[at + end + 1..],
            None => {
                out.push('<');
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `a::b::<impl a::T>::f` → `a::T::f`, and `core::num::<impl u64>::f` →
/// `<u64>::f` (as v0's `<u64>::f`, after [`unbracketed_inherent`]): the
/// module an inherent impl is written in, which v0 names do not carry.
/// Other names are returned as they are.
fn without_impl_module(name: &str) -> String {
    let Some(at) = name.find("::<impl ") else {
        return name.to_string();
    };
    let module = &name[..at];
    let impl_at = &name[at + 2..];
    let in_brackets = module.contains(['<', '>', ' ']);
    let Some(end) = matching_close(impl_at).filter(|_| !in_brackets) else {
        return name.to_string();
    };
    let bracketed = format!("<{}>{}", &impl_at["<impl ".len()..end], &impl_at[end + 1..]);
    unbracketed_inherent(&bracketed).unwrap_or(bracketed)
}

/// `a::b` for the legacy-mangled `a::b::h0123456789abcdef`: the hash
/// changes with every build.
fn without_hash(name: &str) -> &str {
    match name.rsplit_once("::h") {
        Some((path, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            path
        }
        _ => name,
    }
}

/// A v0-demangled name as legacy demangling spells the same function:
/// `{closure#0}` as `{{closure}}` (and the other namespaces alike), no
/// generic arguments of an instance (`f::<u8>`: legacy names every
/// instance alike) nor of a type ([`without_generic_args`]), and an
/// inherent method of a plain type outside its brackets (`<a::T>::f` as
/// `a::T::f`).
fn legacy_spelling(name: &str) -> String {
    let name = without_generic_args(&without_turbofish(&disambiguated_as_legacy(name)));
    unbracketed_inherent(&name).unwrap_or(name)
}

/// `{closure#0}` → `{{closure}}`, `{constant#1}` → `{{constant}}`,
/// `{shim:vtable#0}` → `{{vtable.shim}}`.
fn disambiguated_as_legacy(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let inside = &after[..close];
        match inside.rsplit_once('#') {
            Some((what, number)) if number.bytes().all(|b| b.is_ascii_digit()) => {
                match what.strip_prefix("shim:") {
                    Some(shim) => out.push_str(&format!("{{{{{shim}.shim}}}}")),
                    None => out.push_str(&format!("{{{{{what}}}}}")),
                }
            }
            _ => out.push_str(&rest[open..=open + 1 + close]),
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

/// `a::f::<u8, b::T>::g` → `a::f::g` (`::<impl …>`, a legacy spelling, is
/// kept).
fn without_turbofish(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(at) = rest.find("::<") {
        out.push_str(&rest[..at]);
        let args = &rest[at + 2..];
        match matching_close(args) {
            Some(end) if !args.starts_with("<impl ") => rest = &args[end + 1..],
            _ => {
                out.push_str("::<");
                rest = &args[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `<a::T>::f` → `a::T::f` for a type without generic arguments that is
/// not a primitive (whose methods legacy names by their impl's module):
/// `None` when `name` is not of that form.
fn unbracketed_inherent(name: &str) -> Option<String> {
    let end = matching_close(name)?;
    let inside = &name[1..end];
    let rest = name[end + 1..].strip_prefix("::")?;
    let plain = inside.contains("::") && !inside.contains([' ', '<', '>', '[', '(', '&', '*']);
    plain.then(|| format!("{inside}::{rest}"))
}

/// The index of the `>` that closes the `<` at the start of `text`.
fn matching_close(text: &str) -> Option<usize> {
    if !text.starts_with('<') {
        return None;
    }
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '<' => depth += 1,
            '>' if !text[..i].ends_with('-') => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const V0: &str = "_RNvCs1234_4demo4main";
    const LEGACY: &str = "_ZN4demo4main17h0123456789abcdefE";

    #[test]
    fn hashes_are_dropped() {
        assert_eq!(
            spelled(LEGACY, "demo::parse::h0123456789abcdef"),
            "demo::parse"
        );
        assert_eq!(without_hash("demo::hex"), "demo::hex");
        assert_eq!(without_hash("demo::hash::hot"), "demo::hash::hot");
    }

    /// Names as stable (legacy) and nightly (v0) rustc 1.95 / 1.97 gave
    /// them for the same functions of one program (a closure, a generic
    /// function's instance, an inherent and a trait method).
    #[test]
    fn v0_names_are_spelled_as_legacy_ones() {
        for (v0, legacy) in [
            ("prog::main::{closure#0}", "prog::main::{{closure}}"),
            (
                "prog::main::{closure#0}::{closure#1}",
                "prog::main::{{closure}}::{{closure}}",
            ),
            ("prog::m::generic::<u8>", "prog::m::generic"),
            (
                "prog::m::generic::<alloc::vec::Vec<u8>>::{closure#0}",
                "prog::m::generic::{{closure}}",
            ),
            ("<prog::m::Plain>::go", "prog::m::Plain::go"),
            (
                "<prog::m::Plain as prog::m::Tr>::tr",
                "<prog::m::Plain as prog::m::Tr>::tr",
            ),
            ("<u64>::wrapping_mul", "<u64>::wrapping_mul"),
            ("<dyn Fn() -> u8>::call", "<dyn Fn() -> u8>::call"),
            (
                "<prog::T as core::ops::Fn<()>>::call::{shim:vtable#0}",
                "<prog::T as core::ops::Fn>::call::{{vtable.shim}}",
            ),
            ("prog::K::{constant#0}", "prog::K::{{constant}}"),
        ] {
            assert_eq!(spelled(V0, v0), legacy, "{v0}");
        }
    }

    /// A legacy name, and any name without v0's forms, is left as it is.
    #[test]
    fn legacy_names_keep_their_spelling() {
        for name in [
            "prog::main::{{closure}}",
            "prog::m::Ty::method",
            "<alloc::vec::Vec as core::ops::drop::Drop>::drop",
            "<dyn Fn() -> u8>::call",
        ] {
            assert_eq!(spelled(LEGACY, name), name);
            assert_eq!(legacy_spelling(name), name, "{name}");
        }
    }

    /// A generic type's method is one name under either scheme, though
    /// legacy prints the type's parameters and v0 its instance's
    /// arguments: names stable and nightly rustc gave one function of
    /// gimli 0.32 (`CommonInformationEntry<R>::from_prefix`).
    #[test]
    fn a_generic_types_arguments_are_left_out_under_either_scheme() {
        spelled_alike(&[
            (
                "gimli::read::cfi::CommonInformationEntry<R>::from_prefix",
                "<gimli::read::cfi::CommonInformationEntry<gimli::read::endian_slice::EndianSlice<gimli::endianity::LittleEndian>>>::from_prefix",
                "gimli::read::cfi::CommonInformationEntry::from_prefix",
            ),
            (
                "<alloc::vec::Vec<T,A> as core::ops::drop::Drop>::drop",
                "<alloc::vec::Vec<u8> as core::ops::drop::Drop>::drop",
                "<alloc::vec::Vec as core::ops::drop::Drop>::drop",
            ),
            (
                "prog::other::<impl prog::m::Ty<T>>::go",
                "<prog::m::Ty<u8>>::go",
                "prog::m::Ty::go",
            ),
        ]);
    }

    /// Each `(legacy, v0, spelling)`: the legacy and the v0 name of one
    /// function are both spelled `spelling`.
    fn spelled_alike(cases: &[(&str, &str, &str)]) {
        for &(legacy, v0, spelling) in cases {
            assert_eq!(spelled(LEGACY, legacy), spelling, "{legacy}");
            assert_eq!(spelled(V0, v0), spelling, "{v0}");
        }
    }

    /// An inherent method whose impl is written outside its type's module
    /// is spelled as v0 spells it (the module is not in a v0 name): names
    /// stable and nightly rustc gave one function of uuid 1.x
    /// (`uuid::parser::<impl uuid::Uuid>::parse_str`, `<uuid::Uuid>::parse_str`).
    #[test]
    fn an_inherent_impls_module_is_left_out_under_either_scheme() {
        spelled_alike(&[
            (
                "uuid::parser::<impl uuid::Uuid>::parse_str",
                "<uuid::Uuid>::parse_str",
                "uuid::Uuid::parse_str",
            ),
            (
                "prog::other::<impl prog::m::Plain>::go::{{closure}}",
                "<prog::m::Plain>::go::{closure#0}",
                "prog::m::Plain::go::{{closure}}",
            ),
            (
                "core::num::<impl u64>::wrapping_mul",
                "<u64>::wrapping_mul",
                "<u64>::wrapping_mul",
            ),
        ]);
        assert_eq!(
            spelled(LEGACY, "<a::b::<impl a::T>::f as a::Tr>::g"),
            "<a::b::<impl a::T>::f as a::Tr>::g",
            "inside brackets, as it is"
        );
    }
}
