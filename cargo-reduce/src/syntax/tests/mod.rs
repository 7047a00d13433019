//! Tests of the HDD pipeline: Φ validity, trees, minimality with in-memory
//! oracles. Tests with real compilers live in `real.rs`, property tests
//! on generated inputs in `minimality.rs`.

mod minimality;
mod real;

use std::collections::BTreeMap;

use super::grammar::is_group;
use super::tree::{render, render_node, render_tree, Change};
use super::*;
use crate::engine::{Candidate, Reducer};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests-fixtures/hdd/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The crate's own sources: a large, real Rust corpus.
fn crate_sources() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src"
    ))];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(std::fs::read(path).unwrap());
            }
        }
    }
    out
}

pub(crate) fn has_error(lang: Lang, bytes: &[u8]) -> bool {
    first_error(lang, bytes).is_some()
}

/// The text around the first syntax error, if any.
fn first_error(lang: Lang, bytes: &[u8]) -> Option<String> {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&lang.spec().unwrap().language).unwrap();
    let tree = parser.parse(bytes, None).unwrap();
    let mut node = tree.root_node();
    if !node.has_error() {
        return None;
    }
    'descend: while !node.is_error() && !node.is_missing() {
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.has_error() || child.is_missing() {
                node = child;
                continue 'descend;
            }
        }
        break;
    }
    let (start, end) = (
        node.start_byte().saturating_sub(40),
        (node.end_byte() + 40).min(bytes.len()),
    );
    Some(String::from_utf8_lossy(&bytes[start..end]).into_owned())
}

/// For each node kind of `lang` seen in `inputs` (error-free parts only),
/// replaces up to three of its nodes by Φ, one at a time, and reparses.
/// Returns the kinds seen and the failures (kind, rendered text).
fn phi_failures(
    lang: Lang,
    inputs: &[Vec<u8>],
) -> (BTreeMap<&'static str, usize>, Vec<(&'static str, String)>) {
    let mut seen = BTreeMap::new();
    let mut failures = Vec::new();
    for input in inputs {
        assert_eq!(first_error(lang, input), None, "fixture does not parse");
        let tree = build_tree(input, lang, &Strategy::Hdd.options());
        for id in tree.preorder() {
            let count = seen.entry(tree.node(id).kind).or_insert(0);
            *count += 1;
            if *count > 3 || id == tree.root() {
                continue;
            }
            let out = render(&tree, &|n| (n == id).then_some(Change::Phi));
            if has_error(lang, &out) {
                let at = out.iter().zip(input).position(|(a, b)| a != b);
                let at = at.unwrap_or(out.len().min(input.len()));
                let window = &out[at.saturating_sub(60)..(at + 60).min(out.len())];
                let text = format!(
                    "Φ = {:?} in …{}…",
                    tree.phi(id),
                    String::from_utf8_lossy(window)
                );
                failures.push((tree.node(id).kind, text));
            }
        }
    }
    (seen, failures)
}

fn check_phis(lang: Lang, inputs: &[Vec<u8>], min_kinds: usize) {
    let (seen, failures) = phi_failures(lang, inputs);
    let kinds: Vec<&str> = failures.iter().map(|f| f.0).collect();
    assert!(
        failures.is_empty(),
        "Φ rejected for {kinds:?}; first:\n{}",
        failures[0].1
    );
    assert!(seen.len() >= min_kinds, "only {} kinds covered", seen.len());
}

#[test]
fn every_rust_kind_phi_parses_in_context() {
    let mut inputs = crate_sources();
    inputs.push(fixture("kinds.rs"));
    check_phis(Lang::Rust, &inputs, 200);
}

#[test]
fn every_js_kind_phi_parses_in_context() {
    check_phis(Lang::JavaScript, &[fixture("kinds.js")], 150);
}

#[test]
fn trees_render_back_to_their_input() {
    for (lang, input) in [
        (Lang::Rust, fixture("kinds.rs")),
        (Lang::JavaScript, fixture("kinds.js")),
        (Lang::Text, fixture("kinds.js")),
        (Lang::Rust, b"fn broken( {".to_vec()),
    ] {
        let mut tree = build_tree(&input, lang, &Strategy::Hdd.options());
        assert_eq!(render_tree(&tree), input, "{lang}");
        flatten(&mut tree);
        squeeze(&mut tree);
        assert_eq!(render_tree(&tree), input, "{lang} after transforms");
    }
}

