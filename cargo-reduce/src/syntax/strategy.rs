//! Strategies: which phases and transforms of the HDD pipeline run, by
//! name (`--strategy`) or part by part ([`Part`]). The passes each part
//! switches on are declared in `passes/registry.rs`.

use std::fmt;
use std::str::FromStr;

use crate::engine::DdminOptions;

/// How often a family of passes runs.
///
/// ```
/// use cargo_reduce::syntax::{Repeat, Strategy};
///
/// assert_eq!(Strategy::Hdd.options().fine, Repeat::Once);
/// assert_eq!(Strategy::HddStar.options().fine, Repeat::Fixpoint);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repeat {
    /// Not at all.
    Never,
    /// One pass.
    Once,
    /// Until a pass removes nothing (the `*` variants).
    Fixpoint,
}

/// Every phase and transform of the pipeline, selectable.
///
/// ```
/// use cargo_reduce::syntax::{Options, Strategy};
///
/// let mut options: Options = Strategy::Best.options();
/// options.inline = false;
/// let shown = Strategy::Custom(options).to_string(); // the parts switched from plain HDD
/// assert!(shown.starts_with("coarse-hdd*,hdd*,-groups,+flatten") && !shown.contains("inline"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Φ of a node by the slot it fills in its parent, where shorter than
    /// its kind's (`0` for any expression where any expression goes).
    pub slots: bool,
    /// Optional sequences of the grammar (`-> T`, `= value`) as nodes
    /// with Φ "" (the ECFG view, `grammar/groups.rs`).
    pub groups: bool,
    /// Flatten left/right-recursive chains (Listing 5).
    pub flatten: bool,
    /// Squeeze single-child chains with equal Φ (Listing 2).
    pub squeeze: bool,
    /// Hide tokens whose text is their Φ from ddmin (Listing 3).
    pub hide_unremovable: bool,
    /// Coarse HDD: levels restricted to nodes with empty Φ (Listing 4).
    pub coarse: Repeat,
    /// Plain HDD over all nodes, after the coarse passes.
    pub fine: Repeat,
    /// Moves that restructure the program rather than delete from it:
    /// nodes replaced by descendants that fit (hoisting, unwrapping); in
    /// Rust also modules opened, macro calls unwrapped or expanded,
    /// repeated paths imported, newtypes unwrapped (then HDD* again).
    pub restructure: bool,
    /// Rename identifiers and shrink literals; plain expressions, types by
    /// declared names, typed zeros.
    pub canonicalize: bool,
    /// Inline single-use bindings (and JavaScript's property paths and
    /// calls).
    pub inline: bool,
    /// Fold Rust's `where` clauses into the generic parameters
    /// (`passes/rust/bounds.rs`).
    pub bounds: bool,
    /// The moves also once right after coarse HDD, before HDD: they cut
    /// what HDD can only delete node by node (an argument, an
    /// initializer) in a few tests.
    pub early_moves: bool,
    /// A final ddmin over the remaining tokens, syntax ignored.
    pub tokens: bool,
    /// Run the pipeline again on the reparsed result while a round
    /// removes tokens: what the token ddmin removed (a `var`) leaves new
    /// nodes for the moves (`a = f()` hoists to `f()`).
    pub rounds: bool,
    /// Last, the whitespace between tokens cut to what the lexer needs
    /// (`passes/core/layout.rs`).
    pub layout: bool,
    /// At the very end, the result pretty-printed (`rustfmt`, `prettier`)
    /// where the formatted text still fails (`passes/core/format.rs`).
    pub format: bool,
    /// The ddmin variant every phase runs.
    pub ddmin: DdminOptions,
}

/// A named pipeline, as `--strategy` takes it.
///
/// ```
/// use cargo_reduce::syntax::Strategy;
///
/// let strategy: Strategy = "hdd,+squeeze".parse().unwrap();
/// assert!(strategy.options().squeeze && !strategy.options().flatten);
/// assert_eq!("coarse-hdd+hdd".parse::<Strategy>().unwrap(), Strategy::CoarseThenHdd);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strategy {
    /// ddmin over the input's tokens only.
    Ddmin,
    /// One HDD pass, no transforms.
    Hdd,
    /// HDD passes until nothing changes, no transforms.
    HddStar,
    /// Coarse HDD* with flattening, squeezing and hidden tokens.
    CoarseHdd,
    /// `coarse-hdd`, then HDD*.
    CoarseThenHdd,
    /// The default: `coarse-hdd+hdd`, hoisting, canonicalization, tokens.
    #[default]
    Best,
    /// Any combination.
    Custom(Options),
}

