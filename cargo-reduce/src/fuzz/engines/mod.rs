//! What is particular to each fuzz engine: its stand-in crate and how its
//! cargo front end (`cargo fuzz build`, `cargo afl build`) builds. The rest
//! of `fuzz/` (discovery, the patched build, the pools) is shared.

pub(crate) mod afl;
pub(crate) mod front_end;
pub(crate) mod libfuzzer;
