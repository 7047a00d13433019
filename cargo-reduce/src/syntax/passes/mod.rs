//! The reduction passes over a tree: each one proposes edits (remove
//! these nodes, hoist this one, rename that name), keeps what the oracle
//! allows and commits it. All test rendered candidates through
//! [`Tester`], the byte oracle behind a rendering adapter.
//!
//! - [`registry`]: every pass declared once (stage, step, switch,
//!   languages, function), and the stages run from it;
//! - [`core`]: the passes for every language (HDD's levels, hoisting,
//!   simplifying, inlining, the token pass, layout, format);
//! - [`rust`]: the passes for Rust only (macros, modules, uses, newtypes,
//!   bounds);
//! - [`js`]: the passes for JavaScript only (calls);
//! - [`edits`]: ddmin over a list of tree edits, one edit alone;
//! - [`nav`]: finding one's way in a tree (fields, lists, parents);
//! - [`render_oracle`]: the byte oracle behind rendering.

mod core;
mod edits;
mod js;
mod nav;
mod registry;
mod render_oracle;
mod rust;
#[cfg(test)]
mod testing;

pub(crate) use self::core::format::rustfmt;
pub(super) use self::core::simplify::spelled_zeros;
pub(super) use registry::{run_text_stage, run_tree_stage, shape, stage_runs, Stage, TreeWork};
pub(super) use render_oracle::Tester;
