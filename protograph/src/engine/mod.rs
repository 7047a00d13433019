//! JavaScript engines that run discovery and learning scripts.
//!
//! An engine evaluates one classic script in a fresh realm, with `this` bound
//! to the global object, and hands back the script's completion value as a
//! string. That is all discovery and learning need, and it keeps each engine
//! adapter a few lines long.

mod node;

#[cfg(feature = "boa")]
mod boa;

#[cfg(feature = "boa")]
pub use boa::Boa;
pub use node::Node;

use crate::Error;

/// Something that can evaluate a script and return its completion value.
pub trait Engine {
    /// A short name for messages (`node`, `boa`).
    fn name(&self) -> &str;

    /// Evaluates `script` as a classic script in a fresh global environment
    /// and returns its completion value converted to a string.
    fn eval(&self, script: &str) -> Result<String, Error>;
}

/// The engines protograph knows how to drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum EngineKind {
    /// Boa, in-process (needs the `boa` cargo feature).
    Boa,
    /// Node.js, as the `node` program found on `PATH`.
    Node,
}

impl EngineKind {
    /// The engine of this kind, or [`Error::Unavailable`] when it was not
    /// compiled in.
    pub fn engine(self) -> Result<Box<dyn Engine>, Error> {
        match self {
            EngineKind::Node => Ok(Box::new(Node::default())),
            #[cfg(feature = "boa")]
            EngineKind::Boa => Ok(Box::new(Boa)),
            #[cfg(not(feature = "boa"))]
            EngineKind::Boa => Err(Error::Unavailable("boa".into())),
        }
    }
}
