//! The files that `include!`, `include_str!` and `include_bytes!` read,
//! for the one-file crate: a path literal, or one that `concat!` and
//! `env!` build, as code a build script generates is included
//! (`include!(concat!(env!("OUT_DIR"), "/gen.rs"))`: prost, bindgen,
//! phf). Such a path is evaluated with the environment rustc compiled the
//! crate in, so the MCVE needs neither that variable nor, when the file is
//! in the run's temporary target directory (gone after it), the file: its
//! text is written in instead.

use std::path::{Path, PathBuf};

use tree_sitter::Node;

use crate::job::ice::one_file::source::{preorder, Edit};

/// The macros that read a file relative to the one they stand in.
const INCLUDES: &[&str] = &["include", "include_str", "include_bytes"];

/// Where the included files are found: the crate's compile environment
/// and the run's temporary directory.
#[derive(Debug, Default, Clone)]
pub(crate) struct Sources {
    /// The variables cargo set for the crate's rustc (`OUT_DIR`…); others
    /// are looked up in this process's environment, which rustc inherits.
    pub(crate) env: Vec<(String, String)>,
    /// The run's temporary directory: a file in it is written into the
    /// MCVE, one elsewhere named by its absolute path.
    pub(crate) temporary: Option<PathBuf>,
}

impl Sources {
    /// The value `env!(name)` has in the crate's compilation.
    fn var(&self, name: &str) -> Option<String> {
        let set = self.env.iter().rev().find(|(k, _)| k == name);
        set.map(|(_, v)| v.clone())
            .or_else(|| std::env::var(name).ok())
    }

    /// Whether `path` lies in the run's temporary directory.
    fn is_temporary(&self, path: &Path) -> bool {
        self.temporary
            .as_deref()
            .is_some_and(|t| path.starts_with(t))
    }
}

/// A call of one of the [`INCLUDES`] (bare, or through `std::` or
/// `core::`) whose path is known.
pub(crate) struct Include<'t> {
    /// `include`, `include_str` or `include_bytes`.
    pub(crate) name: &'static str,
    /// The call.
    pub(crate) call: Node<'t>,
    /// The call's argument: `("x.rs")`.
    argument: Node<'t>,
    /// The path as the argument spells it, relative to the file's
    /// directory unless absolute.
    pub(crate) path: String,
    /// Whether `env!` built it.
    built: bool,
}

impl Include<'_> {
    /// The file it reads, from a file in `dir`.
    pub(crate) fn file(&self, dir: &Path) -> PathBuf {
        dir.join(&self.path)
    }

    /// The edit that makes the call stand on its own in the one file, in
    /// `dir`: a built path by its absolute path, or by the file's text when
    /// it is temporary; a relative path made absolute. `None` when nothing
    /// needs to change (or the file cannot be read: rustc says why).
    fn standalone(&self, dir: &Path, sources: &Sources) -> Option<Edit> {
        let file = self.file(dir);
        let (range, text) = if self.built && sources.is_temporary(&file) {
            let bytes = std::fs::read(&file).ok()?;
            (self.call.byte_range(), written_in(self.name, &bytes))
        } else if self.built || !Path::new(&self.path).is_absolute() {
            let literal = format!("{:?}", file.to_string_lossy());
            (self.argument.byte_range(), format!("({literal})"))
        } else {
            return None;
        };
        Some(Edit {
            start: range.start,
            end: range.end,
            text,
        })
    }
}

/// `call` as an [`Include`], when it is one and its path is a literal or
/// `concat!` of literals and `env!`s of variables `sources` knows.
pub(crate) fn include<'t>(call: Node<'t>, text: &str, sources: &Sources) -> Option<Include<'t>> {
    let spelled = &text[call.child_by_field_name("macro")?.byte_range()];
    let name = ["", "std::", "core::", "::std::", "::core::"]
        .iter()
        .filter_map(|prefix| spelled.strip_prefix(prefix))
        .find_map(|bare| INCLUDES.iter().copied().find(|&m| m == bare))?;
    let argument = (0..call.named_child_count())
        .filter_map(|i| call.named_child(i))
        .find(|n| n.kind() == "token_tree")?;
    let inner = text[argument.byte_range()].get(1..argument.byte_range().len() - 1)?;
    let expr = syn::parse_str::<syn::Expr>(inner).ok()?;
    let mut built = false;
    let path = evaluate(&expr, sources, &mut built)?;
    Some(Include {
        name,
        call,
        argument,
        path,
        built,
    })
}

