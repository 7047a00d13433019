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
//! - `macro_rules/`: one step of a `macro_rules!` expansion, no trees;
//! - `tree/`: the arena [`Tree`] and what works on it knowing no grammar:
//!   rendering, bracket-and-line trees of plain text, the transforms;
//! - `parse.rs`: tree-sitter's parse turned into the arena, Φ from the
//!   [`Spec`], optional groups wrapped as nodes;
//! - `strategy.rs`: which parts run ([`Options`]), by name ([`Strategy`]);
//! - `passes/`: the reduction passes, testing rendered candidates, and
//!   their registry (`passes/registry.rs`): each pass's stage, step,
//!   switch and languages;
//! - this file: [`build_tree`] and the pipeline of [`reduce`].
//!
//! The pipeline of [`reduce`], in rounds, each on a fresh parse (with Φ
//! per node kind and slot, optional sequences as nodes, recursive lists
//! flattened and single-child chains squeezed as [`Options`] ask); a
//! round runs the registry's stages in turn:
//! 1. the opening moves (Rust's module-declaring macro calls unwrapped);
//! 2. HDD's levels: Coarse HDD, then HDD or HDD*, through the engine's
//!    ddmin with a rendering adapter (`passes/render_oracle.rs`,
//!    `passes/edits.rs`);
//! 3. the moves (hoisting and the other restructuring moves, plain
//!    expressions, inlining, bounds), with HDD* again after each change,
//!    until none applies;
//! 4. names and literals: renaming, types by declared names, typed
//!    zeros, shrinking literals;
//! 5. the token ddmin, on a fresh parse, unless the round left the text
//!    the last one did.
//!
//! Rounds go on while one removes tokens (the `rounds` part). After the
//! last, the final stage: the whitespace between tokens cut to what the
//! lexer needs, then, if asked, the result pretty-printed where that
//! keeps the failure. Until then, output keeps each kept token's original
//! whitespace (`tree/render.rs`).

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

pub(crate) use lang::LangChoice;
pub use lang::{Lang, Spec, UnknownLang};
pub(crate) use parse::parse_rust;
/// rustfmt's command line, for the ICE mode's `--pretty` too.
pub(crate) use passes::rustfmt;
/// `--strategy`'s help, its names and parts from the registry.
#[cfg(feature = "cli")]
pub(crate) use strategy::strategy_help;
pub use strategy::{Options, Repeat, Strategy, UnknownStrategy};
/// A text's tokens as the benchmarks count them, for the progress
/// messages' sizes.
pub(crate) use tokens::count as count_tokens;
pub use tree::{flatten, squeeze, Tree};

use crate::engine::ddmin::ReduceError;
use crate::engine::{Context, Oracle, OracleError, Reducer, Reduction};
use passes::{
    run_text_stage, run_tree_stage, shape, spelled_zeros, stage_runs, Stage, Tester, TreeWork,
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
            // the structure they just saw.
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
    run_text_stage(Stage::Final, best, lang, options, tester)
}

/// What a round of the pipeline takes from the reduction.
struct Round<'a> {
    /// The typed zeros the input spells (`passes/core/simplify.rs`).
    zeros: &'a [String],
    /// The text the previous round ended on, if there was one: its token
    /// pass's output, as that pass is a round's last step. A round whose
    /// other passes changed nothing (the last round, most often) skips
    /// the pass, which would try the same removals again.
    previous: Option<&'a [u8]>,
}

/// One round: the opening moves, HDD, the moves, the last steps; with
/// `early_moves`, coarse HDD and the moves first, so that fine HDD starts
/// on what the moves cut.
fn pipeline(
    tree: &mut Tree,
    lang: Lang,
    options: &Options,
    round: Round<'_>,
    tester: &Tester,
) -> Result<(), OracleError> {
    let reparse = |tree: &Tree| build_tree(&render_tree(tree), lang, options);
    let mut work = TreeWork {
        tree,
        lang,
        options,
        tester,
        zeros: round.zeros,
        reparse: &reparse,
    };
    run_tree_stage(Stage::Opening, &mut work)?;
    shape(work.tree, options);
    run_tree_stage(Stage::CoarseLevels, &mut work)?;
    if options.early_moves && options.fine != Repeat::Never {
        moves(&mut work)?;
        run_tree_stage(Stage::CoarseLevels, &mut work)?;
    }
    run_tree_stage(Stage::Levels, &mut work)?;
    moves(&mut work)?;
    last_steps(&mut work, round.previous)
}

/// The moves, with HDD* after each change, until none applies.
fn moves(work: &mut TreeWork<'_, '_>) -> Result<(), OracleError> {
    loop {
        let changed = run_tree_stage(Stage::Moves, work)?;
        if !changed || work.tester.stopped() {
            return Ok(());
        }
        run_tree_stage(Stage::AfterMoves, work)?;
    }
}

/// Renaming, literal shrinking and the token ddmin. With `rounds` the
/// pipeline then starts again on the reparsed text: on the same tree the
/// moves found nothing new, on a fresh parse they see what the token
/// ddmin left (docs/design/syntax.md).
fn last_steps(work: &mut TreeWork<'_, '_>, previous: Option<&[u8]>) -> Result<(), OracleError> {
    run_tree_stage(Stage::Spelling, work)?;
    if !stage_runs(Stage::Tokens, work.lang, work.options) {
        return Ok(());
    }
    let text = render_tree(work.tree);
    if previous != Some(&text[..]) {
        // On a fresh parse: a move may have left one leaf of several
        // tokens (an inserted `use a::b;`), whose parts the pass would
        // see only in the next round.
        *work.tree = build_tree(&text, work.lang, work.options);
        run_tree_stage(Stage::Tokens, work)?;
    }
    Ok(())
}
