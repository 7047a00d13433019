//! Prototype Graph fuzzing of JavaScript engines, after Hodován's thesis.
//!
//! * [`Graph`] is the model: type and signature vertices joined by
//!   `property`, `proto`, `call`, `construct`, `parameter` and `return` edges,
//!   with a JSON form and [`Graph::merge`].
//! * [`discover()`] builds a graph by walking an engine's builtins
//!   (`js/discover.js`), and [`learn()`] adds the signatures seen while
//!   running existing tests under a recording prelude (`js/learn.js`).
//! * [`Generator`] turns random walks on a graph into programs of
//!   `try`-wrapped call statements, deterministically for a seed.
//! * [`mutate()`] and [`crossover()`] are libFuzzer custom-mutator hooks over
//!   such programs; [`splice()`] is a crossover that remaps variables by
//!   graph type; [`Guided`] adds runtime feedback from an engine
//!   ([`feedback`]); [`foreign`] splices statements of real tests
//!   (test262) typed by the graph.
//!
//! The library needs no JavaScript engine: discovery and learning run Node as
//! a child process, or Boa in-process with the `boa` feature.
#![deny(missing_docs)]

pub mod discover;
pub mod engine;
mod error;
pub mod feedback;
#[cfg(test)]
mod fixtures;
pub mod foreign;
pub mod gen;
mod index;
pub mod learn;
mod model;
mod mutate;
pub mod program;
mod rng;
mod splice;

pub use discover::discover;
pub use engine::{Engine, EngineKind};
pub use error::Error;
pub use feedback::{FeedbackStats, Guided, Observation, Observe};
pub use foreign::{Snippet, Snippets};
pub use gen::{Config, Generator};
pub use learn::{learn, Learned, TestFile};
pub use model::{Edge, Graph, SignatureVertex, Stats, TypeVertex, PRIMITIVES};
pub use mutate::{crossover, mutate, Mutated, Mutation};
pub use program::{Expr, Lit, Member, Program, Stmt};
pub use splice::splice;

#[cfg(feature = "cli")]
pub mod cli;
