//! An MCVE that still needs one of the crate's dependencies takes the
//! dependency in, as a human reducer would: its source (one file, as
//! [`flatten`] makes it) becomes `mod NAME { … }` at the end of the MCVE,
//! its `crate::` paths made `crate::NAME::`, and the command line loses
//! that `--extern` (a path into the build's temporary target directory,
//! gone once the run ends) and gains the dependency's own `--cfg`s,
//! `--extern`s and `-L`s. A procedural macro, a crate of its own type, is
//! expanded instead: the MCVE becomes what rustc's expansion prints
//! (`-Zunpretty=expanded`), without that `--extern`. The caller keeps the
//! result only when it crashes rustc the same way, and reduces it again.

use std::collections::HashSet;
use std::path::Path;

use crate::job::ice::one_file::edition2015::rooted_paths;
use crate::job::ice::one_file::flatten::{attributes_of, flatten};
use crate::job::ice::one_file::includes::Sources;
use crate::job::ice::one_file::source::{apply, parse_rust, preorder, Edit};
use crate::job::ice::rustc::args::RustcArgs;

/// The MCVE with a dependency taken in, and its command line.
#[derive(Debug)]
pub(crate) struct TakenIn {
    /// The crate name the MCVE refers to it by (its `--extern` name).
    pub(crate) name: String,
    /// Whether it is a procedural macro, expanded rather than taken in.
    pub(crate) expanded: bool,
    pub(crate) text: Vec<u8>,
    pub(crate) invocation: RustcArgs,
}

/// `code` with the first dependency of `invocation` not in `tried` that
/// `compiled` (the build's command lines) built from source taken in: a
/// library as a module (a 2015 one's root-relative paths made to go
/// through it), a procedural macro by `expand` (the code with its macros
/// expanded: a procedural macro is a crate of its own type, which no
/// module can stand for); each dependency considered is added to `tried`.
pub(crate) fn take_in_one(
    code: &[u8],
    invocation: &RustcArgs,
    compiled: &[RustcArgs],
    temporary: &Path,
    expand: &dyn Fn(&[u8]) -> Option<String>,
    tried: &mut HashSet<String>,
) -> Option<TakenIn> {
    invocation
        .externs()
        .filter(|(name, _)| tried.insert(name.to_string()))
        .find_map(|(name, path)| {
            let dependency = compiled.iter().find(|c| builds(c, path))?;
            match dependency.value("--crate-type") {
                Some("proc-macro") => Some(TakenIn {
                    name: name.to_string(),
                    expanded: true,
                    text: without_prelude(&expand(code)?).into_bytes(),
                    invocation: invocation.without_extern(name),
                }),
                _ if is_library(dependency) => {
                    with_module(code, invocation, name, dependency, temporary)
                }
                _ => None,
            }
        })
}

/// `code` with the library `dependency`, the `--extern` `name` of
/// `invocation`, at its end as `mod name { … }`; `None` when its source
/// cannot be read or parsed.
fn with_module(
    code: &[u8],
    invocation: &RustcArgs,
    name: &str,
    dependency: &RustcArgs,
    temporary: &Path,
) -> Option<TakenIn> {
    let source = flattened(dependency, temporary)?;
    let Nested { at_root, body } = nested(&source, name, dependency.edition())?;
    let mut text = code.to_vec();
    text.extend_from_slice(format!("\n{at_root}mod {name} {{\n{body}}}\n").as_bytes());
    Some(TakenIn {
        name: name.to_string(),
        expanded: false,
        text,
        invocation: taking_in(invocation, name, dependency),
    })
}

/// The source of the crate `dependency` compiles, as one file (its
/// generated files, in `temporary`, written in); `None` when it cannot be
/// read.
pub(crate) fn flattened(dependency: &RustcArgs, temporary: &Path) -> Option<String> {
    let sources = Sources {
        env: dependency.env.clone(),
        temporary: Some(temporary.to_path_buf()),
    };
    flatten(&dependency.source_path(), &sources).ok()
}

