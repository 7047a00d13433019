//! Reduction of typed fuzz inputs: inputs a target decodes with
//! `arbitrary` (`fuzz_target!(|x: T| …)`), edited as the value they decode
//! to rather than as bytes.
//!
//! A ddmin over bytes stops early on such inputs: `arbitrary` reads
//! lengths from the end of the data, in a width that depends on how much
//! data is left, so deleting one byte re-cuts every field after it. Here a
//! [`Decoder`] reports what decoding an input drew from it ([`trace`]),
//! the draws become a [`Layout`] that can drop an element, shorten a
//! string, lower a number or cut an `Option` to `None`, and
//! [`Layout::encode`] writes each edit back as bytes that decode to the
//! edited value, every length in the width the new total calls for.
//! [`reduce`] runs those edits as passes under a test budget.
//!
//! This module is pure: the decoder (a fuzz target built against an
//! instrumented `arbitrary`) and the oracle are passed in.

mod encoded;
pub(crate) mod layout;
mod lower;
mod reduce;
mod settled;
pub(crate) mod trace;

pub(crate) use reduce::{reduce, TypedOptions};
pub(crate) use trace::Draw;

use crate::engine::OracleError;

/// What decoding one input gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decoded {
    /// The draws, in the order the decoder made them.
    pub draws: Vec<Draw>,
    /// The decoded value's `Debug` form, when there is one.
    pub debug: Option<String>,
}

/// Decodes inputs the way the target under reduction does.
pub(crate) trait Decoder {
    /// What decoding `input` drew; `None` if it does not decode (too
    /// short for the type, or an error).
    fn decode(&self, input: &[u8]) -> Result<Option<Decoded>, OracleError>;
}
