//! A crate as one file: every `mod name;` replaced by `mod name { … }`
//! with the module's file inlined (`name.rs`, `name/mod.rs`, or its
//! `#[path]`), and every item-level `include!` by the file's text,
//! recursively; the other includes made to stand on their own
//! ([`crate::job::ice::one_file::includes`]). rustc then compiles the one file as it compiled
//! the tree.

use std::ops::Range;
use std::path::{Path, PathBuf};

use tree_sitter::Node;

use crate::job::ice::one_file::includes::{include, standalone_includes, Sources};
use crate::job::ice::one_file::source::{apply, parse_rust, preorder, Edit};

/// Why a crate cannot be flattened.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FlattenError {
    /// A file of the crate cannot be read.
    #[error("cannot read `{}`: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `mod name;` names no file.
    #[error("module `{name}` of `{}` has no file: neither {} exists", from.display(), tried.iter().map(|p| format!("`{}`", p.display())).collect::<Vec<_>>().join(" nor "))]
    MissingModule {
        /// The module's name.
        name: String,
        /// The file declaring it.
        from: PathBuf,
        /// The paths looked at.
        tried: Vec<PathBuf>,
    },
}

/// The crate rooted at `root` as one file's text; `sources` finds the
/// files its includes read.
pub(crate) fn flatten(root: &Path, sources: &Sources) -> Result<String, FlattenError> {
    let dir = root.parent().unwrap_or(Path::new(".")).to_path_buf();
    flatten_file(root, &dir, sources, 0)
}

/// Files nest at most this deep (a `#[path]` loop would not end).
const MAX_DEPTH: usize = 64;

/// `path`'s text with its modules inlined; `mod_dir` is where its `mod x;`
/// look for `x.rs` and `x/mod.rs`.
fn flatten_file(
    path: &Path,
    mod_dir: &Path,
    sources: &Sources,
    depth: usize,
) -> Result<String, FlattenError> {
    let text = std::fs::read_to_string(path).map_err(|source| FlattenError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    if depth >= MAX_DEPTH {
        return Ok(text);
    }
    let Some(tree) = parse_rust(&text) else {
        return Ok(text);
    };
    let file_dir = path.parent().unwrap_or(Path::new("."));
    let mut edits = Vec::new();
    let context = Context {
        text: &text,
        path,
        file_dir,
        sources,
        depth,
    };
    let scope = Scope {
        mod_dir: mod_dir.to_path_buf(),
        inline: false,
    };
    context.collect(tree.root_node(), &scope, &mut edits)?;
    // After the inlined `include!`s, which `apply` then keeps over these.
    edits.extend(standalone_includes(
        tree.root_node(),
        &text,
        file_dir,
        sources,
    ));
    Ok(apply(&text, edits))
}

/// What the walk over one file needs.
struct Context<'a> {
    text: &'a str,
    path: &'a Path,
    file_dir: &'a Path,
    sources: &'a Sources,
    depth: usize,
}

/// Where a list of items stands.
struct Scope {
    /// Where its `mod x;` look for `x.rs` and `x/mod.rs`.
    mod_dir: PathBuf,
    /// Whether it is inside an inline `mod m { … }` of the file: a
    /// `#[path]` there is relative to `mod_dir`, at the file's top level
    /// (and in a function's body) to the file's directory.
    inline: bool,
}