/// The string `expr` stands for: a string literal, `concat!` of such
/// expressions, or `env!("NAME")`; sets `built` when it reads a variable.
fn evaluate(expr: &syn::Expr, sources: &Sources, built: &mut bool) -> Option<String> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(s.value()),
        syn::Expr::Macro(m) => {
            let name = m.mac.path.segments.last()?.ident.to_string();
            match name.as_str() {
                "concat" => {
                    let parts = m.mac.parse_body_with(
                        syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
                    );
                    let parts = parts.ok()?;
                    parts.iter().map(|p| evaluate(p, sources, built)).collect()
                }
                "env" => {
                    let variable = m.mac.parse_body::<syn::LitStr>().ok()?;
                    *built = true;
                    sources.var(&variable.value())
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// What stands for a call of `name` that reads `bytes`: a string
/// literal, a byte string literal (both have the macro's type), or the
/// text in parentheses (an expression, a type or a pattern).
fn written_in(name: &str, bytes: &[u8]) -> String {
    match name {
        "include_str" => format!("{:?}", String::from_utf8_lossy(bytes)),
        "include_bytes" => {
            let escaped: Vec<u8> = bytes
                .iter()
                .flat_map(|&b| std::ascii::escape_default(b))
                .collect();
            format!("b\"{}\"", String::from_utf8_lossy(&escaped))
        }
        _ => format!("({})", String::from_utf8_lossy(bytes)),
    }
}

/// For every [`INCLUDES`] call under `root` that an item-level `include!`
/// did not already replace, the edit that makes it stand on its own (see
/// [`Include::standalone`]).
pub(crate) fn standalone_includes(
    root: Node<'_>,
    text: &str,
    dir: &Path,
    sources: &Sources,
) -> Vec<Edit> {
    preorder(root)
        .into_iter()
        .filter(|n| n.kind() == "macro_invocation")
        .filter_map(|call| include(call, text, sources))
        .filter_map(|include| include.standalone(dir, sources))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::ice::one_file::source::{apply, parse_rust};

    fn standalone(text: &str, dir: &Path, sources: &Sources) -> String {
        let tree = parse_rust(text).unwrap();
        apply(
            text,
            standalone_includes(tree.root_node(), text, dir, sources),
        )
    }

    #[test]
    fn a_built_path_in_the_temporary_directory_is_written_in() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out");
        std::fs::create_dir(&out).unwrap();
        std::fs::write(out.join("g.txt"), "say \"hi\"\n").unwrap();
        std::fs::write(out.join("g.bin"), [0u8, b'"', 200]).unwrap();
        std::fs::write(out.join("n.rs"), "1 + 2").unwrap();
        let sources = Sources {
            env: vec![("OUT_DIR".into(), out.to_string_lossy().into_owned())],
            temporary: Some(tmp.path().to_path_buf()),
        };
        let text = "const S: &str = include_str!(concat!(env!(\"OUT_DIR\"), \"/g.txt\"));\n\
                    const B: &[u8] = std::include_bytes!(concat!(env!(\"OUT_DIR\"), \"/g.bin\"));\n\
                    const N: u8 = include!(concat!(env!(\"OUT_DIR\"), \"/n.rs\"));\n";
        assert_eq!(
            standalone(text, Path::new("/src"), &sources),
            "const S: &str = \"say \\\"hi\\\"\\n\";\n\
             const B: &[u8] = b\"\\x00\\\"\\xc8\";\n\
             const N: u8 = (1 + 2);\n"
        );
    }

    #[test]
    fn a_built_path_elsewhere_and_a_relative_one_become_absolute() {
        let sources = Sources {
            env: vec![("CARGO_MANIFEST_DIR".into(), "/crate".into())],
            temporary: Some(PathBuf::from("/tmp/run")),
        };
        let text =
            "const A: &str = include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/a.txt\"));\n\
                    const B: &str = include_str!(\"b.txt\");\n\
                    const C: &str = include_str!(\"/c.txt\");\n\
                    const D: &str = include_str!(concat!(env!(\"NOT_SET_ANYWHERE_42\"), \"/d\"));\n\
                    const E: &str = include_str!(concat!(\"e\", line!()));\n";
        assert_eq!(
            standalone(text, Path::new("/crate/src"), &sources),
            "const A: &str = include_str!(\"/crate/a.txt\");\n\
             const B: &str = include_str!(\"/crate/src/b.txt\");\n\
             const C: &str = include_str!(\"/c.txt\");\n\
             const D: &str = include_str!(concat!(env!(\"NOT_SET_ANYWHERE_42\"), \"/d\"));\n\
             const E: &str = include_str!(concat!(\"e\", line!()));\n"
        );
    }
}
