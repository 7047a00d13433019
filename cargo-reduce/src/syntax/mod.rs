//! Syntax-aware reduction: Hierarchical Delta Debugging and its relatives
//! on tree-sitter trees (Rust, JavaScript) or bracket-and-line trees
//! (other text).
//!
//! The modules are layers; each imports only from the ones before it:
//! - `tokens.rs`: the one lexical rule both bottom layers share (which
//!   pieces of text fuse into one token);
//! - `grammar/`: grammar analysis, no trees: `grammar.json` read, Φ per
//!   node kind, Φ per slot, list separators, optional groups;
//! - `lang.rs`: [`Lang`] and its [`Spec`], a language's grammar analysis
//!   and tree-sitter language, built once per process;
//! - `tree/`: the arena [`Tree`] and what works on it knowing no grammar:
//!   rendering, bracket-and-line trees of plain text, the transforms;
//! - `parse.rs`: tree-sitter's parse turned into the arena, Φ from the
//!   [`Spec`], optional groups wrapped as nodes;
//! - `passes/`: the reduction passes, testing rendered candidates;
//! - `strategy.rs`: which steps run ([`Options`]), by name ([`Strategy`]);
//! - this file: [`build_tree`] and the pipeline of [`reduce`].
//!
//! The pipeline of [`reduce`], each step switched by [`Options`]:
//! 1. parse (`parse.rs`, or `tree/text.rs` for plain text) with Φ per node
//!    kind (`grammar/phi.rs`, `grammar/slots.rs`), optional sequences as
//!    nodes (`grammar/groups.rs`);
//! 2. flatten recursive lists and squeeze single-child chains
//!    (`tree/transform.rs`);
//! 3. Coarse HDD, then HDD or HDD* (`passes/levels.rs`), through the
//!    engine's ddmin with a rendering adapter (`passes/render_oracle.rs`,
//!    `passes/edits.rs`);
//! 4. hoisting descendants of the same kind or supertype (Rust: also as
//!    a slice, `[X]`), or a list's fitting elements (`passes/hoist.rs`;
//!    Rust: opening modules, importing repeated paths, unwrapping
//!    newtypes, `u8` for unit structs), plain expressions
//!    (`passes/simplify.rs`), inlining single-use bindings and
//!    JavaScript calls (`passes/inline.rs`, `passes/calls.rs`) and folding
//!    `where` clauses (`passes/bounds.rs`), HDD* again after each change;
//! 5. renaming identifiers, types by declared names, typed zeros and
//!    shrinking literals (`passes/simplify.rs`);
//! 6. ddmin over the remaining tokens, then `::` cut to `:` and `{}` made
//!    `;` where the failure allows (`passes/edits.rs`), on a fresh parse,
//!    unless the round left the text the last one did;
//! 7. after the last round, the whitespace between tokens cut to what
//!    the lexer needs (`passes/layout.rs`), then, if asked, the result
//!    pretty-printed where that keeps the failure (`passes/format.rs`).
//!
//! Until step 7, output keeps each kept token's original whitespace
//! (`tree/render.rs`).

mod grammar;
mod lang;
mod macro_rules;
mod parse;
mod passes;
mod strategy;
mod tokens;
mod tree;

#[cfg(test)]
mod tests;

pub use lang::{Lang, Spec, UnknownLang};
/// rustfmt's command line, for the ICE mode's `--pretty` too.
pub(crate) use passes::rustfmt;
pub use strategy::{Options, Repeat, Strategy, UnknownStrategy};
pub use tree::{flatten, squeeze, Tree};

use crate::engine::ddmin::ReduceError;
use crate::engine::{Context, Oracle, OracleError, Reducer, Reduction, Start};
use passes::{
    bounds_pass, calls_pass, declared_types, expand_pass, format_pass, hdd_pass, hdd_star,
    hoist_pass, inline_pass, layout_pass, macros_pass, modules_pass, newtypes_pass,
    plain_expressions, rename_identifiers, shrink_literals, spelled_zeros, token_pass,
    typed_literals, uses_pass, Groups, Growth, LevelFilter, Tester,
};
use tree::render_tree;