impl Strategy {
    /// The strategies [`Strategy::from_str`] takes by name.
    const NAMED: [Strategy; 6] = [
        Strategy::Ddmin,
        Strategy::Hdd,
        Strategy::HddStar,
        Strategy::CoarseHdd,
        Strategy::CoarseThenHdd,
        Strategy::Best,
    ];

    /// The names [`Strategy::from_str`] accepts.
    pub const NAMES: [&'static str; 6] = {
        let mut names = [""; 6];
        let mut i = 0;
        while i < names.len() {
            names[i] = Self::NAMED[i].name();
            i += 1;
        }
        names
    };

    /// No pass and no transform: what the parts of a custom strategy are
    /// shown against.
    fn plain() -> Options {
        Options {
            slots: true,
            groups: true,
            flatten: false,
            squeeze: false,
            hide_unremovable: false,
            coarse: Repeat::Never,
            fine: Repeat::Never,
            restructure: false,
            canonicalize: false,
            inline: false,
            bounds: false,
            early_moves: false,
            tokens: false,
            rounds: false,
            layout: false,
            format: false,
            ddmin: DdminOptions::default(),
        }
    }

    /// This strategy with the result pretty-printed (`--pretty`).
    pub fn formatted(self) -> Strategy {
        let mut options = self.options();
        options.format = true;
        Strategy::Custom(options)
    }

    /// The options this strategy stands for.
    pub fn options(&self) -> Options {
        let plain = Self::plain();
        let coarse = Options {
            flatten: true,
            squeeze: true,
            hide_unremovable: true,
            coarse: Repeat::Fixpoint,
            ..plain
        };
        match *self {
            Strategy::Ddmin => Options {
                tokens: true,
                ..plain
            },
            Strategy::Hdd => Options {
                fine: Repeat::Once,
                ..plain
            },
            Strategy::HddStar => Options {
                fine: Repeat::Fixpoint,
                ..plain
            },
            Strategy::CoarseHdd => coarse,
            Strategy::CoarseThenHdd => Options {
                fine: Repeat::Fixpoint,
                ..coarse
            },
            // Optional groups off: with them `best` ended in larger local
            // minima on the syntax benchmark (docs/design/syntax.md).
            Strategy::Best => Options {
                groups: false,
                fine: Repeat::Fixpoint,
                restructure: true,
                inline: true,
                bounds: true,
                early_moves: true,
                canonicalize: true,
                tokens: true,
                rounds: true,
                layout: true,
                ..coarse
            },
            Strategy::Custom(options) => options,
        }
    }

    const fn name(&self) -> &'static str {
        match self {
            Strategy::Ddmin => "ddmin",
            Strategy::Hdd => "hdd",
            Strategy::HddStar => "hdd*",
            Strategy::CoarseHdd => "coarse-hdd",
            Strategy::CoarseThenHdd => "coarse-hdd+hdd",
            Strategy::Best => "best",
            Strategy::Custom(_) => "custom",
        }
    }
}

impl fmt::Display for Strategy {
    /// The name; for a custom strategy its passes and the parts switched
    /// from the plain options (`coarse-hdd*,hdd*,+flatten,+squeeze,+hide`,
    /// `hdd,-slots`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Strategy::Custom(options) = self else {
            return f.write_str(self.name());
        };
        let passes = [(options.coarse, "coarse-hdd"), (options.fine, "hdd")];
        let mut words: Vec<String> = passes
            .iter()
            .filter_map(|&(repeat, name)| match repeat {
                Repeat::Never => None,
                Repeat::Once => Some(name.to_string()),
                Repeat::Fixpoint => Some(format!("{name}*")),
            })
            .collect();
        let (mut switches, mut plain) = (*options, Self::plain());
        for part in Part::ALL {
            let on = *part.switch(&mut switches);
            if on != *part.switch(&mut plain) {
                words.push(format!("{}{}", if on { '+' } else { '-' }, part.name()));
            }
        }
        f.write_str(&words.join(","))
    }
}

