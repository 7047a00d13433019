//! What rustc already knows, used before HDD: the items its `dead_code`,
//! `unused_imports` and `unused_macros` warnings name are deleted whole
//! (with their attributes and doc comments), all at once when the ICE
//! stays, else as many as the engine's ddmin finds (cargo-minimize halves
//! them instead; ddmin's result is 1-minimal, the halving's is not). One
//! compilation finds them, a few test the deletions, where HDD would spend
//! many. A library's `pub` items are never unused, so `pub` becomes
//! `pub(crate)` first when the ICE stays (the syntax reducer deletes what
//! is left of it later).
//!
//! Before the warnings, function bodies become `{loop{}}` the same way, as
//! cargo-minimize's "everybody loops" does: most ICEs are in the types and
//! signatures, and a crate's bodies are most of its text and the only
//! users of its helpers, which rustc then names as unused. `loop {}` has
//! every return type, so a hollowed body adds no error that could hide a
//! delayed bug.

use std::ops::Range;

use tree_sitter::Node;

use crate::job::ice::one_file::source::{apply, parse_rust, preorder, Edit};

use crate::engine::OracleError;
use crate::job::ice::oracle::{CouldNotRun, IceOracle, TellsIce};
use crate::job::ice::tester::Tester;

/// The lints whose spans name a whole item that nothing uses.
const LINTS: &[&str] = &["dead_code", "unused_imports", "unused_macros"];

/// rustc's arguments for them, as JSON diagnostics.
const ARGS: &[&str] = &[
    "--error-format=json",
    "-W",
    "dead_code",
    "-W",
    "unused_imports",
    "-W",
    "unused_macros",
];

/// What a hollowed function body becomes: it type-checks as any return
/// type.
const HOLLOW_BODY: &str = "{loop{}}";

/// Rounds of warnings: deleting an item can leave the items only it used
/// unused in turn.
const ROUNDS: usize = 4;

/// `source` without the unused items whose deletion keeps the ICE
/// `oracle` tells.
pub(crate) fn prune(
    source: &str,
    oracle: &IceOracle,
    tester: &Tester<'_>,
) -> Result<String, OracleError> {
    let mut current = source.to_string();
    let private = privatized(&current);
    if private != current && tester.keeps(oracle, private.as_bytes())? {
        current = private;
    }
    current = hollowed(&current, oracle, tester)?;
    // Items an earlier round could not delete are not tried again.
    let mut offered = std::collections::HashSet::new();
    for _ in 0..ROUNDS {
        let warned =
            tester.compile(|cancel| oracle.rustc.run_with(current.as_bytes(), ARGS, cancel));
        let Some(run) = warned.transpose().map_err(CouldNotRun)? else {
            break;
        };
        let mut items = item_ranges(&current, &warned_spans(&run.stderr));
        items.retain(|r| offered.insert(current[r.clone()].to_string()));
        if items.is_empty() || tester.stopped() {
            break;
        }
        let pruned = tester.most_applied(oracle, &current, &deletions(&items))?;
        if pruned == current {
            break;
        }
        current = pruned;
    }
    Ok(current)
}

/// `source` with its function bodies hollowed (`{loop{}}`) where the
/// hollowed text keeps the ICE `oracle` tells: all at once, else as many
/// as the engine's ddmin finds ([`Tester::most_applied`]).
pub(crate) fn hollowed<T: TellsIce + ?Sized>(
    source: &str,
    oracle: &T,
    tester: &Tester<'_>,
) -> Result<String, OracleError> {
    let bodies = hollow_bodies(source);
    if tester.stopped() {
        return Ok(source.to_string());
    }
    tester.most_applied(oracle, source, &bodies)
}

/// `source` with every bare `pub` made `pub(crate)`: nothing outside the
/// crate can use an item then, so rustc warns of the ones the crate does
/// not use (in a library, every public item counts as used).
fn privatized(source: &str) -> String {
    let Some(tree) = parse_rust(source) else {
        return source.to_string();
    };
    let bare = preorder(tree.root_node())
        .into_iter()
        .filter(|n| n.kind() == "visibility_modifier" && &source[n.byte_range()] == "pub")
        .map(|n| Edit {
            start: n.start_byte(),
            end: n.end_byte(),
            text: "pub(crate)".to_string(),
        })
        .collect();
    apply(source, bare)
}

