//! Writing a result: atomically, with the input's permissions, and never
//! over the input itself.

use std::path::Path;

use crate::error::{Error, Exit};
use crate::output::write_atomically;

/// Writes `bytes` to `output` with `input`'s permissions.
pub fn result(output: &Path, bytes: &[u8], input: &Path) -> Result<(), Error> {
    write_atomically(output, bytes, Some(input)).map_err(|e| {
        Error::new(
            Exit::Failure,
            format!("cannot write `{}`: {e}", output.display()),
        )
    })
}