/// Builds the tree HDD reduces: tree-sitter's for grammar languages (plain
/// text's if the parser gives up), brackets and lines otherwise. Of
/// `options`, `slots` (Φ by the slot a node fills, `parse::parse`) and
/// `groups` (optional sequences as nodes, `parse::wrap_groups`) shape the
/// tree.
///
/// ```
/// use cargo_reduce::syntax::{build_tree, Lang, Strategy};
///
/// let tree = build_tree(b"f(a, [b c])\nd\n", Lang::Text, &Strategy::Best.options());
/// let leaves = tree.preorder().into_iter().filter(|&n| tree.leaf_text(n).is_some()).count();
/// assert!(leaves >= 4 && tree.children(tree.root()).len() == 2); // two lines
/// ```
pub fn build_tree(input: &[u8], lang: Lang, options: &Options) -> Tree {
    let Some((spec, mut tree)) = lang
        .spec()
        .and_then(|spec| Some((spec, parse::parse(input, spec, options.slots)?)))
    else {
        return tree::parse_text(input);
    };
    if options.groups {
        parse::wrap_groups(&mut tree, &spec.groups);
    }
    tree
}

/// Reduces `input` (known interesting) with `strategy`, testing rendered
/// candidates with `oracle`, with `reducer`'s jobs, limits and cache. The
/// result is the smallest interesting text found and why the run stopped
/// early, if it did; on an oracle error, the error carries the best text
/// found before it.
///
/// ```
/// use cargo_reduce::syntax::{self, Lang, Strategy};
/// use cargo_reduce::{Candidate, Reducer};
///
/// let source = b"fn main() { let unused = 1; let x: u8 = 300; }";
/// let oracle = |c: &Candidate<'_, u8>| c.to_vec().windows(3).any(|w| w == b"300");
/// let strategy: Strategy = "best".parse().unwrap();
/// let reduced = syntax::reduce(source, Lang::Rust, &strategy, &oracle, &Reducer::new()).unwrap();
/// assert!(reduced.atoms.len() < 10);
/// ```
pub fn reduce(
    input: &[u8],
    lang: Lang,
    strategy: &Strategy,
    oracle: &dyn Oracle<u8>,
    reducer: &Reducer,
) -> Result<Reduction<u8>, ReduceError<u8>> {
    reduce_in(input, lang, strategy, oracle, &reducer.context())
}

/// [`reduce`] inside a running reduction's context (its observer and
/// counters), as the job layer calls it.
pub(crate) fn reduce_in(
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
    let zeros = lang
        .spec()
        .map_or_else(Vec::new, |spec| spelled_zeros(input, spec));
    let mut first = true;
    // Each round on a fresh parse of the text the last one ended on.
    let mut tree = build_tree(&best, lang, &options);
    let outcome = loop {
        let tokens_before = tree.tokens().len();
        let round = Round {
            zeros: &zeros,
            previous: (!first).then_some(&best[..]),
        };
        let outcome = pipeline(&mut tree, lang, &options, round, &tester);
        first = false;
        let text = render_tree(&tree);
        let mut removed = false;
        if text.len() <= best.len() {
            // Only a round that removed tokens calls for another: one
            // that only renamed or shortened spellings leaves the passes
            // the structure they just saw (arrayvec's ICE: 813 → 745
            // tests, same output).
            tree = build_tree(&text, lang, &options);
            removed = tree.tokens().len() < tokens_before;
            best = text;
        }
        if outcome.is_err() || !removed || !options.rounds || tester.stopped() {
            break outcome;
        }
    };
    let outcome = outcome.and_then(|()| finish(&mut best, lang, &options, &tester));
    match outcome {
        Ok(()) => Ok(Reduction {
            atoms: best,
            stopped: ctx.limits.stop_reason(),
        }),
        Err(source) => Err(ReduceError { best, source }),
    }
}