/// Runs `reduce` with an in-memory oracle; returns the output and tests.
fn reduce_with(
    input: &[u8],
    lang: Lang,
    strategy: Strategy,
    oracle: &(dyn Fn(&[u8]) -> bool + Sync),
) -> (Vec<u8>, u64) {
    let run = Reducer::new();
    let oracle = |c: &Candidate<'_, u8>| oracle(&c.to_vec());
    let out = reduce(input, lang, &strategy, &oracle, &run).unwrap();
    assert!(out.is_minimal());
    (out.atoms, run.tests())
}

const RUST_INPUT: &str = "use std::fmt;\n\nfn helper(x: u32) -> u32 {\n    x + 1\n}\n\nfn main() {\n    let a = helper(2);\n    let b = vec![a, 3];\n    if a > 2 {\n        println!(\"{}\", b.len());\n    }\n    let c: Option<u8> = None;\n    c.unwrap();\n}\n";

/// Interesting: parses without error and still calls `unwrap`.
fn calls_unwrap(bytes: &[u8]) -> bool {
    !has_error(Lang::Rust, bytes) && bytes.windows(8).any(|w| w == b".unwrap(")
}

/// Every node of `output`'s own tree, replaced by Φ, either leaves the
/// text as it is or loses the failure (1-tree-minimality).
fn assert_tree_minimal(
    output: &[u8],
    lang: Lang,
    strategy: &Strategy,
    oracle: &dyn Fn(&[u8]) -> bool,
) {
    let tree = build_tree(output, lang, &strategy.options());
    for id in tree.preorder() {
        let out = render(&tree, &|n| (n == id).then_some(Change::Phi));
        assert!(
            out == output || !oracle(&out),
            "removing {} still fails:\n{}",
            tree.node(id).kind,
            String::from_utf8_lossy(&out)
        );
    }
}

#[test]
fn hdd_star_is_one_tree_minimal() {
    for strategy in [Strategy::HddStar, Strategy::CoarseThenHdd, Strategy::Best] {
        let (out, tests) = reduce_with(RUST_INPUT.as_bytes(), Lang::Rust, strategy, &calls_unwrap);
        assert!(calls_unwrap(&out));
        assert_tree_minimal(&out, Lang::Rust, &strategy, &calls_unwrap);
        assert!(tests < 200, "{strategy}: {tests} tests");
    }
}

#[test]
fn best_renames_and_shrinks_and_keeps_layout() {
    let oracle = |b: &[u8]| {
        let s = String::from_utf8_lossy(b);
        !has_error(Lang::Rust, b)
            && s.contains("fn ")
            && s.contains("let")
            && s.contains(|c: char| c.is_ascii_digit())
    };
    let (out, _) = reduce_with(
        b"fn main() {\n    let counter = 12345;\n    other();\n}\n",
        Lang::Rust,
        Strategy::Custom(Options {
            tokens: false,
            layout: false,
            ..Strategy::Best.options()
        }),
        &oracle,
    );
    assert_eq!(
        String::from_utf8_lossy(&out),
        "fn a() {\n    let a = 0;\n}\n"
    );
}

#[test]
fn hoisting_replaces_a_call_by_its_argument() {
    let oracle = |b: &[u8]| {
        let s = String::from_utf8_lossy(b);
        !has_error(Lang::JavaScript, b) && s.contains("g(") && !s.contains("f(")
    };
    let input = b"f(f(g(1)));\n";
    let (out, _) = reduce_with(input, Lang::JavaScript, Strategy::Best, &oracle);
    assert_eq!(String::from_utf8_lossy(&out), "g()");
}

/// `h(x) + 1` is a binary expression, `x` an identifier: different kinds
/// of one supertype (`_expression`), so hoisting can put the one in the
/// other's place, which neither HDD (Φ of a binary expression is not `x`)
/// nor same-kind hoisting can.
#[test]
fn hoisting_crosses_kinds_of_a_supertype() {
    let oracle = |b: &[u8]| {
        let s = String::from_utf8_lossy(b);
        !has_error(Lang::Rust, b) && s.contains("planted") && !s.contains("h(")
    };
    let input = b"fn f() -> u32 {\n    h(planted) + 1\n}\n";
    let options = Options {
        canonicalize: false,
        tokens: false,
        layout: false,
        ..Strategy::Best.options()
    };
    let (out, _) = reduce_with(input, Lang::Rust, Strategy::Custom(options), &oracle);
    // `best` keeps optional groups off: `->` and the type go only
    // together, which HDD alone cannot do.
    assert_eq!(
        String::from_utf8_lossy(&out),
        "fn a() -> a {\n    planted\n}\n"
    );
}

