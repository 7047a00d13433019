//! Writing a result: where it goes (a result that is not 1-minimal may go
//! elsewhere, so it never stands under a final name), atomically, with the
//! input's permissions, and somewhere else when that fails, so a finished
//! reduction is never lost.

use std::path::Path;

use crate::error::{Error, Exit};
use crate::output::{save_elsewhere, shown, Destination};

/// Writes `bytes` to `destination` with `input`'s permissions. When that
/// fails, saves them elsewhere and says where in the error.
pub(super) fn result(destination: &Destination, bytes: &[u8], input: &Path) -> Result<(), Error> {
    let Err(e) = destination.write(bytes, Some(input)) else {
        return Ok(());
    };
    let saved = match save_elsewhere(destination.path(), bytes) {
        Ok(path) => format!(
            "the result ({} bytes) was saved in `{}` instead",
            bytes.len(),
            shown(&path)
        ),
        Err(e2) => format!("nor could the result be saved elsewhere ({e2})"),
    };
    Err(Error::caused_with_hint(
        Exit::Failure,
        format!("cannot write `{}`", shown(destination.path())),
        e,
        saved,
    ))
}