/// A `--strategy` value that names no strategy.
///
/// ```
/// use cargo_reduce::syntax::Strategy;
///
/// let error = "fastest".parse::<Strategy>().unwrap_err();
/// assert!(error.to_string().starts_with("unknown strategy `fastest` (expected one of: ddmin, hdd,"));
/// ```
#[derive(Debug, thiserror::Error)]
#[error("unknown strategy `{0}` (expected {grammar})", grammar = strategy_grammar())]
pub struct UnknownStrategy(String);

/// `--strategy`'s help for `cargo reduce file`, followed by `default`
/// (the names and parts from [`Strategy::NAMES`] and [`Part::ALL`]).
pub(crate) fn strategy_help(default: &str) -> String {
    let parts: Vec<&str> = Part::ALL.iter().map(|p| p.name()).collect();
    let former: Vec<String> = Part::ALL
        .iter()
        .flat_map(|p| {
            p.former_names()
                .iter()
                .map(|f| format!("`{f}` for `{}`", p.name()))
        })
        .collect();
    format!(
        "Syntax-aware strategy: {}, then any `,+PART`/`,-PART` to switch {} (also {}) {default}",
        Strategy::NAMES.join(", "),
        parts.join(", "),
        former.join(", ")
    )
}

/// What a `--strategy` value may be, from [`Strategy::NAMES`] and
/// [`Part::ALL`]: `one of: ddmin, …, best, then any of ,+PART or ,-PART
/// with PART one of slots, …, format`.
pub(crate) fn strategy_grammar() -> String {
    let parts: Vec<&str> = Part::ALL.iter().map(|p| p.name()).collect();
    format!(
        "one of: {}, then any of ,+PART or ,-PART with PART one of {}",
        Strategy::NAMES.join(", "),
        parts.join(", ")
    )
}

/// A part of a strategy that a `,+PART` / `,-PART` modifier switches
/// (`hdd,+squeeze,+hide`). The passes each one switches on are in
/// `passes/registry.rs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    Slots,
    Groups,
    Flatten,
    Squeeze,
    Hide,
    Restructure,
    Canon,
    Inline,
    Bounds,
    EarlyMoves,
    Tokens,
    Rounds,
    Layout,
    Format,
}

impl Part {
    /// Every part, in the order a custom strategy shows them.
    pub(crate) const ALL: [Part; 14] = [
        Part::Slots,
        Part::Groups,
        Part::Flatten,
        Part::Squeeze,
        Part::Hide,
        Part::Restructure,
        Part::Canon,
        Part::Inline,
        Part::Bounds,
        Part::EarlyMoves,
        Part::Tokens,
        Part::Rounds,
        Part::Layout,
        Part::Format,
    ];

