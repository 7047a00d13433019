//! The reduction passes over a tree: each one proposes edits (remove
//! these nodes, hoist this one, rename that name), keeps what the oracle
//! allows and commits it. All test rendered candidates through
//! [`Tester`], the byte oracle behind a rendering adapter.
//!
//! - [`levels`]: HDD proper, ddmin over each tree level (Coarse HDD, HDD,
//!   HDD*);
//! - [`edits`]: ddmin over a list of edits, one edit alone, and the final
//!   ddmin over the remaining tokens;
//! - [`hoist`]: a node replaced by descendants that fit in its place;
//! - [`simplify`]: plain expressions, renaming identifiers, shrinking
//!   literals;
//! - [`inline`]: single-use bindings replaced by their value.

mod edits;
mod hoist;
mod inline;
mod levels;
mod render_oracle;
mod simplify;

pub(super) use edits::token_pass;
pub(super) use hoist::hoist_pass;
pub(super) use inline::inline_pass;
pub(super) use levels::{hdd_pass, hdd_star, LevelFilter};
pub(super) use render_oracle::Tester;
pub(super) use simplify::{plain_expressions, rename_identifiers, shrink_literals};