/// Options of `best` without the final token pass and layout, so a
/// test sees what hoisting and plain expressions alone do.
fn structural() -> Strategy {
    Strategy::Custom(Options {
        tokens: false,
        layout: false,
        ..Strategy::Best.options()
    })
}

/// `g(…)` and `h` must stay, so deleting `f`'s declaration fails; only
/// unwrapping (its block's statements in its place) can remove `f`.
#[test]
fn unwrapping_puts_a_block_s_statements_in_the_place_of_its_owner() {
    let oracle = |b: &[u8]| {
        let s = String::from_utf8_lossy(b);
        !has_error(Lang::JavaScript, b) && s.contains("g(") && s.contains("function h")
    };
    let input = b"function f() {\n  g(1);\n  function h() {}\n}\nf();\n";
    let (out, _) = reduce_with(input, Lang::JavaScript, structural(), &oracle);
    assert_eq!(String::from_utf8_lossy(&out), "g();\n  function h() {}\n");
}

/// An argument that must stay becomes `0`, not a one-letter name: the
/// function it named can then go.
#[test]
fn plain_expressions_let_definitions_go() {
    let oracle = |b: &[u8]| {
        let s = String::from_utf8_lossy(b);
        !has_error(Lang::JavaScript, b) && s.contains("g(") && !s.contains("g()")
    };
    let input = b"g(helper);\nfunction helper() { return 1; }\n";
    let (out, _) = reduce_with(input, Lang::JavaScript, structural(), &oracle);
    assert_eq!(String::from_utf8_lossy(&out), "g(0);\n");
}

/// With `early-moves`, a big argument that HDD can only empty statement
/// by statement (a UMD wrapper's factory) is replaced by `0` before HDD
/// runs: the same result in fewer tests.
#[test]
fn early_moves_cut_an_argument_before_hdd_empties_it() {
    let oracle = |b: &[u8]| {
        !has_error(Lang::JavaScript, b) && b.starts_with(b"wrap(") && !b.starts_with(b"wrap()")
    };
    let body: String = (0..24)
        .map(|i| format!("  var v{i} = f{i}(v{i}, {i});\n"))
        .collect();
    let input = format!("wrap(function () {{\n{body}}});\n");
    let late: Strategy = "best,-early-moves".parse().unwrap();
    let (early_out, early_tests) =
        reduce_with(input.as_bytes(), Lang::JavaScript, Strategy::Best, &oracle);
    let (late_out, late_tests) = reduce_with(input.as_bytes(), Lang::JavaScript, late, &oracle);
    assert_eq!(String::from_utf8_lossy(&early_out), "wrap(0)");
    assert_eq!(early_out, late_out);
    assert!(
        early_tests < late_tests,
        "{early_tests} tests against {late_tests}"
    );
}

/// Names in binding places (`let PATTERN`, a function's name) are never
/// replaced by `0`, even where the oracle would allow it.
#[test]
fn plain_expressions_keep_bindings() {
    let oracle = |b: &[u8]| {
        let s = String::from_utf8_lossy(b);
        !has_error(Lang::Rust, b) && s.contains("fn ") && s.contains("let")
    };
    let input = b"fn main() {\n    let counter = other;\n}\n";
    let (out, _) = reduce_with(input, Lang::Rust, structural(), &oracle);
    assert_eq!(
        String::from_utf8_lossy(&out),
        "fn a() {\n    let a = 0;\n}\n"
    );
}

/// A type the failure does not need becomes `()`: a path that only
/// resolves whole (no hoist or rename keeps it, as rustc would say) still
/// goes.
#[test]
fn plain_types_replace_paths() {
    let oracle = |b: &[u8]| {
        let s = String::from_utf8_lossy(b);
        let resolves = s.contains(": std::collections::HashMap<") || s.contains(": ()");
        !has_error(Lang::Rust, b) && s.contains("fn f(x: ") && resolves
    };
    let input = b"fn f(x: std::collections::HashMap<u8, String>) {}\n";
    let (out, _) = reduce_with(input, Lang::Rust, structural(), &oracle);
    assert_eq!(String::from_utf8_lossy(&out), "fn f(x: ());\n");
}