    /// The part's name in a modifier.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Part::Slots => "slots",
            Part::Groups => "groups",
            Part::Flatten => "flatten",
            Part::Squeeze => "squeeze",
            Part::Hide => "hide",
            Part::Restructure => "restructure",
            Part::Canon => "canon",
            Part::Inline => "inline",
            Part::Bounds => "bounds",
            Part::EarlyMoves => "early-moves",
            Part::Tokens => "tokens",
            Part::Rounds => "rounds",
            Part::Layout => "layout",
            Part::Format => "format",
        }
    }

    /// What the part switches, for docs/syntax.md's table of parts.
    #[cfg_attr(not(test), expect(dead_code, reason = "read by the docs table's test"))]
    pub(crate) fn about(self) -> &'static str {
        match self {
            Part::Slots => "Φ of a node by the slot it fills, where shorter than its kind's (`0` for any expression where any expression goes)",
            Part::Groups => "optional sequences of the grammar (`-> T`, `= value`) as one removable node",
            Part::Flatten => "left- and right-recursive chains flattened (flattenTreeRecursion)",
            Part::Squeeze => "single-child chains of equal Φ squeezed (squeezeTree)",
            Part::Hide => "tokens that read as their Φ left out of HDD's levels (hideUnremovableTokens)",
            Part::Restructure => "moves that restructure the program rather than delete from it: hoisting and unwrapping; Rust: opening modules, unwrapping and expanding macros, importing repeated paths, unwrapping newtypes",
            Part::Canon => "plain expressions and types, renaming, types by declared names, typed zeros, literals",
            Part::Inline => "single-use bindings and property paths; JavaScript: calls",
            Part::Bounds => "Rust: a `where` clause folded into `<T: …>`",
            Part::EarlyMoves => "the moves (those of `restructure`, `canon` and `inline` that are on) also once between coarse HDD and HDD, so that HDD starts on what they cut",
            Part::Tokens => "the token ddmin that ends each round",
            Part::Rounds => "the whole pipeline again on the reparsed result while a round removes tokens",
            Part::Layout => "last, the whitespace cut to what the lexer needs: a space only where tokens would fuse, a line break only where one is needed (JavaScript's automatic semicolons); each gap kept only while the failure stays",
            Part::Format => "the result pretty-printed where that keeps the failure (`--pretty`)",
        }
    }

    /// Names the part had before, still accepted: `restructure` was
    /// `hoist` until its other moves joined it.
    pub(crate) fn former_names(self) -> &'static [&'static str] {
        match self {
            Part::Restructure => &["hoist"],
            _ => &[],
        }
    }

    /// The part called `name` (or a former name of it).
    fn named(name: &str) -> Option<Part> {
        Part::ALL
            .into_iter()
            .find(|p| p.name() == name || p.former_names().contains(&name))
    }

    /// The switch of this part in `options`.
    pub(crate) fn switch(self, options: &mut Options) -> &mut bool {
        match self {
            Part::Slots => &mut options.slots,
            Part::Groups => &mut options.groups,
            Part::Flatten => &mut options.flatten,
            Part::Squeeze => &mut options.squeeze,
            Part::Hide => &mut options.hide_unremovable,
            Part::Restructure => &mut options.restructure,
            Part::Canon => &mut options.canonicalize,
            Part::Inline => &mut options.inline,
            Part::Bounds => &mut options.bounds,
            Part::EarlyMoves => &mut options.early_moves,
            Part::Tokens => &mut options.tokens,
            Part::Rounds => &mut options.rounds,
            Part::Layout => &mut options.layout,
            Part::Format => &mut options.format,
        }
    }

    /// Whether this part is on in `options`.
    pub(crate) fn is_on(self, options: &Options) -> bool {
        let mut options = *options;
        *self.switch(&mut options)
    }
}

impl FromStr for Strategy {
    type Err = UnknownStrategy;

    /// A strategy's name, then optionally `,+PART` / `,-PART` modifiers
    /// that switch one transform or phase on or off, so the thesis'
    /// comparisons can be rerun (`hdd*,+squeeze,+hide`, `coarse-hdd,-flatten`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let unknown = || UnknownStrategy(s.to_string());
        let mut parts = s.split(',');
        let base = parts.next().unwrap_or_default();
        let named = Self::NAMED
            .into_iter()
            .find(|st| st.name() == base)
            .ok_or_else(unknown)?;
        let mut options = named.options();
        let mut modified = false;
        for modifier in parts {
            let (on, part) = match modifier.split_at_checked(1) {
                Some(("+", part)) => (true, part),
                Some(("-", part)) => (false, part),
                _ => return Err(unknown()),
            };
            *Part::named(part).ok_or_else(unknown)?.switch(&mut options) = on;
            modified = true;
        }
        Ok(if modified {
            Strategy::Custom(options)
        } else {
            named
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error names every strategy and every part, as before the
    /// registry derived it.
    #[test]
    fn the_error_lists_every_name_and_part() {
        let error = "fastest".parse::<Strategy>().unwrap_err().to_string();
        assert_eq!(
            error,
            "unknown strategy `fastest` (expected one of: ddmin, hdd, hdd*, coarse-hdd, \
             coarse-hdd+hdd, best, then any of ,+PART or ,-PART with PART one of slots, groups, \
             flatten, squeeze, hide, restructure, canon, inline, bounds, early-moves, tokens, rounds, \
             layout, format)"
        );
    }

    /// `hoist`, the part's name before `restructure`, still switches it.
    #[test]
    fn the_former_name_of_a_part_still_switches_it() {
        let old: Strategy = "best,-hoist".parse().unwrap();
        let new: Strategy = "best,-restructure".parse().unwrap();
        assert_eq!(old, new);
        assert!(!old.options().restructure && Strategy::Best.options().restructure);
    }
}
