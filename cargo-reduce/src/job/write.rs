//! Writing a result: where it goes (a result that is not 1-minimal may go
//! elsewhere, so it never stands under a final name), atomically, with the
//! input's permissions, and somewhere else when that fails, so a finished
//! reduction is never lost.

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Exit};
use crate::fuzz::pool::FailureKind;
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

/// libFuzzer's artifact prefix for a failure of `kind` (a leak's too: a
/// `leak-*` input is the one whose pool looks for leaks).
pub(super) fn artifact_prefix(kind: FailureKind) -> &'static str {
    match kind {
        FailureKind::Timeout => "timeout-",
        FailureKind::Oom => "oom-",
        _ if kind.is_leak() => "leak-",
        _ => "crash-",
    }
}

/// Writes `bytes` as `dir/name` unless that file exists (the same name is
/// the same content); its path, and whether it was written.
pub(super) fn artifact(dir: &Path, name: &str, bytes: &[u8]) -> Result<(PathBuf, bool), Error> {
    let path = dir.join(name);
    if path.exists() {
        return Ok((path, false));
    }
    fs::create_dir_all(dir).map_err(|e| Error::cannot("create", dir, e))?;
    crate::output::write_atomically(&path, bytes, None)
        .map_err(|e| Error::cannot("write", &path, e))?;
    // As libFuzzer leaves its artifacts (a temporary file is private).
    let readable = std::os::unix::fs::PermissionsExt::from_mode(0o644);
    fs::set_permissions(&path, readable).map_err(|e| Error::cannot("write", &path, e))?;
    Ok((path, true))
}

/// A file of `dir` (not in its subfolders) whose content is `bytes`; the
/// first by name, so the answer does not depend on the listing's order.
/// An input to file that is there already under another name (a minimized
/// copy it equals) is not filed again: the next run would reduce or report
/// it a second time.
pub(super) fn file_with_content(dir: &Path, bytes: &[u8]) -> Option<PathBuf> {
    let mut same_size: Vec<PathBuf> = fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter(|e| {
            e.metadata()
                .is_ok_and(|m| m.is_file() && m.len() == bytes.len() as u64)
        })
        .map(|e| e.path())
        .collect();
    same_size.sort();
    same_size
        .into_iter()
        .find(|p| fs::read(p).is_ok_and(|content| content == bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_found_by_its_content() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("minimized-from-crash-1"), b"abc").unwrap();
        fs::write(d.join("crash-0"), b"abc").unwrap();
        fs::write(d.join("crash-2"), b"abd").unwrap();
        fs::create_dir(d.join("sub")).unwrap();
        fs::write(d.join("sub/x"), b"xyz").unwrap();
        assert_eq!(file_with_content(d, b"abc"), Some(d.join("crash-0")));
        assert_eq!(file_with_content(d, b"abe"), None);
        assert_eq!(file_with_content(d, b"xyz"), None, "not in subfolders");
        assert_eq!(file_with_content(&d.join("none"), b"abc"), None);
    }

    /// A leak found while reducing is filed as `leak-*`: only such an
    /// input is reproduced by a pool that looks for leaks.
    #[test]
    fn artifacts_are_named_by_their_kind() {
        let leak = FailureKind::from_tag("asan-memory-leak").unwrap();
        assert!(leak.is_leak());
        assert_eq!(artifact_prefix(leak), "leak-");
        let overflow = FailureKind::from_tag("asan-heap-buffer-overflow").unwrap();
        assert_eq!(artifact_prefix(overflow), "crash-");
        assert_eq!(artifact_prefix(FailureKind::Panic), "crash-");
        assert_eq!(artifact_prefix(FailureKind::Timeout), "timeout-");
        assert_eq!(artifact_prefix(FailureKind::Oom), "oom-");
    }
}
