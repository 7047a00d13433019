//! Syntax-aware reduction: Hierarchical Delta Debugging and its relatives
//! on tree-sitter trees (Rust, JavaScript) or bracket-and-line trees
//! (other text).
//!
//! The pipeline of [`reduce`], each step switched by [`Options`]:
//! 1. parse ([`tree`], [`text`]) with Φ per node kind ([`phi`]), optional
//!    sequences as nodes ([`optional`]);
//! 2. flatten recursive lists and squeeze single-child chains
//!    ([`transform`]);
//! 3. Coarse HDD, then HDD or HDD* ([`levels`]), through the engine's ddmin
//!    with a rendering adapter ([`tester`], [`edits`]);
//! 4. hoisting descendants of the same kind or supertype, or a list's
//!    fitting elements ([`hoist`]), plain expressions ([`canon`]) and
//!    inlining single-use bindings ([`inline`]), HDD* again after each
//!    change;
//! 5. renaming identifiers and shrinking literals ([`canon`]);
//! 6. ddmin over the remaining tokens.
//!
//! Output keeps each kept token's original whitespace ([`render`]).

pub mod canon;
pub mod edits;
pub mod grammar;
pub mod hoist;
pub mod inline;
pub mod lang;
pub mod levels;
pub mod optional;
pub mod parse;
pub mod pattern;
pub mod phi;
pub mod render;
pub mod slots;
pub mod strategy;
pub mod tester;
pub mod text;
pub mod tokens;
pub mod transform;
pub mod tree;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_real;

pub use lang::Lang;
pub use strategy::{Options, Repeat, Strategy, UnknownStrategy};
pub use tree::Tree;

use crate::engine::ddmin::ReduceError;
use crate::engine::{Context, Oracle, OracleError, Reduction, Start};
use edits::{reduce_edits, Edit};
use levels::{hdd_pass, hdd_star, LevelFilter};
use render::{render_tree, Change};
use tester::Tester;

/// Builds the tree HDD reduces: tree-sitter's for grammar languages (plain
/// text's if the parser gives up), brackets and lines otherwise. Of
/// `options`, `slots` (Φ by the slot a node fills, [`parse::parse`]) and
/// `groups` (optional sequences as nodes, [`parse::wrap_groups`]) shape the tree.
pub fn build_tree(input: &[u8], lang: Lang, options: &Options) -> Tree {
    let Some((spec, mut tree)) = lang
        .spec()
        .and_then(|spec| Some((spec, parse::parse(input, spec, options.slots)?)))
    else {
        return text::parse_text(input);
    };
    if options.groups {
        parse::wrap_groups(&mut tree, &spec.groups);
    }
    tree
}

/// Reduces `input` (known interesting) with `strategy`, testing rendered
/// candidates with `oracle`. The result is the smallest interesting text
/// found and why the run stopped early, if it did; on an oracle error, the
/// error carries the best text found before it.
pub fn reduce(
    input: &[u8],
    lang: Lang,
    strategy: &Strategy,
    oracle: &dyn Oracle<u8>,
    ctx: &Context<'_, u8>,
) -> Result<Reduction<u8>, ReduceError<u8>> {
    let options = strategy.options();
    let tester = Tester::new(oracle, ctx, options.ddmin);
    tester.accept(input);
    let mut best = input.to_vec();
    let outcome = loop {
        let mut tree = build_tree(&best, lang, &options);
        let outcome = pipeline(&mut tree, lang, &options, &tester);
        let text = render_tree(&tree);
        let shrunk = text.len() < best.len();
        if text.len() <= best.len() {
            best = text;
        }
        if outcome.is_err() || !shrunk || !options.rounds || tester.stopped() {
            break outcome;
        }
    };
    match outcome {
        Ok(()) => Ok(Reduction {
            atoms: best,
            stopped: ctx.limits.stop_reason(),
        }),
        Err(source) => Err(ReduceError { best, source }),
    }
}

fn pipeline(
    tree: &mut Tree,
    lang: Lang,
    options: &Options,
    tester: &Tester,
) -> Result<(), OracleError> {
    if options.flatten {
        transform::flatten(tree);
    }
    if options.squeeze {
        transform::squeeze(tree);
    }
    let filter = |coarse| LevelFilter {
        coarse,
        hide_unremovable: options.hide_unremovable,
    };
    tester.step("coarse-hdd");
    run(tree, options.coarse, filter(true), tester)?;
    tester.step("hdd");
    run(tree, options.fine, filter(false), tester)?;
    moves(tree, lang, options, filter(false), tester)?;
    last_steps(tree, lang, options, tester)
}

/// Hoisting, plain expressions and inlining, with HDD* after each change,
/// until none applies.
fn moves(
    tree: &mut Tree,
    lang: Lang,
    options: &Options,
    filter: LevelFilter,
    tester: &Tester,
) -> Result<(), OracleError> {
    let canon = lang.spec().filter(|_| options.canonicalize);
    let inline = lang.spec().filter(|_| options.inline);
    loop {
        let mut changed = false;
        if options.hoist {
            tester.step("hoist");
            changed |= hoist::hoist_pass(tree, lang.spec(), tester)?;
        }
        if let Some(spec) = canon {
            tester.step("plain");
            changed |= canon::plain_expressions(tree, spec, tester)?;
        }
        if let Some(spec) = inline {
            tester.step("inline");
            changed |= inline::inline_pass(tree, spec, tester)?;
        }
        if !changed || tester.stopped() {
            return Ok(());
        }
        tester.step("hdd");
        hdd_star(tree, filter, Start::Atoms, tester)?;
    }
}

/// Renaming, literal shrinking and the token ddmin. With `rounds` the
/// pipeline then starts again on the reparsed text: on the same tree the
/// moves found nothing new (15–25% more tests, same outputs), on a fresh
/// parse they see what the token ddmin left (underscore: 135 → 93 tokens).
fn last_steps(
    tree: &mut Tree,
    lang: Lang,
    options: &Options,
    tester: &Tester,
) -> Result<(), OracleError> {
    if let Some(spec) = lang.spec().filter(|_| options.canonicalize) {
        tester.step("rename");
        canon::rename_identifiers(tree, spec, tester)?;
        tester.step("literals");
        canon::shrink_literals(tree, spec, tester)?;
    }
    if options.tokens {
        tester.step("tokens");
        token_pass(tree, tester)?;
    }
    Ok(())
}

fn run(
    tree: &mut Tree,
    repeat: Repeat,
    filter: LevelFilter,
    tester: &Tester,
) -> Result<bool, OracleError> {
    match repeat {
        Repeat::Never => Ok(false),
        Repeat::Once => hdd_pass(tree, filter, Start::Halves, tester),
        Repeat::Fixpoint => hdd_star(tree, filter, Start::Halves, tester),
    }
}

/// ddmin over the remaining tokens, a removed token reading as nothing.
fn token_pass(tree: &mut Tree, tester: &Tester) -> Result<bool, OracleError> {
    let empty = tree.intern("");
    let edits: Vec<Edit> = tree
        .preorder()
        .into_iter()
        .filter(|&id| tree.leaf_text(id).is_some_and(|t| !t.is_empty()))
        .map(|id| vec![(id, Change::Text(empty))])
        .collect();
    // Halves, not single tokens: what is left often goes only in pairs
    // (`: u64`), which single-token complements never find.
    reduce_edits(tree, edits, Start::Halves, tester)
}
