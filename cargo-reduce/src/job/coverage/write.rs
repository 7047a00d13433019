//! Writing a coverage report directory whole: staged beside it and
//! swapped in by one rename (`corpus::write::write_set`), marked as
//! cargo-reduce's output, so a later run may replace it and a directory
//! of the user's files is never written into.

use std::path::Path;

use crate::error::Error;
use crate::job::corpus::write::{self as corpus_write, write_set, Mode};

/// Refuses `dir` when it holds files that no report of ours wrote.
pub(super) fn check_output(dir: &Path) -> Result<(), Error> {
    corpus_write::check_output(dir, "coverage", "give --output a new or empty directory")
}

/// Writes `files` (a path under `dir`, bytes) as the directory `dir`.
pub(super) fn write_dir(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<(), Error> {
    let files: Vec<(String, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.clone(), b.as_slice()))
        .collect();
    write_set(dir, &files, Mode::Output)
}
