//! From the user's build to one file: the build that crashed
//! ([`cargo_build`]), the crate flattened ([`flatten`], with its includes
//! made to stand alone, [`includes`]), and the text edits and tree-sitter
//! helpers every step uses ([`source`], [`edition2015`]).

pub(crate) mod cargo_build;
pub(crate) mod edition2015;
pub(crate) mod flatten;
pub(crate) mod includes;
pub(crate) mod source;
