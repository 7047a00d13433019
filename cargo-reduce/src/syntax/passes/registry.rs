//! The registry of passes: each pass declared once, with the stage of the
//! pipeline it belongs to, the step it reports its tests under, what
//! switches it on, the languages it runs on and the function that runs it.
//!
//! The pipeline (`syntax/mod.rs`) runs a stage's passes in the order of
//! [`PASSES`]; docs/syntax.md's table of passes is rendered from it (and a
//! unit test fails, with the new text, when the two differ), and the parts
//! of `--strategy` come from [`Part`].

use crate::engine::{OracleError, Start};
use crate::syntax::lang::{Lang, Spec};
use crate::syntax::passes::core::format::format_pass;
use crate::syntax::passes::core::hoist::hoist_pass;
use crate::syntax::passes::core::inline::inline_pass;
use crate::syntax::passes::core::layout::layout_pass;
use crate::syntax::passes::core::levels::{hdd_pass, hdd_star, LevelFilter};
use crate::syntax::passes::core::simplify::{
    declared_types, plain_expressions, rename_identifiers, shrink_literals, typed_literals,
};
use crate::syntax::passes::core::tokens::token_pass;
use crate::syntax::passes::js::calls::calls_pass;
use crate::syntax::passes::render_oracle::Tester;
use crate::syntax::passes::rust::bounds::bounds_pass;
use crate::syntax::passes::rust::macros::{expand_pass, macros_pass, Groups, Growth};
use crate::syntax::passes::rust::modules::modules_pass;
use crate::syntax::passes::rust::newtypes::newtypes_pass;
use crate::syntax::passes::rust::uses::uses_pass;
use crate::syntax::strategy::{Options, Part, Repeat};
use crate::syntax::tree::{flatten, squeeze, Tree};

/// Where in a round of the pipeline a pass runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    /// On each round's fresh parse, before HDD.
    Opening,
    /// Coarse HDD over the tree's levels (with `early-moves`, once before
    /// the early moves and once after them).
    CoarseLevels,
    /// HDD over the tree's levels.
    Levels,
    /// The moves, again and again, with [`Stage::AfterMoves`] after each
    /// time one changed the tree, until none does.
    Moves,
    /// After moves that changed the tree.
    AfterMoves,
    /// Once per round, after the moves: names and literals.
    Spelling,
    /// Last in a round, on a fresh parse, unless the round left the text
    /// the previous one ended on.
    Tokens,
    /// After the last round, on the text.
    Final,
}

/// What switches a pass on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Switch {
    /// Every run of its stage runs it; Coarse HDD and HDD run as often as
    /// the strategy's name says ([`Options::coarse`], [`Options::fine`]).
    Always,
    /// A part of the strategy.
    Part(Part),
}

