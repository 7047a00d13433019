//! The passes for Rust only, moves no deletion makes:
//!
//! - [`modules`]: a module's items in its place, its name dropped from
//!   the paths through it;
//! - [`macros`]: a macro call replaced by a braced group of its argument,
//!   or a crate's own macro by what its calls expand to;
//! - [`uses`]: a path spelled twice or more imported once (`use`);
//! - [`newtypes`]: a newtype (`struct W<T>(T);`) unwrapped at every use;
//! - [`bounds`]: `where` clauses folded into `<T: …>`.

pub(super) mod bounds;
pub(super) mod macros;
pub(super) mod modules;
pub(super) mod newtypes;
pub(super) mod uses;