impl Context<'_> {
    /// The edits for the items in `list` (a file, an inline module's body
    /// or a block), and in the blocks of its functions.
    fn collect(
        &self,
        list: Node<'_>,
        scope: &Scope,
        edits: &mut Vec<Edit>,
    ) -> Result<(), FlattenError> {
        let mut cursor = list.walk();
        for item in list.named_children(&mut cursor) {
            if item.kind() == "mod_item" {
                let attrs: Vec<Node<'_>> = attributes_of(item).collect();
                self.module(item, &attrs, scope, edits)?;
                continue;
            }
            if self.include(item, edits)? {
                continue;
            }
            if let Some(call) = statement_call(item) {
                self.modules_in_call(call, scope, edits)?;
            }
            for block in outermost_blocks(item) {
                self.collect(block, scope, edits)?;
            }
        }
        Ok(())
    }

    fn source(&self, node: Node<'_>) -> &str {
        &self.text[node.byte_range()]
    }

    /// `mod name;` inlined, or an inline `mod name { … }` walked.
    fn module(
        &self,
        item: Node<'_>,
        attrs: &[Node<'_>],
        scope: &Scope,
        edits: &mut Vec<Edit>,
    ) -> Result<(), FlattenError> {
        let Some(name) = item
            .child_by_field_name("name")
            .map(|n| self.source(n).to_string())
        else {
            return Ok(());
        };
        let path_attr = attrs
            .iter()
            .find_map(|a| path_attribute(self.source(*a)).map(|p| (a.byte_range(), p)));
        if let Some(body) = item.child_by_field_name("body") {
            let mod_dir = match &path_attr {
                Some((_, p)) => scope.mod_dir.join(p),
                None => scope.mod_dir.join(name.trim_start_matches("r#")),
            };
            let inner = Scope {
                mod_dir,
                inline: true,
            };
            return self.collect(body, &inner, edits);
        }
        let declared = Declared {
            name,
            range: item.byte_range(),
            path_attr,
        };
        match self.module_file(&declared, scope) {
            Ok((file, child_dir)) => self.inline(declared, &file, &child_dir, edits),
            // rustc reads no file for a module its `cfg` turns off.
            Err(_) if attrs.iter().any(|a| self.source(*a).starts_with("#[cfg")) => Ok(()),
            Err(tried) => Err(FlattenError::MissingModule {
                name: declared.name,
                from: self.path.to_path_buf(),
                tried,
            }),
        }
    }

    /// The file of the module `declared` in `scope` and the directory of
    /// its own `mod x;`, or the paths looked at when there is none.
    fn module_file(
        &self,
        declared: &Declared,
        scope: &Scope,
    ) -> Result<(PathBuf, PathBuf), Vec<PathBuf>> {
        let name = declared.name.trim_start_matches("r#");
        let mod_dir = &scope.mod_dir;
        match &declared.path_attr {
            // A `#[path]` file's own modules sit beside it, as in a mod.rs.
            Some((_, p)) => {
                let base = if scope.inline { mod_dir } else { self.file_dir };
                let file = base.join(p);
                let dir = file.parent().unwrap_or(Path::new(".")).to_path_buf();
                if file.is_file() {
                    Ok((file, dir))
                } else {
                    Err(vec![file])
                }
            }
            None => {
                let flat = mod_dir.join(format!("{name}.rs"));
                let nested = mod_dir.join(name).join("mod.rs");
                match (flat.is_file(), nested.is_file()) {
                    (true, _) => Ok((flat, mod_dir.join(name))),
                    (false, true) => Ok((nested, mod_dir.join(name))),
                    (false, false) => Err(vec![flat, nested]),
                }
            }
        }
    }

    /// The module `declared` with `file`'s text inlined as its body.
    fn inline(
        &self,
        declared: Declared,
        file: &Path,
        child_dir: &Path,
        edits: &mut Vec<Edit>,
    ) -> Result<(), FlattenError> {
        let inner = flatten_file(file, child_dir, self.sources, self.depth + 1)?;
        if let Some((attr, _)) = declared.path_attr {
            edits.push(Edit {
                start: attr.start,
                end: attr.end,
                text: String::new(),
            });
        }
        let head = &self.text[declared.range.clone()];
        let head = head.trim_end().trim_end_matches(';');
        edits.push(Edit {
            start: declared.range.start,
            end: declared.range.end,
            text: format!("{head} {{\n{inner}\n}}"),
        });
        Ok(())
    }

    /// The `mod name;` a macro call's argument holds (`cfg_if! { if
    /// #[cfg(unix)] { #[path = "unix.rs"] mod imp; } … }`), inlined where
    /// their files exist: the call expands them in this module, and a
    /// branch that is turned off may name a file that is not there.
    fn modules_in_call(
        &self,
        call: Node<'_>,
        scope: &Scope,
        edits: &mut Vec<Edit>,
    ) -> Result<(), FlattenError> {
        let groups = preorder(call)
            .into_iter()
            .filter(|n| n.kind() == "token_tree");
        for group in groups {
            let mut cursor = group.walk();
            let tokens: Vec<Node<'_>> = group.children(&mut cursor).collect();
            for declared in declared_in(&tokens, self.text) {
                if let Ok((file, child_dir)) = self.module_file(&declared, scope) {
                    self.inline(declared, &file, &child_dir, edits)?;
                }
            }
        }
        Ok(())
    }

    /// `include!("file");` at item level (or `include!(concat!(env!(…),
    /// …))`), replaced by the file's text. Returns whether it was.
    fn include(&self, item: Node<'_>, edits: &mut Vec<Edit>) -> Result<bool, FlattenError> {
        let Some(call) = statement_call(item) else {
            return Ok(false);
        };
        let Some(path) = include(call, self.text, self.sources)
            .filter(|i| i.name == "include")
            .map(|i| i.file(self.file_dir))
            .filter(|file| file.is_file())
        else {
            // Not `include!`, a path no environment here spells, or a
            // file that is not there (a build script writes it only with
            // some feature, under a `#[cfg]` that is off): as written.
            return Ok(false);
        };
        let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let inner = flatten_file(&path, &dir, self.sources, self.depth + 1)?;
        let mut end = item.end_byte();
        if self.text[end..].starts_with(';') {
            end += 1;
        }
        edits.push(Edit {
            start: item.start_byte(),
            end,
            text: inner,
        });
        Ok(true)
    }
}