/// `expanded` (rustc's `-Zunpretty=expanded` output) without the lines
/// the prelude's injection adds before the code: `#![feature(prelude_import)]`
/// (which stable rustc refuses), `extern crate std;` (or `core`, once with
/// `#[macro_use]`), `#[prelude_import]` and its `use …::prelude::…::*;`,
/// and the `#![no_std]` that comes with an injected `std`. The crate's own
/// inner attributes, among them, stay.
fn without_prelude(expanded: &str) -> String {
    let lines: Vec<&str> = expanded.lines().collect();
    let prelude_use = |l: &&str| l.starts_with("use ") && l.contains("prelude::rust_");
    let Some(end) = lines.iter().position(prelude_use) else {
        return expanded.to_string();
    };
    let with_std = lines[..end].iter().any(|l| l.trim() == "extern crate std;");
    let injected = |l: &&&str| {
        let l = l.trim();
        matches!(
            l,
            "#![feature(prelude_import)]"
                | "#[prelude_import]"
                | "#[macro_use]"
                | "extern crate std;"
                | "extern crate core;"
        ) || (with_std && l == "#![no_std]")
    };
    let header = lines[..end].iter().filter(|l| !injected(l));
    let code = lines[end + 1..].iter();
    header.chain(code).map(|l| format!("{l}\n")).collect()
}

/// Whether `dependency` is the command whose output is `path`
/// (`lib{crate name}{extra-filename}.rlib`, `.rmeta`, or `.so` for a
/// procedural macro).
pub(crate) fn builds(dependency: &RustcArgs, path: &str) -> bool {
    let extra = dependency
        .args
        .iter()
        .find_map(|a| a.strip_prefix("extra-filename="))
        .unwrap_or("");
    let stem = format!("lib{}{extra}", dependency.crate_name());
    Path::new(path)
        .file_stem()
        .is_some_and(|s| s == stem.as_str())
}

/// A dependency as a module of the MCVE.
struct Nested {
    /// What must stand at the MCVE's root: an `extern crate` that loads
    /// macros (`#[macro_use]`) is refused anywhere else (E0468), so it
    /// goes there as `extern crate x as _;`, and the module keeps its
    /// `extern crate x;` without the attribute.
    at_root: String,
    /// The module's body.
    body: String,
}

/// A crate's flattened `source`, of `edition`, as the body of `mod name`:
/// its `crate::` paths (`$crate::` in its macros), and a 2015 crate's
/// root-relative ones ([`rooted_paths`]), through the module, its inner
/// attributes (`#![no_std]`, `#![doc = …]`: crate-level) dropped, its
/// macro-loading `extern crate`s also at the root. `None` when it does not
/// parse.
fn nested(source: &str, name: &str, edition: &str) -> Option<Nested> {
    let tree = parse_rust(source)?;
    let root = tree.root_node();
    let mut edits: Vec<Edit> = Vec::new();
    if edition == "2015" {
        edits.extend(rooted_paths(source, root, name));
    }
    let mut at_root = String::new();
    let mut cursor = root.walk();
    for item in root.children(&mut cursor) {
        match item.kind() {
            "inner_attribute_item" => edits.push(Edit::deletion(item.byte_range())),
            "extern_crate_declaration" => {
                let Some(krate) = item.child_by_field_name("name") else {
                    continue;
                };
                let loading = attributes_of(item)
                    .filter(|a| source[a.byte_range()].starts_with("#[macro_use"));
                for attribute in loading {
                    edits.push(Edit::deletion(attribute.byte_range()));
                    let (attribute, krate) =
                        (&source[attribute.byte_range()], &source[krate.byte_range()]);
                    at_root.push_str(&format!("{attribute}\nextern crate {krate} as _;\n"));
                }
            }
            _ => {}
        }
    }
    let leaves: Vec<_> = preorder(root)
        .into_iter()
        .filter(|n| n.child_count() == 0)
        .collect();
    for pair in leaves.windows(2) {
        let text = |n: &tree_sitter::Node<'_>| &source[n.byte_range()];
        // A macro's token tree has `$crate` as one token.
        if matches!(text(&pair[0]), "crate" | "$crate") && text(&pair[1]) == "::" {
            edits.push(Edit {
                start: pair[0].end_byte(),
                end: pair[0].end_byte(),
                text: format!("::{name}"),
            });
        }
    }
    // A `crate::` inside a dropped attribute goes with it (`apply` skips
    // the overlapping edit).
    let mut body = apply(source, edits);
    body.push_str(&exported_macros_reexport(source, root));
    Some(Nested { at_root, body })
}