/// How a pass is called.
#[derive(Clone, Copy)]
pub(crate) enum Run {
    /// On the tree; returns whether the text got shorter.
    Tree(fn(&mut TreeWork<'_, '_>) -> Result<bool, OracleError>),
    /// On the final text.
    Text(fn(&mut Vec<u8>, Lang, &Tester<'_>) -> Result<(), OracleError>),
}

/// One pass of the pipeline.
pub(crate) struct Pass {
    /// The step its tests are charged to (the JSON `steps`, `-v`'s lines).
    pub(crate) step: &'static str,
    pub(crate) stage: Stage,
    pub(crate) switch: Switch,
    pub(crate) langs: &'static [Lang],
    /// What it does, for docs/syntax.md's table.
    #[cfg_attr(not(test), expect(dead_code, reason = "read by the docs table's test"))]
    pub(crate) does: &'static str,
    /// Not run once the limits have stopped the reduction (it would run
    /// a program that is not the oracle).
    pub(crate) skipped_once_stopped: bool,
    pub(crate) run: Run,
}

/// What a pass on the tree works with.
pub(crate) struct TreeWork<'w, 'a> {
    pub(crate) tree: &'w mut Tree,
    pub(crate) lang: Lang,
    pub(crate) options: &'w Options,
    pub(crate) tester: &'w Tester<'a>,
    /// The typed zeros the input spells (`core/simplify.rs`).
    pub(crate) zeros: &'w [String],
    /// A fresh parse of the tree's rendered text, as the round's first
    /// parse was built (for a pass whose result is text, such as a
    /// macro's expansion).
    pub(crate) reparse: &'w dyn Fn(&Tree) -> Tree,
}

impl TreeWork<'_, '_> {
    /// The language's grammar: the passes that read it are declared for
    /// [`GRAMMARS`] only.
    fn spec(&self) -> &'static Spec {
        self.lang
            .spec()
            .expect("a pass that reads the grammar runs on grammar languages only")
    }

    /// The tree parsed again from its text.
    fn reparse(&mut self) {
        *self.tree = (self.reparse)(self.tree);
    }
}

/// Every language.
const ALL: &[Lang] = &[Lang::Rust, Lang::JavaScript, Lang::Text];
/// The languages with a grammar ([`Lang::spec`]).
const GRAMMARS: &[Lang] = &[Lang::Rust, Lang::JavaScript];
const RUST: &[Lang] = &[Lang::Rust];
const JS: &[Lang] = &[Lang::JavaScript];

/// A pass of `stage` on the tree, run however the reduction stands.
const fn on_tree(
    step: &'static str,
    stage: Stage,
    switch: Switch,
    langs: &'static [Lang],
    does: &'static str,
    run: fn(&mut TreeWork<'_, '_>) -> Result<bool, OracleError>,
) -> Pass {
    Pass {
        step,
        stage,
        switch,
        langs,
        does,
        skipped_once_stopped: false,
        run: Run::Tree(run),
    }
}

const RESTRUCTURE: Switch = Switch::Part(Part::Restructure);

/// Every pass, in the order the pipeline runs them within a stage.
pub(crate) const PASSES: &[Pass] = &[
    on_tree(
        "macros",
        Stage::Opening,
        RESTRUCTURE,
        RUST,
        "macro calls whose braced group declares a module unwrapped, then a crate's own macros expanded where the text grows by less than the definition, the text parsed again after each",
        macros_before_hdd,
    ),
    on_tree(
        "coarse-hdd",
        Stage::CoarseLevels,
        Switch::Always,
        ALL,
        "Coarse HDD: ddmin over each level's nodes whose Φ is empty (`coarse-hdd`, `coarse-hdd+hdd`, `best`)",
        |w| levels(w, w.options.coarse, true),
    ),
    on_tree(
        "hdd",
        Stage::Levels,
        Switch::Always,
        ALL,
        "HDD: ddmin over each level's nodes (`hdd`; HDD\\* in `hdd*`, `coarse-hdd+hdd`, `best`)",
        |w| levels(w, w.options.fine, false),
    ),
    on_tree(
        "hoist",
        Stage::Moves,
        RESTRUCTURE,
        ALL,
        "a node replaced by a descendant that fits in its place, a list element by the elements of a list inside it (Rust: a type also by a slice of one inside it; JavaScript: a statement also by an expression inside it, as `e;`)",
        |w| hoist_pass(w.tree, w.lang.spec(), w.tester),
    ),
    on_tree(
        "hoist",
        Stage::Moves,
        RESTRUCTURE,
        RUST,
        "a module's items in its place, its name dropped from the paths through it",
        |w| modules_pass(w.tree, w.tester),
    ),
    on_tree(
        "hoist",
        Stage::Moves,
        RESTRUCTURE,
        RUST,
        "a macro call replaced by what one of its braced groups holds",
        |w| macros_pass(w.tree, Groups::All, w.tester),
    ),
    on_tree(
        "hoist",
        Stage::Moves,
        RESTRUCTURE,
        RUST,
        "a crate's own macro expanded at every call and its definition removed, where that is shorter",
        expand_after_hdd,
    ),
    on_tree(
        "hoist",
        Stage::Moves,
        RESTRUCTURE,
        RUST,
        "a path spelled twice or more imported once with `use`",
        |w| uses_pass(w.tree, w.tester),
    ),
    on_tree(
        "hoist",
        Stage::Moves,
        RESTRUCTURE,
        RUST,
        "a newtype (`struct W<T>(T);`) unwrapped at every use; a unit struct replaced by `u8` or `()`",
        |w| newtypes_pass(w.tree, w.tester),
    ),
    on_tree(
        "plain",
        Stage::Moves,
        Switch::Part(Part::Canon),
        GRAMMARS,
        "expressions replaced by the plainest one (`0`), types by the plainest type (Rust: `()`)",
        |w| plain_expressions(w.tree, w.spec(), w.tester),
    ),
    on_tree(
        "inline",
        Stage::Moves,
        Switch::Part(Part::Inline),
        GRAMMARS,
        "a binding used once replaced by its value (JavaScript: property paths too)",
        |w| inline_pass(w.tree, w.spec(), w.tester),
    ),
    on_tree(
        "calls",
        Stage::Moves,
        Switch::Part(Part::Inline),
        JS,
        "a call replaced by the body of the function it calls",
        |w| calls_pass(w.tree, w.tester),
    ),
    on_tree(
        "bounds",
        Stage::Moves,
        Switch::Part(Part::Bounds),
        RUST,
        "a `where` clause folded into the generic parameters (`<T: …>`)",
        |w| bounds_pass(w.tree, w.tester),
    ),
    on_tree(
        "hdd",
        Stage::AfterMoves,
        Switch::Always,
        ALL,
        "HDD\\* again, from single nodes, after moves that changed the tree",
        |w| hdd_star(w.tree, filter(w.options, false), Start::Atoms, w.tester),
    ),
    on_tree(
        "rename",
        Stage::Spelling,
        Switch::Part(Part::Canon),
        GRAMMARS,
        "identifiers renamed to fresh one-letter names",
        |w| rename_identifiers(w.tree, w.spec(), w.tester),
    ),
    on_tree(
        "types",
        Stage::Spelling,
        Switch::Part(Part::Canon),
        GRAMMARS,
        "types replaced by the shortest type name the text declares",
        |w| declared_types(w.tree, w.spec(), w.tester),
    ),
    on_tree(
        "types",
        Stage::Spelling,
        Switch::Part(Part::Canon),
        GRAMMARS,
        "expressions replaced by a typed zero the input spells (`0usize`)",
        |w| typed_literals(w.tree, w.spec(), w.zeros, w.tester),
    ),
    on_tree(
        "literals",
        Stage::Spelling,
        Switch::Part(Part::Canon),
        GRAMMARS,
        "literals shrunk to their plainest form (`0`, `\"\"`)",
        |w| shrink_literals(w.tree, w.spec(), w.tester),
    ),
    on_tree(
        "tokens",
        Stage::Tokens,
        Switch::Part(Part::Tokens),
        ALL,
        "ddmin over the tokens, then over runs of two and three; punctuation cut to its first character, `{}` made `;`, a pair of delimiters dropped around what it holds",
        |w| token_pass(w.tree, w.tester),
    ),
    Pass {
        step: "layout",
        stage: Stage::Final,
        switch: Switch::Part(Part::Layout),
        langs: GRAMMARS,
        does: "the whitespace between tokens cut to what the lexer needs",
        skipped_once_stopped: false,
        run: Run::Text(|text, lang, tester| {
            let spec = lang.spec().expect("layout is declared for grammar languages");
            layout_pass(text, spec, tester)
        }),
    },
    Pass {
        step: "format",
        stage: Stage::Final,
        switch: Switch::Part(Part::Format),
        langs: ALL,
        does: "the result pretty-printed (`rustfmt`, `prettier`) where that keeps the failure",
        skipped_once_stopped: true,
        run: Run::Text(|text, lang, tester| format_pass(text, lang, tester).map(|_| ())),
    },
];

impl Pass {
    /// Whether `options` switch this pass on for `lang`.
    fn runs(&self, lang: Lang, options: &Options) -> bool {
        self.langs.contains(&lang)
            && match self.switch {
                Switch::Always => true,
                Switch::Part(part) => part.is_on(options),
            }
    }
}

/// The passes of `stage` that `options` switch on for `lang`, in order.
fn passes_of(
    stage: Stage,
    lang: Lang,
    options: &Options,
) -> impl Iterator<Item = &'static Pass> + '_ {
    PASSES
        .iter()
        .filter(move |p| p.stage == stage && p.runs(lang, options))
}

/// Whether any pass of `stage` runs for `lang` under `options`.
pub(crate) fn stage_runs(stage: Stage, lang: Lang, options: &Options) -> bool {
    passes_of(stage, lang, options).next().is_some()
}

/// Runs the passes of `stage` on the tree, in order, each announcing its
/// step unless the pass before it had the same one. Returns whether any
/// of them shortened the text.
pub(crate) fn run_tree_stage(
    stage: Stage,
    work: &mut TreeWork<'_, '_>,
) -> Result<bool, OracleError> {
    let mut changed = false;
    let mut step = None;
    for pass in passes_of(stage, work.lang, work.options) {
        let Run::Tree(run) = pass.run else {
            unreachable!("step {} of a tree stage runs on the text", pass.step);
        };
        if step != Some(pass.step) {
            work.tester.step(pass.step);
            step = Some(pass.step);
        }
        changed |= run(work)?;
    }
    Ok(changed)
}

/// Runs the passes of `stage` on the final `text`, in order.
pub(crate) fn run_text_stage(
    stage: Stage,
    text: &mut Vec<u8>,
    lang: Lang,
    options: &Options,
    tester: &Tester<'_>,
) -> Result<(), OracleError> {
    for pass in passes_of(stage, lang, options) {
        let Run::Text(run) = pass.run else {
            unreachable!("step {} of a text stage runs on the tree", pass.step);
        };
        if pass.skipped_once_stopped && tester.stopped() {
            continue;
        }
        tester.step(pass.step);
        run(text, lang, tester)?;
    }
    Ok(())
}

/// The thesis' transforms a strategy asks for, on a freshly parsed tree.
pub(crate) fn shape(tree: &mut Tree, options: &Options) {
    if options.flatten {
        flatten(tree);
    }
    if options.squeeze {
        squeeze(tree);
    }
}

/// Which nodes of a level HDD sees.
fn filter(options: &Options, coarse: bool) -> LevelFilter {
    LevelFilter {
        coarse,
        hide_unremovable: options.hide_unremovable,
    }
}

/// HDD `repeat` times over the levels (coarse: the nodes with empty Φ).
fn levels(work: &mut TreeWork<'_, '_>, repeat: Repeat, coarse: bool) -> Result<bool, OracleError> {
    let filter = filter(work.options, coarse);
    match repeat {
        Repeat::Never => Ok(false),
        Repeat::Once => hdd_pass(work.tree, filter, Start::Halves, work.tester),
        Repeat::Fixpoint => hdd_star(work.tree, filter, Start::Halves, work.tester),
    }
}

/// Before HDD: the macro calls that declare modules unwrapped, then a
/// crate's own macros expanded, the text parsed again after each (the
/// call's place holds the group's tokens: parsed again, the modules it
/// declared are items, and the calls in them calls).
fn macros_before_hdd(work: &mut TreeWork<'_, '_>) -> Result<bool, OracleError> {
    let mut changed = false;
    while macros_pass(work.tree, Groups::DeclaringModules, work.tester)? {
        work.reparse();
        changed = true;
    }
    while expand_pass(work.tree, Growth::Definition, work.tester)? {
        work.reparse();
        changed = true;
    }
    Ok(changed)
}

/// A crate's own macros expanded where that is shorter, the text parsed
/// (and shaped) again after each: the expansions are text, and parsed
/// again they are items and statements for the passes that follow.
fn expand_after_hdd(work: &mut TreeWork<'_, '_>) -> Result<bool, OracleError> {
    let mut changed = false;
    while expand_pass(work.tree, Growth::None, work.tester)? {
        work.reparse();
        shape(work.tree, work.options);
        changed = true;
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::Strategy;

    impl Stage {
        /// The stage as docs/syntax.md's table names it.
        fn label(self) -> &'static str {
            match self {
                Stage::Opening => "before HDD",
                Stage::CoarseLevels => "coarse HDD",
                Stage::Levels => "HDD",
                Stage::Moves => "moves",
                Stage::AfterMoves => "after a move",
                Stage::Spelling => "names",
                Stage::Tokens => "tokens",
                Stage::Final => "final",
            }
        }
    }

    /// docs/syntax.md's table of parts: each part, whether `best` has
    /// it, what it switches and the steps of its passes.
    fn parts_table() -> String {
        let best = Strategy::Best.options();
        let mut out = String::from("| part | in `best` | what it switches |\n|---|---|---|\n");
        for part in Part::ALL {
            let mut name = format!("`{}`", part.name());
            for former in part.former_names() {
                name += &format!(" (formerly `{former}`, still accepted)");
            }
            let mut steps: Vec<&str> = PASSES
                .iter()
                .filter(|p| p.switch == Switch::Part(part))
                .map(|p| p.step)
                .collect();
            steps.dedup();
            let steps: Vec<String> = steps.iter().map(|s| format!("`{s}`")).collect();
            let steps = match steps.len() {
                0 => String::new(),
                1 => format!(" (step {})", steps[0]),
                _ => format!(" (steps {})", steps.join(", ")),
            };
            let on = if part.is_on(&best) { "on" } else { "off" };
            out += &format!("| {name} | {on} | {}{steps} |\n", part.about());
        }
        out
    }

    /// docs/syntax.md's table of passes, in the order they run.
    fn passes_table() -> String {
        let mut out = String::from(
            "| stage | step | part | languages | what it does |\n|---|---|---|---|---|\n",
        );
        for pass in PASSES {
            let part = match pass.switch {
                Switch::Always => "(always)".to_string(),
                Switch::Part(part) => format!("`{}`", part.name()),
            };
            let langs: Vec<&str> = pass.langs.iter().map(|l| l.name()).collect();
            out += &format!(
                "| {} | `{}` | {part} | {} | {} |\n",
                pass.stage.label(),
                pass.step,
                langs.join(", "),
                pass.does
            );
        }
        out
    }

    /// The text between `<!-- generated:NAME -->` and the next
    /// `<!-- /generated -->` of `doc`.
    fn region<'d>(doc: &'d str, name: &str) -> &'d str {
        let open = format!("<!-- generated:{name} -->\n");
        let start = doc.find(&open).expect("docs/syntax.md has the marker") + open.len();
        let end = start
            + doc[start..]
                .find("<!-- /generated -->")
                .expect("a closing marker");
        &doc[start..end]
    }

    /// docs/syntax.md's tables of parts and passes are the registry's:
    /// on a difference the test prints the table to paste.
    #[test]
    fn the_docs_tables_are_the_registrys() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/syntax.md");
        let doc = std::fs::read_to_string(path).expect("docs/syntax.md");
        for (name, table) in [("parts", parts_table()), ("passes", passes_table())] {
            assert!(
                region(&doc, name) == table,
                "docs/syntax.md's table `{name}` differs from the registry; it should read:\n{table}"
            );
        }
    }

    /// The passes that read the grammar are declared for languages that
    /// have one ([`TreeWork::spec`]).
    #[test]
    fn grammar_languages_have_a_grammar() {
        assert!(GRAMMARS.iter().all(|l| l.spec().is_some()));
        assert!(ALL
            .iter()
            .filter(|l| !GRAMMARS.contains(l))
            .all(|l| l.spec().is_none()));
    }

    /// Every stage but the final one runs on the tree, the final one on
    /// the text, as the pipeline calls them.
    #[test]
    fn each_stage_runs_on_what_the_pipeline_gives_it() {
        for pass in PASSES {
            let on_text = matches!(pass.run, Run::Text(_));
            assert_eq!(on_text, pass.stage == Stage::Final, "step {}", pass.step);
        }
    }
}