/// `-> T`, `: T` and `= value` are optional sequences of their rules:
/// each is one node with Φ "", so Coarse HDD removes them whole.
#[test]
fn optional_sequences_are_nodes_coarse_hdd_removes() {
    let input = b"fn f() -> u8 {\n    let y: u8 = 1;\n}\n";
    let tree = build_tree(input, Lang::Rust, &Strategy::Hdd.options());
    let groups: Vec<(&str, Vec<u8>)> = tree
        .preorder()
        .into_iter()
        .filter(|&id| is_group(tree.node(id).kind))
        .map(|id| (tree.node(id).kind, render_node(&tree, id)))
        .collect();
    let expected: [(&str, &[u8]); 3] = [
        ("(optional ->)", b"->u8"),
        ("(optional :)", b":u8"),
        ("(optional =)", b"=1"),
    ];
    assert_eq!(groups, expected.map(|(k, t)| (k, t.to_vec())));
    let oracle = |b: &[u8]| {
        let s = String::from_utf8_lossy(b);
        !has_error(Lang::Rust, b) && s.contains("let y")
    };
    let (out, _) = reduce_with(input, Lang::Rust, Strategy::CoarseHdd, &oracle);
    assert_eq!(String::from_utf8_lossy(&out), "fn f() {\n    let y;\n}\n");
    let js = |b: &[u8]| !has_error(Lang::JavaScript, b) && b.starts_with(b"var x");
    let input = b"var x = f(1, 2);\n";
    let (out, _) = reduce_with(input, Lang::JavaScript, Strategy::CoarseHdd, &js);
    assert_eq!(String::from_utf8_lossy(&out), "var x;\n");
}

/// In `sepBy(',', …)` lists an element goes together with a comma, and a
/// removed expression reads as `0` where any expression goes (the slot's
/// Φ), not as the smallest call `a()`.
#[test]
fn hdd_removes_separated_elements_and_uses_slot_phis() {
    let oracle = |b: &[u8]| {
        let s = String::from_utf8_lossy(b);
        !has_error(Lang::Rust, b) && s.contains("keep: u8") && s.contains("let total: u64 =")
    };
    let input = b"fn f(a: u8, keep: u8, c: u8) {\n    let total: u64 = items.iter().sum();\n}\n";
    let (out, _) = reduce_with(input, Lang::Rust, Strategy::Hdd, &oracle);
    assert_eq!(
        String::from_utf8_lossy(&out),
        "fn a(keep: u8) {\n    let total: u64 = 0;\n}\n"
    );
}

/// A name bound once and used once gives way to its value: `f` must get
/// the array, directly or through a variable; the variable may go.
#[test]
fn inlining_moves_a_single_use_value_to_its_use() {
    let oracle = |b: &[u8]| {
        let s = String::from_utf8_lossy(b);
        let Some(arg) = s.split("f(").nth(1).and_then(|r| r.split(')').next()) else {
            return false;
        };
        let bound = |name: &str| s.contains(&format!("var {name} = [7"));
        !has_error(Lang::JavaScript, b) && (arg.starts_with("[7") || bound(arg))
    };
    let input = b"var list = [7, 8];\nf(list);\n";
    let (out, _) = reduce_with(input, Lang::JavaScript, structural(), &oracle);
    assert_eq!(String::from_utf8_lossy(&out), "f([7]);\n");
}

/// `fn f() {}` may end in `;` instead: the sibling kind
/// `function_signature_item` differs from `function_item` only there.
#[test]
fn sibling_kinds_lend_their_phi() {
    let spec = Lang::Rust.spec().unwrap();
    let l = &spec.language;
    let key = (
        l.id_for_node_kind("function_item", true),
        l.id_for_node_kind("block", true),
    );
    assert_eq!(spec.child_phis.get(&key).map(|p| &**p), Some(";"));
    let key = (
        l.id_for_node_kind("struct_item", true),
        l.id_for_node_kind("field_declaration_list", true),
    );
    assert_eq!(spec.child_phis.get(&key).map(|p| &**p), Some(";"));
}

#[test]
fn supertypes_group_the_grammar_s_kinds() {
    let spec = Lang::Rust.spec().unwrap();
    assert!(spec.interchangeable("binary_expression", "identifier"));
    assert!(spec.interchangeable("call_expression", "integer_literal"));
    assert!(!spec.interchangeable("binary_expression", "block_comment"));
    let js = Lang::JavaScript.spec().unwrap();
    assert!(js.interchangeable("call_expression", "identifier"));
    assert!(js.interchangeable("if_statement", "expression_statement"));
    // Nested supertypes: `declaration` and `primary_expression` are
    // members of `statement` and `expression`.
    assert!(js.interchangeable("function_declaration", "expression_statement"));
    assert!(js.interchangeable("binary_expression", "call_expression"));
    // A hidden alias (`_type_identifier`) is a member too.
    assert!(spec.interchangeable("generic_type", "type_identifier"));
}