/// `pub use crate::{m, …};` for the dependency's `#[macro_export]` macros.
/// Exported, a macro stands at the crate's root: taken in, that is the
/// MCVE's root, where `dep::m!` (the user's call) and `$crate::dep::m!`
/// (the dependency's own, after [`nested`]) no longer find it.
fn exported_macros_reexport(source: &str, root: tree_sitter::Node<'_>) -> String {
    let exported = |item: &tree_sitter::Node<'_>| {
        attributes_of(*item).any(|a| source[a.byte_range()].starts_with("#[macro_export"))
    };
    // One name once: a macro defined under two `cfg`s is exported twice.
    let mut seen = HashSet::new();
    let names: Vec<&str> = preorder(root)
        .into_iter()
        .filter(|n| n.kind() == "macro_definition" && exported(n))
        .filter_map(|n| n.child_by_field_name("name"))
        .map(|n| &source[n.byte_range()])
        .filter(|name| seen.insert(*name))
        .collect();
    match names.as_slice() {
        [] => String::new(),
        _ => format!("pub use crate::{{{}}};\n", names.join(", ")),
    }
}

/// `invocation` without `--extern name=…`, with the `--cfg`s and
/// `--extern`s of `dependency` it does not have, and its `-L`s (where
/// rustc finds the crates those need) if it has `--extern`s.
fn taking_in(invocation: &RustcArgs, name: &str, dependency: &RustcArgs) -> RustcArgs {
    let mut taken = invocation.without_extern(name);
    let has = |pair: &[String; 2]| taken.args.windows(2).any(|w| w == pair);
    // `-L` only matters for the crates its `--extern`s need.
    let brought: &[&str] = match dependency.args.iter().any(|a| a == "--extern") {
        true => &["--cfg", "--extern", "-L"],
        false => &["--cfg", "--extern"],
    };
    let extra: Vec<[String; 2]> = dependency
        .flag_pairs(brought)
        .filter(|pair| !has(pair))
        .collect();
    taken.args.extend(extra.into_iter().flatten());
    taken
}