/// The macro call `item` is, or holds as `call!(…);`.
fn statement_call(item: Node<'_>) -> Option<Node<'_>> {
    match item.kind() {
        "macro_invocation" => Some(item),
        "expression_statement" => item
            .named_child(0)
            .filter(|c| c.kind() == "macro_invocation"),
        _ => None,
    }
}

/// The blocks under `node` not inside another of them (a function's
/// body, a closure's): their items and statements are walked as lists.
fn outermost_blocks(node: Node<'_>) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "block" => out.push(child),
            _ => out.extend(outermost_blocks(child)),
        }
    }
    out
}

/// A `mod name;` to inline: where it stands, and its `#[path]` attribute
/// (where it stands, and the path).
struct Declared {
    name: String,
    range: Range<usize>,
    path_attr: Option<(Range<usize>, String)>,
}

/// The `[#[path = "…"]] mod name;` among a token group's `tokens`.
fn declared_in(tokens: &[Node<'_>], text: &str) -> Vec<Declared> {
    let at = |i: usize| &text[tokens[i].byte_range()];
    let mut out = Vec::new();
    for i in 0..tokens.len().saturating_sub(2) {
        let plain = tokens[i + 1].kind() == "identifier";
        if at(i) != "mod" || !plain || at(i + 2) != ";" {
            continue;
        }
        // Back over the visibility (`pub`, `pub(crate)`) to the attributes.
        let mut j = i;
        if j >= 2 && at(j - 1).starts_with('(') && at(j - 2) == "pub" {
            j -= 2;
        } else if j >= 1 && at(j - 1) == "pub" {
            j -= 1;
        }
        let mut path_attr = None;
        while j >= 2 && at(j - 2) == "#" && at(j - 1).starts_with('[') {
            let range = tokens[j - 2].start_byte()..tokens[j - 1].end_byte();
            if let Some(p) = path_attribute(&text[range.clone()]) {
                path_attr = Some((range, p));
            }
            j -= 2;
        }
        out.push(Declared {
            name: at(i + 1).to_string(),
            range: tokens[i].start_byte()..tokens[i + 2].end_byte(),
            path_attr,
        });
    }
    out
}

/// The attribute items right before `item`, nearest first (comments
/// between them allowed).
pub(crate) fn attributes_of(item: Node<'_>) -> impl Iterator<Item = Node<'_>> {
    std::iter::successors(item.prev_named_sibling(), |n| n.prev_named_sibling())
        .take_while(|n| {
            matches!(
                n.kind(),
                "attribute_item" | "line_comment" | "block_comment"
            )
        })
        .filter(|n| n.kind() == "attribute_item")
}

/// `"x/y.rs"` of `#[path = "x/y.rs"]`.
fn path_attribute(attr: &str) -> Option<String> {
    let inner = attr.strip_prefix("#[")?.strip_suffix(']')?.trim();
    let value = inner.strip_prefix("path")?.trim_start().strip_prefix('=')?;
    string_argument(value)
}

/// The first plain string literal in `text`.
fn string_argument(text: &str) -> Option<String> {
    let start = text.find('"')? + 1;
    let end = start + text[start..].find('"')?;
    Some(text[start..end].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::ice::oracle::{compile_lib, compile_lib_source};

    fn fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests-fixtures/ice-crate/src/lib.rs")
    }

    #[test]
    fn the_fixture_crate_becomes_one_file_with_every_module_inlined() {
        let flat = flatten(&fixture(), &Sources::default()).unwrap();
        for needle in [
            "pub mod geometry {",
            "mod graph {",
            "pub mod shape {",
            "pub mod render {",
            "pub const VERSION: &str",
            "fn make_graph_root()",
            "pub fn render(scene: &Scene)",
        ] {
            assert!(flat.contains(needle), "{needle} missing:\n{flat}");
        }
        assert!(!flat.contains("include!("), "{flat}");
        assert!(!flat.contains("#[path"), "{flat}");
        assert!(!flat.contains("mod graph;"), "{flat}");
    }

    #[test]
    fn nested_inline_and_path_modules_resolve_like_rustc() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path();
        std::fs::create_dir_all(src.join("a/b")).unwrap();
        std::fs::create_dir_all(src.join("other")).unwrap();
        std::fs::write(
            src.join("lib.rs"),
            "mod a;\nmod inline { mod c; }\n#[path = \"other/p.rs\"]\nmod q;\n",
        )
        .unwrap();
        std::fs::write(src.join("a/mod.rs"), "mod b;\n").unwrap();
        std::fs::write(src.join("a/b.rs"), "mod d;\nfn b() {}\n").unwrap();
        std::fs::write(src.join("a/b/d.rs"), "fn d() {}\n").unwrap();
        std::fs::create_dir_all(src.join("inline")).unwrap();
        std::fs::write(src.join("inline/c.rs"), "fn c() {}\n").unwrap();
        std::fs::write(src.join("other/p.rs"), "mod r;\n").unwrap();
        std::fs::write(src.join("other/r.rs"), "fn r() {}\n").unwrap();
        let flat = flatten(&src.join("lib.rs"), &Sources::default()).unwrap();
        for f in ["fn b()", "fn c()", "fn d()", "fn r()"] {
            assert!(flat.contains(f), "{f}:\n{flat}");
        }
        assert!(
            !flat.contains("mod b;") && !flat.contains("mod d;"),
            "{flat}"
        );
    }

    #[test]
    fn modules_declared_in_a_macro_call_are_inlined_where_their_files_exist() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path();
        std::fs::create_dir_all(src.join("sys")).unwrap();
        std::fs::write(src.join("lib.rs"), "mod sys;\n#[cfg(windows)]\nmod gone;\n").unwrap();
        std::fs::write(
            src.join("sys/mod.rs"),
            "cfg_if::cfg_if! {\n    if #[cfg(unix)] {\n        #[path = \"unix.rs\"]\n        pub(crate) mod imp;\n\
             \x20   } else {\n        #[path = \"windows.rs\"]\n        mod imp;\n    }\n}\nm! { mod extra; }\n",
        )
        .unwrap();
        std::fs::write(src.join("sys/unix.rs"), "mod util;\npub fn park() {}\n").unwrap();
        std::fs::write(src.join("sys/util.rs"), "pub fn spin() {}\n").unwrap();
        std::fs::write(src.join("sys/extra.rs"), "fn extra() {}\n").unwrap();
        let flat = flatten(&src.join("lib.rs"), &Sources::default()).unwrap();
        for needle in [
            "pub(crate) mod imp {",
            "pub fn park()",
            "mod util {",
            "pub fn spin()",
            "mod extra {",
            // The branch whose file is not there, and the module its `cfg`
            // turns off, stay as they were.
            "#[path = \"windows.rs\"]\n        mod imp;",
            "#[cfg(windows)]\nmod gone;",
        ] {
            assert!(flat.contains(needle), "{needle} missing:\n{flat}");
        }
        assert!(!flat.contains("unix.rs"), "{flat}");
    }

    /// With the real rustc: the one file compiles elsewhere.
    #[test]
    fn files_read_by_include_str_and_include_bytes_are_found_from_anywhere() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        std::fs::create_dir_all(src.join("data")).unwrap();
        std::fs::write(dir.path().join("README.md"), "A crate.").unwrap();
        std::fs::write(src.join("data/x.bin"), [1, 2]).unwrap();
        std::fs::write(
            src.join("lib.rs"),
            "#![doc = include_str!(\"../README.md\")]\nmod data;\n",
        )
        .unwrap();
        std::fs::write(
            src.join("data/mod.rs"),
            "pub const X: &[u8] = core::include_bytes!(\"x.bin\");\n\
             #[cfg(any())]\nconst G: &str = include_str!(concat!(env!(\"OUT_DIR\"), \"/g\"));\n\
             #[cfg(any())]\ninclude!(concat!(env!(\"OUT_DIR\"), \"/gen.rs\"));\n",
        )
        .unwrap();
        let flat = flatten(&src.join("lib.rs"), &Sources::default()).unwrap();
        // A path a macro builds stays as written, in an expression and as
        // an item.
        assert_eq!(flat.matches("env!(\"OUT_DIR\")").count(), 2, "{flat}");
        if let Err(stderr) = compile_lib_source(&flat) {
            panic!("{flat}\n{stderr}");
        }
    }

    /// With the real rustc: what a build script generated is inlined from
    /// the crate's `OUT_DIR`, and a file it did not write stays named.
    #[test]
    fn generated_code_is_inlined_from_the_build_s_out_dir() {
        let dir = tempfile::tempdir().unwrap();
        let (src, out) = (dir.path().join("src"), dir.path().join("out"));
        std::fs::create_dir_all(&src).unwrap();
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("gen.rs"), "pub struct Generated;\n").unwrap();
        std::fs::write(
            src.join("lib.rs"),
            "pub mod pb {\n    include!(concat!(env!(\"OUT_DIR\"), \"/gen.rs\"));\n}\n\
             #[cfg(any())]\ninclude!(concat!(env!(\"OUT_DIR\"), \"/off.rs\"));\n\
             pub fn f() -> pb::Generated { pb::Generated }\n",
        )
        .unwrap();
        let sources = Sources {
            env: vec![("OUT_DIR".into(), out.to_string_lossy().into_owned())],
            temporary: Some(dir.path().to_path_buf()),
        };
        let flat = flatten(&src.join("lib.rs"), &sources).unwrap();
        assert!(
            flat.contains("pub mod pb {\n    pub struct Generated;"),
            "{flat}"
        );
        assert_eq!(flat.matches("OUT_DIR").count(), 1, "{flat}");
        assert!(flat.contains("\"/off.rs\""), "{flat}");
        if let Err(stderr) = compile_lib_source(&flat) {
            panic!("{flat}\n{stderr}");
        }
    }

    /// With the real rustc, on getrandom 0.4's layout: a `#[path]` at
    /// the top of a file that is not a mod.rs is relative to the file's
    /// directory, and so is one on a module in a function's body.
    #[test]
    fn path_attributes_resolve_as_rustc_resolves_them() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path();
        for (file, text) in [
            ("lib.rs", "mod backends;\npub use backends::fill;\n"),
            ("backends.rs", "mod use_file;\npub use use_file::fill;\n"),
            (
                "backends/use_file.rs",
                "#[path = \"../utils/exact.rs\"]\nmod utils;\n\
                 pub fn fill() -> u8 {\n    #[path = \"../utils/lazy.rs\"]\n    mod lazy;\n\
                 \x20   lazy::one() + utils::two()\n}\n",
            ),
            ("utils/exact.rs", "pub fn two() -> u8 { 2 }\n"),
            ("utils/lazy.rs", "pub fn one() -> u8 { 1 }\n"),
        ] {
            let path = src.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        assert_eq!(
            compile_lib(src, "lib.rs"),
            Ok(()),
            "the crate itself builds"
        );
        let flat = flatten(&src.join("lib.rs"), &Sources::default()).unwrap();
        if let Err(stderr) = compile_lib_source(&flat) {
            panic!("{flat}\n{stderr}");
        }
    }

    #[test]
    fn a_missing_module_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("lib.rs"), "mod gone;\n").unwrap();
        let e = flatten(&dir.path().join("lib.rs"), &Sources::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("module `gone`") && e.contains("gone.rs") && e.contains("gone/mod.rs"),
            "{e}"
        );
    }
}