#[test]
fn text_inputs_reduce_through_brackets_and_lines() {
    let oracle = |b: &[u8]| String::from_utf8_lossy(b).contains("needle");
    let input = b"alpha (beta [gamma] delta)\n{ needle }\nomega\n";
    let (out, tests) = reduce_with(input, Lang::Text, Strategy::Best, &oracle);
    assert_eq!(String::from_utf8_lossy(&out), "needle\n");
    assert!(tests < 30, "{tests} tests");
}

#[test]
fn syntax_errors_still_reduce() {
    let oracle = |b: &[u8]| String::from_utf8_lossy(b).contains("boom");
    let (out, _) = reduce_with(
        b"fn a( { let x = boom; }\nfn b() {}\n",
        Lang::Rust,
        Strategy::Best,
        &oracle,
    );
    assert_eq!(String::from_utf8_lossy(&out).trim(), "boom");
}

#[test]
fn language_detection_uses_extension_then_content() {
    use std::path::Path;
    assert_eq!(Lang::detect(Some(Path::new("a.rs")), b""), Lang::Rust);
    assert_eq!(
        Lang::detect(Some(Path::new("a.mjs")), b""),
        Lang::JavaScript
    );
    assert_eq!(Lang::detect(None, b"fn main() { let x = 1; }"), Lang::Rust);
    assert_eq!(
        Lang::detect(None, b"const x = () => { return 1; };"),
        Lang::JavaScript
    );
    assert_eq!(Lang::detect(None, b"key: [1, 2\n(unbalanced"), Lang::Text);
    assert_eq!(
        Lang::detect(None, b"hello\nneedle"),
        Lang::Text,
        "words alone are text"
    );
}

#[test]
fn strategies_parse_from_their_names() {
    for name in Strategy::NAMES {
        assert_eq!(name.parse::<Strategy>().unwrap().to_string(), name);
    }
    assert!("fancy".parse::<Strategy>().is_err());
    assert!("hdd,squeeze".parse::<Strategy>().is_err());
    assert!("hdd,+fancy".parse::<Strategy>().is_err());
    let thesis: Strategy = "hdd*,+squeeze,+hide".parse().unwrap();
    let options = thesis.options();
    assert!(options.squeeze && options.hide_unremovable && !options.flatten);
    assert_eq!(options.fine, Repeat::Fixpoint);
    assert_eq!(thesis.to_string(), "hdd*,+squeeze,+hide");
    assert_eq!(
        "hdd,-slots".parse::<Strategy>().unwrap().to_string(),
        "hdd,-slots"
    );
    let coarse: Strategy = "coarse-hdd,-flatten".parse().unwrap();
    assert!(!coarse.options().flatten && coarse.options().squeeze);
    assert_eq!(
        "best,-hoist".parse::<Strategy>().unwrap().to_string(),
        "coarse-hdd*,hdd*,-groups,+flatten,+squeeze,+hide,+canon,+inline,+bounds,+early-moves,+tokens,+rounds,+layout"
    );
    let best_groups: Strategy = "best,+groups".parse().unwrap();
    assert!(best_groups.options().groups && !Strategy::Best.options().groups);
}

/// One round's token ddmin drops the `var` of `var a = …`, and its runs
/// of adjacent tokens then the `a =` that single tokens cannot (before
/// them, only a second round, on a fresh parse, found it). With `rounds`,
/// `best` ends on a round that removed no token, so reducing its output
/// again changes nothing.
#[test]
fn rounds_reparse_what_the_token_ddmin_left() {
    let input = b"function g(x) {\n  var a = x.y(1, 2);\n  var b = a;\n  return b;\n}\ng(0);\n";
    let oracle =
        |b: &[u8]| !has_error(Lang::JavaScript, b) && String::from_utf8_lossy(b).contains(".y(");
    let one: Strategy = "best,-rounds,-layout".parse().unwrap();
    let (once, _) = reduce_with(input, Lang::JavaScript, one, &oracle);
    let (best, _) = reduce_with(input, Lang::JavaScript, Strategy::Best, &oracle);
    // Without the layout pass, the removed `;` stays a line break.
    assert_eq!(String::from_utf8_lossy(&once), "0 .y()\n\n");
    assert_eq!(String::from_utf8_lossy(&best), "0 .y()");
    let (again, _) = reduce_with(&best, Lang::JavaScript, Strategy::Best, &oracle);
    assert_eq!(again, best);
}
