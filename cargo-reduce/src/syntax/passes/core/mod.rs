//! The passes for every language: HDD over the levels, hoisting,
//! simplifying (plain expressions, names, types, literals), inlining,
//! the token pass, the final layout and pretty-printing.
//!
//! - [`levels`]: HDD proper, ddmin over each tree level (Coarse HDD, HDD,
//!   HDD*);
//! - [`hoist`]: a node replaced by descendants that fit in its place;
//! - [`simplify`]: plain expressions, renaming identifiers, shrinking
//!   literals, types by the shortest declared name, typed zeros (`0usize`);
//! - [`inline`]: single-use bindings replaced by their value;
//! - [`tokens`]: ddmin over the remaining tokens;
//! - [`layout`]: the final whitespace, as little as the lexer needs;
//! - [`format`]: the result pretty-printed, if it still fails so.

pub(super) mod format;
pub(super) mod hoist;
pub(super) mod inline;
pub(super) mod layout;
pub(super) mod levels;
pub(super) mod simplify;
pub(super) mod tokens;
