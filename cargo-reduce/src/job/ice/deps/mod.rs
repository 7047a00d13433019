//! The dependencies an MCVE still needs: taken into it as modules
//! ([`take_in`]), or, for a cross-crate ICE, built beside it as auxiliary
//! crates ([`auxiliary`], with the names both spell renamed,
//! [`shared_names`]); the libraries the final command still names copied
//! beside the MCVE ([`artifacts`]).

pub(crate) mod artifacts;
pub(crate) mod auxiliary;
pub(crate) mod shared_names;
pub(crate) mod take_in;
