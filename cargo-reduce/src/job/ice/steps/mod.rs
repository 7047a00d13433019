//! The steps on one file besides the syntax reducer: rustc's unused items
//! deleted first ([`prune`]), the command line's flags cut to those the
//! result needs ([`flags`]), and the result repaired and formatted last
//! ([`readable`]).

pub(crate) mod flags;
pub(crate) mod prune;
pub(crate) mod readable;
