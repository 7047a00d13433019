//! Writing results without ever touching the input: default output names,
//! and atomic writes (a temporary file in the target directory, renamed
//! into place), so an interrupted write never leaves a half-written file.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// `dir/crash.js` → `dir/crash.reduced.js`; `dir/crash` → `dir/crash.reduced`.
pub fn default_output_path(input: &Path) -> PathBuf {
    let stem = input.file_stem().unwrap_or_default().to_string_lossy();
    let name = match input.extension() {
        Some(ext) => format!("{stem}.reduced.{}", ext.to_string_lossy()),
        None => format!("{stem}.reduced"),
    };
    input.with_file_name(name)
}

/// Writes `bytes` to `path` atomically, with the permissions of
/// `permissions_of` when given (a reduced script stays executable).
pub fn write_atomically(
    path: &Path,
    bytes: &[u8],
    permissions_of: Option<&Path>,
) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".cargo-reduce-")
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    if let Some(source) = permissions_of {
        fs::set_permissions(tmp.path(), fs::metadata(source)?.permissions())?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// True when `a` and `b` name the same existing file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_names_insert_reduced_before_the_extension() {
        assert_eq!(
            default_output_path(Path::new("a/crash.js")),
            Path::new("a/crash.reduced.js")
        );
        assert_eq!(
            default_output_path(Path::new("crash-1234")),
            Path::new("crash-1234.reduced")
        );
        assert_eq!(
            default_output_path(Path::new("x.tar.gz")),
            Path::new("x.tar.reduced.gz")
        );
    }

    #[test]
    fn atomic_writes_replace_and_keep_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("t.sh");
        fs::write(&src, "old").unwrap();
        fs::set_permissions(&src, fs::Permissions::from_mode(0o755)).unwrap();
        let out = dir.path().join("t.reduced.sh");
        write_atomically(&out, b"new", Some(&src)).unwrap();
        assert_eq!(fs::read(&out).unwrap(), b"new");
        assert_eq!(
            fs::metadata(&out).unwrap().permissions().mode() & 0o777,
            0o755
        );
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            2,
            "no temporary file left"
        );
        assert!(same_file(&src, &dir.path().join("./t.sh")));
    }
}
