//! Writing a coverage report directory whole: staged beside it and
//! swapped in by one rename (`corpus::write::write_set`), marked as
//! cargo-reduce's output, so a later run may replace it and a directory
//! of the user's files is never written into.

use std::path::Path;

use crate::error::{Error, Exit};
use crate::job::corpus::write::{write_set, Mode, MARKER};

/// Refuses `dir` when it holds files and is not a cargo-reduce output.
pub(super) fn check_output(dir: &Path) -> Result<(), Error> {
    let names: Vec<_> = match std::fs::read_dir(dir) {
        Ok(entries) => entries.flatten().map(|e| e.file_name()).collect(),
        Err(_) => return Ok(()),
    };
    if names.is_empty() || names.iter().any(|n| n == MARKER) {
        return Ok(());
    }
    Err(Error::new(
        Exit::Usage,
        format!(
            "output directory `{}` holds files and is not a report of `cargo reduce coverage`; give --output a new or empty directory",
            dir.display()
        ),
    ))
}

/// Writes `files` (a path under `dir`, bytes) as the directory `dir`.
pub(super) fn write_dir(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<(), Error> {
    let files: Vec<(String, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.clone(), b.as_slice()))
        .collect();
    write_set(dir, &files, Mode::Output)
}