/// Whether `dependency` builds a library (the crate type a module, or an
/// auxiliary crate, can stand for).
pub(crate) fn is_library(dependency: &RustcArgs) -> bool {
    matches!(
        dependency.value("--crate-type"),
        None | Some("lib" | "rlib")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::ice::oracle::compile_lib_source;

    #[test]
    fn a_dependency_s_crate_paths_go_through_its_module_and_its_crate_attributes_go() {
        let source = "#![no_std]\n//! Docs.\nuse crate::a::B;\npub(crate) struct C;\n\
            macro_rules! m { () => { $crate::a::B } }\nmod a { pub struct B; }\n";
        let nested = nested(source, "dep", "2021").unwrap().body;
        assert_eq!(
            nested,
            "\n//! Docs.\nuse crate::dep::a::B;\npub(crate) struct C;\n\
             macro_rules! m { () => { $crate::dep::a::B } }\nmod a { pub struct B; }\n"
        );
    }

    /// With the real rustc: the user's `dep::m!` and the dependency's
    /// `$crate::m!` still find an exported macro once `dep` is a module.
    #[test]
    fn an_exported_macro_is_found_through_the_module() {
        let source = "#[macro_export]\n/// Makes one.\nmacro_rules! one { () => { 1 } }\n\
            #[cfg(any())]\n#[macro_export]\nmacro_rules! one { () => { 0 } }\n\
            #[macro_export(local_inner_macros)]\nmacro_rules! two { () => { $crate::one!() + 1 } }\n\
            macro_rules! hidden { () => {} }\n";
        let nested = nested(source, "dep", "2021").unwrap().body;
        assert!(nested.ends_with("pub use crate::{one, two};\n"), "{nested}");
        let mcve = format!("pub fn f() -> i32 {{ dep::two!() }}\nmod dep {{\n{nested}}}\n");
        if let Err(stderr) = compile_lib_source(&mcve) {
            panic!("{mcve}\n{stderr}");
        }
    }

    #[test]
    fn only_the_named_extern_goes_and_the_dependency_s_cfgs_and_externs_come() {
        let app = RustcArgs::parse(
            "rustc --crate-name app --edition=2021 src/lib.rs --extern dep=/t/libdep-1.rmeta \
             --extern other=/t/libother-2.rmeta --cfg 'feature=\"a\"'",
            Path::new("/w"),
        )
        .unwrap();
        let dep = RustcArgs::parse(
            "rustc --crate-name dep --edition=2021 dep/src/lib.rs --crate-type lib \
             -C extra-filename=-1 --cfg 'feature=\"a\"' --cfg 'feature=\"std\"' --extern other=/t/libother-2.rmeta \
             --extern deeper=/t/libdeeper-3.rmeta -L dependency=/t",
            Path::new("/w"),
        )
        .unwrap();
        assert!(builds(&dep, "/t/libdep-1.rmeta") && !builds(&dep, "/t/libdep-2.rmeta"));
        let taken = taking_in(&app, "dep", &dep);
        assert_eq!(
            taken.display("m.rs"),
            "rustc --crate-name app --edition=2021 m.rs --extern other=/t/libother-2.rmeta \
             --cfg 'feature=\"a\"' --cfg 'feature=\"std\"' --extern deeper=/t/libdeeper-3.rmeta \
             -L dependency=/t"
        );
        let alone = RustcArgs::parse(
            "rustc --crate-name dep --edition=2021 dep/src/lib.rs -L dependency=/t",
            Path::new("/w"),
        )
        .unwrap();
        assert!(!taking_in(&app, "dep", &alone)
            .args
            .contains(&"-L".to_string()));
        let mut old = RustcArgs::parse(
            "rustc --extern dep=/t/libdep-1.rmeta --crate-name app src/lib.rs",
            Path::new("/w"),
        )
        .unwrap();
        old = taking_in(&old, "dep", &dep);
        assert_eq!(old.args[old.source], "src/lib.rs");
    }

    /// With the real rustc: what the expansion adds goes, the crate's own
    /// attributes stay, a derive is expanded, and the result compiles.
    #[test]
    fn the_prelude_rustc_injects_goes_from_its_expansion() {
        use crate::engine::{Cancel, Limits};
        use crate::job::ice::oracle::{ice_toolchain, ICE_TOOLCHAIN};
        // The expansion's shape is rustc 1.95.0's.
        if !ice_toolchain("the_prelude_rustc_injects_goes_from_its_expansion") {
            return;
        }
        let code = "#![allow(dead_code)]\n#[macro_use]\nextern crate core as c;\n\
                    #[derive(Clone)]\npub struct S;\n";
        let never = Limits::none();
        for edition in ["2015", "2021"] {
            let command = format!("rustc --edition={edition} --crate-type lib x.rs");
            let mut invocation = RustcArgs::parse(&command, Path::new("/")).unwrap();
            let pin = ("RUSTUP_TOOLCHAIN".to_string(), ICE_TOOLCHAIN.to_string());
            invocation.env.push(pin);
            let rustc = crate::job::ice::rustc::run::Rustc::new(
                invocation,
                "x.rs".into(),
                std::time::Duration::from_secs(120),
                None,
                false,
            );
            let expanded = rustc.expanded(code.as_bytes(), &Cancel::by_limits(&never));
            let text = without_prelude(&expanded.unwrap().unwrap());
            assert!(
                text.starts_with("#![allow(dead_code)]\n#[macro_use]\nextern crate core as c;\n"),
                "{text}"
            );
            assert!(
                !text.contains("prelude") && !text.contains("no_std"),
                "{text}"
            );
            assert!(text.contains("impl ::core::clone::Clone for S"), "{text}");
            if let Err(stderr) = compile_lib_source(&text) {
                panic!("{text}\n{stderr}");
            }
        }
    }

    /// `code`, of a 2021 crate that uses the library `dep`, with `dep`
    /// taken in: its `lib` built by rustc with `flags` (its edition).
    fn with_library_taken_in(lib: &str, flags: &str, code: &[u8]) -> String {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), lib).unwrap();
        let command = |c: &str| RustcArgs::parse(c, dir.path()).unwrap();
        let app =
            command("rustc --crate-name app --edition=2021 app.rs --extern dep=/t/libdep.rlib");
        let compiled = [command(&format!(
            "rustc --crate-name dep {flags} src/lib.rs"
        ))];
        let mut tried = HashSet::new();
        let taken = take_in_one(code, &app, &compiled, dir.path(), &|_| None, &mut tried);
        String::from_utf8(taken.unwrap().text).unwrap()
    }

    /// With the real rustc: a 2015 crate's `use` paths and `::` paths,
    /// which start at its root, start at its module once taken into a 2021
    /// crate, and the crate compiles.
    #[test]
    fn a_2015_crate_taken_in_keeps_its_paths_meaning() {
        let lib = "#![allow(unused)]\nuse std::fmt;\npub mod a { pub trait T { fn t(&self) {} } pub struct U; }\n\
                   pub mod b { use a::T; pub struct S; impl T for S {} pub fn u() -> ::a::U { ::a::U } }\n";
        let code = b"use dep::a::T;\npub fn g() { dep::b::S.t(); dep::b::u(); }\n";
        let text = with_library_taken_in(lib, "--crate-type lib", code);
        assert!(
            text.contains("use crate::dep::a::T;") && text.contains("-> crate::dep::a::U"),
            "{text}"
        );
        if let Err(stderr) = compile_lib_source(&text) {
            panic!("{text}\n{stderr}");
        }
    }

    /// With the real rustc: `#[macro_use] extern crate` is refused but at
    /// the root, where it goes; the module keeps its `extern crate`.
    #[test]
    fn a_macro_loading_extern_crate_goes_to_the_mcve_s_root() {
        let lib = "#![no_std]\n#[macro_use]\nextern crate alloc;\n\
                   pub fn v() -> alloc::vec::Vec<u8> { vec![1] }\n";
        let text = with_library_taken_in(lib, "--edition=2021", b"pub fn g() { dep::v(); }\n");
        assert!(
            text.contains(
                "#[macro_use]\nextern crate alloc as _;\nmod dep {\n\n\nextern crate alloc;"
            ),
            "{text}"
        );
        if let Err(stderr) = compile_lib_source(&text) {
            panic!("{text}\n{stderr}");
        }
    }

    #[test]
    fn a_crate_without_its_source_is_skipped_and_a_proc_macro_is_expanded() {
        let parse = |c: &str| RustcArgs::parse(c, Path::new("/w")).unwrap();
        let app = parse(
            "rustc --crate-name app --edition=2021 src/lib.rs --extern old=/t/libold.rlib \
             --extern derive=/t/libderive.so",
        );
        let compiled = [
            parse("rustc --crate-name old old/src/lib.rs --crate-type lib"),
            parse("rustc --crate-name derive --edition=2021 derive/src/lib.rs --crate-type proc-macro"),
        ];
        // What rustc 1.95's `-Zunpretty=expanded` prints around the code.
        let expand = |code: &[u8]| {
            let prelude = "#![feature(prelude_import)]\n#![allow(unused)]\nextern crate std;\n\
                           #[prelude_import]\nuse std::prelude::rust_2021::*;\n";
            Some(format!("{prelude}{}", String::from_utf8_lossy(code)))
        };
        let mut tried = HashSet::new();
        let code = b"#[macro_use]\nextern crate other;\nstruct S;\n";
        let taken = take_in_one(code, &app, &compiled, Path::new("/t"), &expand, &mut tried);
        let taken = taken.unwrap();
        assert!(taken.expanded && taken.name == "derive", "{taken:?}");
        let expected = format!("#![allow(unused)]\n{}", String::from_utf8_lossy(code));
        assert_eq!(String::from_utf8_lossy(&taken.text), expected);
        assert_eq!(
            taken.invocation.display("m.rs"),
            "rustc --crate-name app --edition=2021 m.rs --extern old=/t/libold.rlib"
        );
        assert!(tried.contains("old"));
    }
}