/// Every function body with something in it and not yet hollow, as the
/// edit that makes it `{loop{}}`; a body inside another is left to the
/// outer one.
fn hollow_bodies(source: &str) -> Vec<Edit> {
    let Some(tree) = parse_rust(source) else {
        return Vec::new();
    };
    let mut edits: Vec<Edit> = Vec::new();
    for node in preorder(tree.root_node()) {
        let Some(body) = (node.kind() == "function_item")
            .then(|| node.child_by_field_name("body"))
            .flatten()
        else {
            continue;
        };
        let inside_last = edits.last().is_some_and(|e| body.start_byte() < e.end);
        let hollow = body.named_child_count() == 0 || &source[body.byte_range()] == HOLLOW_BODY;
        if inside_last || hollow {
            continue;
        }
        edits.push(Edit {
            start: body.start_byte(),
            end: body.end_byte(),
            text: HOLLOW_BODY.to_string(),
        });
    }
    edits
}

/// The primary spans of the unused-item warnings in rustc's JSON
/// diagnostics, as byte ranges of the one input file.
fn warned_spans(stderr: &str) -> Vec<Range<usize>> {
    stderr
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|d| {
            let code = d["code"]["code"].as_str().unwrap_or("");
            d["level"] == "warning" && LINTS.contains(&code)
        })
        .flat_map(|d| {
            let spans = d["spans"].as_array().cloned().unwrap_or_default();
            spans.into_iter().filter(|s| s["is_primary"] == true)
        })
        .filter(|s| s["expansion"].is_null())
        .filter_map(|s| {
            let start = s["byte_start"].as_u64()? as usize;
            let end = s["byte_end"].as_u64()? as usize;
            Some(start..end)
        })
        .collect()
}

/// The whole items (their leading attributes and comments included)
/// around `spans`, without repeats and without items inside another.
fn item_ranges(source: &str, spans: &[Range<usize>]) -> Vec<Range<usize>> {
    let Some(tree) = parse_rust(source) else {
        return Vec::new();
    };
    let mut ranges: Vec<Range<usize>> = spans
        .iter()
        .filter(|s| s.end <= source.len())
        .filter_map(|s| {
            let node = tree.root_node().descendant_for_byte_range(s.start, s.end)?;
            enclosing_item(node).map(with_leading_attributes)
        })
        .collect();
    ranges.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    let mut out: Vec<Range<usize>> = Vec::new();
    for r in ranges {
        if out.last().is_none_or(|last| r.start >= last.end) {
            out.push(r);
        }
    }
    out
}