/// The steps on the final text: its layout, then pretty-printing.
fn finish(
    best: &mut Vec<u8>,
    lang: Lang,
    options: &Options,
    tester: &Tester,
) -> Result<(), OracleError> {
    if let Some(spec) = lang.spec().filter(|_| options.layout) {
        tester.step("layout");
        layout_pass(best, spec, tester)?;
    }
    if options.format && !tester.stopped() {
        tester.step("format");
        format_pass(best, lang, tester)?;
    }
    Ok(())
}

/// What a round of the pipeline takes from the reduction.
struct Round<'a> {
    /// The typed zeros the input spells (`passes/simplify.rs`).
    zeros: &'a [String],
    /// The text the previous round ended on, if there was one: its token
    /// pass's output, as that pass is a round's last step. A round whose
    /// other passes changed nothing (the last round, most often) skips
    /// the pass, which would try the same removals again (anstyle's ICE:
    /// 84 of 871 tests, none kept).
    previous: Option<&'a [u8]>,
}

/// One round: HDD, the moves, the last steps.
fn pipeline(
    tree: &mut Tree,
    lang: Lang,
    options: &Options,
    round: Round<'_>,
    tester: &Tester,
) -> Result<(), OracleError> {
    if options.hoist && lang == Lang::Rust {
        tester.step("macros");
        while macros_pass(tree, Groups::DeclaringModules, tester)? {
            // The call's place holds the group's tokens: parsed again, the
            // modules it declared are items, and the calls in them calls.
            *tree = build_tree(&render_tree(tree), lang, options);
        }
        while expand_pass(tree, Growth::Definition, tester)? {
            *tree = build_tree(&render_tree(tree), lang, options);
        }
    }
    shape(tree, options);
    let filter = |coarse| LevelFilter {
        coarse,
        hide_unremovable: options.hide_unremovable,
    };
    tester.step("coarse-hdd");
    run(tree, options.coarse, filter(true), tester)?;
    tester.step("hdd");
    run(tree, options.fine, filter(false), tester)?;
    moves(tree, lang, options, filter(false), tester)?;
    last_steps(tree, lang, options, round, tester)
}

/// The thesis' transforms a strategy asks for, on a freshly parsed tree.
fn shape(tree: &mut Tree, options: &Options) {
    if options.flatten {
        flatten(tree);
    }
    if options.squeeze {
        squeeze(tree);
    }
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
            changed |= hoist_pass(tree, lang.spec(), tester)?;
            if lang == Lang::Rust {
                changed |= modules_pass(tree, tester)?;
                changed |= macros_pass(tree, Groups::All, tester)?;
                while expand_pass(tree, Growth::None, tester)? {
                    // The expansions are text: parsed again, they are
                    // items and statements for the passes that follow.
                    *tree = build_tree(&render_tree(tree), lang, options);
                    shape(tree, options);
                    changed = true;
                }
                changed |= uses_pass(tree, tester)?;
                changed |= newtypes_pass(tree, tester)?;
            }
        }
        if let Some(spec) = canon {
            tester.step("plain");
            changed |= plain_expressions(tree, spec, tester)?;
        }
        if let Some(spec) = inline {
            tester.step("inline");
            changed |= inline_pass(tree, spec, tester)?;
            if lang == Lang::JavaScript {
                tester.step("calls");
                changed |= calls_pass(tree, tester)?;
            }
        }
        if options.bounds && lang == Lang::Rust {
            tester.step("bounds");
            changed |= bounds_pass(tree, tester)?;
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
    round: Round<'_>,
    tester: &Tester,
) -> Result<(), OracleError> {
    if let Some(spec) = lang.spec().filter(|_| options.canonicalize) {
        tester.step("rename");
        rename_identifiers(tree, spec, tester)?;
        tester.step("types");
        declared_types(tree, spec, tester)?;
        typed_literals(tree, spec, round.zeros, tester)?;
        tester.step("literals");
        shrink_literals(tree, spec, tester)?;
    }
    if !options.tokens {
        return Ok(());
    }
    let text = render_tree(tree);
    if round.previous != Some(&text[..]) {
        // On a fresh parse: a move may have left one leaf of several
        // tokens (an inserted `use a::b;`), whose parts the pass would
        // see only in the next round.
        *tree = build_tree(&text, lang, options);
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
