//! rustc's side of ice mode: the command line that crashed and the forms
//! it is rerun in ([`args`]), running it on a candidate ([`run`]), and the
//! ICE it prints ([`signature`]).

pub(crate) mod args;
pub(crate) mod run;
pub(crate) mod signature;