/// The item a span lies in: the nearest ancestor in a list of items.
fn enclosing_item(mut node: Node<'_>) -> Option<Node<'_>> {
    loop {
        let parent = node.parent()?;
        let in_list = matches!(parent.kind(), "source_file" | "declaration_list");
        if in_list && node.kind() != "attribute_item" && !node.kind().ends_with("comment") {
            return Some(node);
        }
        node = parent;
    }
}

/// `item`'s range, from its first attribute or doc comment on.
fn with_leading_attributes(item: Node<'_>) -> Range<usize> {
    let mut start = item.start_byte();
    let mut prev = item.prev_sibling();
    while let Some(p) = prev {
        if !matches!(
            p.kind(),
            "attribute_item" | "line_comment" | "block_comment"
        ) {
            break;
        }
        start = p.start_byte();
        prev = p.prev_sibling();
    }
    start..item.end_byte()
}

/// The edits that delete `ranges`.
fn deletions(ranges: &[Range<usize>]) -> Vec<Edit> {
    ranges.iter().cloned().map(Edit::deletion).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `dead_code` warning as rustc 1.95 prints it with
    /// `--error-format=json` (spans trimmed to the fields read).
    fn warning(start: usize, end: usize) -> String {
        format!(
            r#"{{"$message_type":"diagnostic","message":"function `f` is never used","code":{{"code":"dead_code","explanation":null}},"level":"warning","spans":[{{"file_name":"a.rs","byte_start":{start},"byte_end":{end},"is_primary":true,"expansion":null}}]}}"#
        )
    }

    #[test]
    fn bare_pub_becomes_pub_crate_and_nothing_else_changes() {
        let source = "pub mod m {\n    pub struct S { pub x: u8 }\n    pub(crate) fn f() {}\n}\n\
                      macro_rules! m { () => { pub fn g() {} } }\npub use m::S;\n// pub in a comment\n";
        assert_eq!(
            privatized(source),
            "pub(crate) mod m {\n    pub(crate) struct S { pub(crate) x: u8 }\n    pub(crate) fn f() {}\n}\n\
             macro_rules! m { () => { pub fn g() {} } }\npub(crate) use m::S;\n// pub in a comment\n"
        );
    }

    #[test]
    fn a_warned_name_deletes_its_whole_item_with_attributes() {
        let source =
            "/// Doc.\n#[inline]\nfn unused() { 1; }\nfn kept() {}\nmod m {\n    struct S;\n}\n";
        let name = source.find("unused").unwrap();
        let s = source.find("S;").unwrap();
        let stderr = format!(
            "{}\n{}\nnot json\n",
            warning(name, name + 6),
            warning(s, s + 1)
        );
        let ranges = item_ranges(source, &warned_spans(&stderr));
        assert_eq!(ranges.len(), 2);
        assert_eq!(
            apply(source, deletions(&ranges)),
            "\nfn kept() {}\nmod m {\n    \n}\n"
        );
    }

    /// With the real rustc: of a crate whose ICE (a delayed bug in
    /// borrowck, rust-lang/rust#130797, on rustc 1.95) involves items rustc
    /// itself calls unused, the unused items it does not need go, the ones
    /// it needs stay, and the ICE with them.
    #[test]
    fn rustc_s_unused_items_go_when_the_ice_stays() {
        if !crate::job::ice::oracle::ice_toolchain("rustc_s_unused_items_go_when_the_ice_stays") {
            return;
        }
        use crate::engine::{Cancel, Limits, Reducer};
        let source = "trait Transform { type Output<'a>; }\n\
            trait Propagate<O> {}\n\
            trait AddChild<C> { fn add_child(&self) {} }\n\
            struct Node<T>(T);\n\
            impl<T> AddChild<Box<dyn for<'b> Propagate<T::Output<'b>>>> for Node<T> where T: Transform {}\n\
            fn root() { Node(Outline).add_child() }\n\
            struct Outline;\n\
            impl Transform for Outline { type Output<'a> = (); }\n\
            /// Unused, but public (in a library).\n\
            pub fn helper() -> u32 { 7 }\n\
            pub struct Unused { pub x: u8 }\n\
            use std::collections::HashMap;\n\
            impl std::fmt::Display for Outline {\n\
                fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result { f.write_str(name()) }\n\
            }\n\
            fn name() -> &'static str { \"outline\" }\n";
        let oracle = crate::job::ice::oracle::oracle_for(
            source,
            "rustc --edition=2021 --crate-type lib x.rs",
        );
        let reducer = Reducer::new();
        let pruned = prune(source, &oracle, &Tester::of(reducer.context())).unwrap();
        // `name` was used by the `Display` impl's body, which nothing needs.
        for gone in ["helper", "Unused", "HashMap", "fn name", "write_str"] {
            assert!(!pruned.contains(gone), "{gone} kept:\n{pruned}");
        }
        let root = "fn root() { Node(Outline).add_child() }";
        for kept in ["trait Transform", root, "struct Outline", "Result {loop{}}"] {
            assert!(pruned.contains(kept), "{kept} gone:\n{pruned}");
        }
        assert!(matches!(
            oracle.same_ice(pruned.as_bytes(), &Cancel::by_limits(&Limits::none())),
            crate::job::ice::oracle::Verdict::Same
        ));
        let tests = reducer.tests();
        assert!(tests < 30, "{tests} tests");
    }

    #[test]
    fn bodies_are_hollowed_outermost_first_and_empty_ones_left() {
        let source = "fn f() -> u8 { fn g() { 1; } 2 }\nfn e() {}\nfn h() {loop{}}\ntrait T { fn d(&self) { 3; } fn r(&self); }\n\
                      impl T for () { fn r(&self) { 4; } }\n";
        // f, d and the impl's r; not g (in f), e (empty) nor h (hollow).
        assert_eq!(hollow_bodies(source).len(), 3);
        assert_eq!(
            apply(source, hollow_bodies(source)),
            "fn f() -> u8 {loop{}}\nfn e() {}\nfn h() {loop{}}\ntrait T { fn d(&self) {loop{}} fn r(&self); }\n\
             impl T for () { fn r(&self) {loop{}} }\n"
        );
    }

    #[test]
    fn other_lints_and_errors_are_not_deletions() {
        let other = warning(0, 1).replace("dead_code", "unused_variables");
        let error = warning(0, 1).replace("\"warning\"", "\"error\"");
        assert!(warned_spans(&format!("{other}\n{error}\n")).is_empty());
    }
}
