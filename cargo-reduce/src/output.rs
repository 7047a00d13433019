//! Writing results without ever touching the input or replacing what is
//! not a file: default output names, the output location checked before
//! the first test ([`Destination::check`]), atomic writes (a temporary file
//! in the target directory, renamed into place, so an interrupted write
//! never leaves a half-written file), a symlink's target written rather
//! than the link replaced, and a fallback place when the write fails at
//! the end, so a finished reduction is never lost. The temporary files are
//! `.cargo-reduce-<pid>-<random>`: one that a run killed while writing
//! (SIGKILL) left behind is removed by the next run that writes into the
//! same directory.

use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// `dir/crash.js` → `dir/crash.reduced.js`; `dir/crash` → `dir/crash.reduced`;
/// `dir/lib.rs` → `dir/lib_reduced.rs`.
pub(crate) fn default_output_path(input: &Path) -> PathBuf {
    let stem = input.file_stem().unwrap_or_default().to_string_lossy();
    let name = match input.extension().map(|e| e.to_string_lossy()) {
        // rustc takes a crate's name from its file's stem, where a `.` is
        // refused: `lib.reduced.rs` would fail the script that reduced it.
        Some(ext) if ext == "rs" => format!("{stem}_reduced.rs"),
        Some(ext) => format!("{stem}.reduced.{ext}"),
        None => format!("{stem}.reduced"),
    };
    input.with_file_name(name)
}

/// Where a result goes, checked for writing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Destination {
    /// Standard output (`-o -`).
    Stdout,
    /// A regular file, written atomically: `path` as given, `resolved` the
    /// file actually replaced (a symlink's target, so the link stays).
    File {
        /// The path as the user gave it (for messages).
        path: PathBuf,
        /// The path written.
        resolved: PathBuf,
    },
}

/// Why an output location cannot be written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum OutputError {
    /// It exists and is not a regular file (a directory, a device, a FIFO).
    #[error("output `{}` is {what}, not a regular file: give the path of a file to write, or `-` for standard output", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is.
        what: &'static str,
    },
    /// A symlink to nothing: writing would create a file somewhere else.
    #[error("output `{}` is a symlink to a missing file: remove it or choose another path", path.display())]
    DanglingSymlink {
        /// The path.
        path: PathBuf,
    },
    /// Its directory does not exist.
    #[error("output directory `{}` does not exist: create it or choose another path", dir.display())]
    NoDirectory {
        /// The directory.
        dir: PathBuf,
    },
    /// Its directory cannot be written.
    #[error("cannot create a file in output directory `{}` ({source}): choose another path", dir.display())]
    NotWritable {
        /// The directory.
        dir: PathBuf,
        /// What failed.
        source: io::Error,
    },
}

impl Destination {
    /// `path` as a destination (`-` is standard output), refused at once
    /// when it cannot be written: it exists and is not a regular file, it
    /// is a dangling symlink, or its directory is missing or not writable.
    pub(crate) fn check(path: &Path) -> Result<Destination, OutputError> {
        if path == Path::new("-") {
            return Ok(Destination::Stdout);
        }
        let resolved = resolve(path)?;
        let dir = parent(&resolved);
        if !dir.is_dir() {
            return Err(OutputError::NoDirectory {
                dir: dir.to_path_buf(),
            });
        }
        remove_stale_temps(dir);
        tempfile::Builder::new()
            .prefix(&temp_prefix())
            .tempfile_in(dir)
            .map_err(|source| OutputError::NotWritable {
                dir: dir.to_path_buf(),
                source: without_temp_name(source),
            })?;
        Ok(Destination::File {
            path: path.to_path_buf(),
            resolved,
        })
    }

    /// The path as the user gave it (`-` for standard output).
    pub(crate) fn path(&self) -> &Path {
        match self {
            Destination::Stdout => Path::new("-"),
            Destination::File { path, .. } => path,
        }
    }

    /// Writes `bytes`, with the permissions of `permissions_of` when given
    /// (a reduced script stays executable; a private input stays private).
    pub(crate) fn write(&self, bytes: &[u8], permissions_of: Option<&Path>) -> io::Result<()> {
        match self {
            Destination::Stdout => {
                let mut out = io::stdout().lock();
                out.write_all(bytes)?;
                out.flush()
            }
            Destination::File { resolved, .. } => write_atomically(resolved, bytes, permissions_of),
        }
    }
}

impl fmt::Display for Destination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path().display())
    }
}

/// The file `path` names: itself, or the target of the symlink it is. An
/// existing path must be a regular file.
fn resolve(path: &Path) -> Result<PathBuf, OutputError> {
    let link = fs::symlink_metadata(path);
    match fs::metadata(path) {
        Ok(meta) if meta.is_file() => Ok(fs::canonicalize(path).unwrap_or_else(|_| path.into())),
        Ok(meta) => Err(OutputError::NotAFile {
            path: path.to_path_buf(),
            what: file_type_name(&meta.file_type()),
        }),
        Err(_) if link.is_ok_and(|m| m.file_type().is_symlink()) => {
            Err(OutputError::DanglingSymlink {
                path: path.to_path_buf(),
            })
        }
        Err(_) => Ok(path.to_path_buf()),
    }
}

fn file_type_name(kind: &fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_dir() {
        "a directory"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// The prefix of this process's temporary files beside an output.
fn temp_prefix() -> String {
    format!(".cargo-reduce-{}-", std::process::id())
}

/// Removes the temporary files `.cargo-reduce-<pid>-*` in `dir` that
/// belong to this user and whose process no longer exists: what a run
/// killed while writing (SIGKILL cannot be caught) left beside its output.
/// Best effort; errors are ignored.
fn remove_stale_temps(dir: &Path) {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let me = rustix::process::geteuid().as_raw();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .as_encoded_bytes()
            .strip_prefix(b".")
            .and_then(|rest| std::str::from_utf8(rest).ok())
            .and_then(|rest| crate::command::owner_pid(rest.as_ref()))
        else {
            continue;
        };
        // The entry's own metadata: a symbolic link is never followed.
        let ours = entry.metadata().is_ok_and(|m| m.is_file() && m.uid() == me);
        if ours && !crate::command::process_exists(pid) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// `error` without the name of the temporary file that `tempfile` adds to
/// it (`… at path "dir/.cargo-reduce-…"`): by the time the message is read
/// that file is gone, and naming it only misleads.
fn without_temp_name(error: io::Error) -> io::Error {
    if error.raw_os_error().is_some() {
        return error;
    }
    match error.to_string().split_once(" at path ") {
        Some((what, _)) => io::Error::new(error.kind(), what.to_string()),
        None => error,
    }
}

/// Writes `bytes` to `path` atomically, with the permissions of
/// `permissions_of` when given, else those a plain `File::create` gives
/// (0666 less the umask; a temporary file's own are 0600).
pub(crate) fn write_atomically(
    path: &Path,
    bytes: &[u8],
    permissions_of: Option<&Path>,
) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mut tmp = tempfile::Builder::new()
        .prefix(&temp_prefix())
        .permissions(fs::Permissions::from_mode(0o666))
        .tempfile_in(parent(path))
        .map_err(without_temp_name)?;
    // Through the file itself: its errors do not name the temporary file.
    tmp.as_file_mut().write_all(bytes)?;
    tmp.as_file().sync_all()?;
    if let Some(source) = permissions_of {
        fs::set_permissions(tmp.path(), fs::metadata(source)?.permissions())?;
    }
    tmp.persist(path).map_err(|e| without_temp_name(e.error))?;
    Ok(())
}

/// Refuses a path that [`write_if_changed`] would refuse (a device, FIFO,
/// folder or dangling symlink); its folder may still be missing.
pub(crate) fn check_kept_file(path: &Path) -> Result<(), OutputError> {
    resolve(path).map(drop)
}

/// Writes `bytes` to `path` atomically (its folder made if missing),
/// unless `path` holds them already; returns whether it wrote. Files that
/// runs keep up to date (a ledger, a cache, generated tests) change only
/// when their content does. As [`Destination::check`]: never over a
/// device, FIFO or directory, and a symlink is written through.
pub(crate) fn write_if_changed(path: &Path, bytes: &[u8]) -> io::Result<bool> {
    let target = resolve(path).map_err(io::Error::other)?;
    if fs::read(&target).is_ok_and(|old| old == bytes) {
        return Ok(false);
    }
    fs::create_dir_all(parent(&target))?;
    write_atomically(&target, bytes, None)?;
    Ok(true)
}

/// Checks that a folder can be made at `path` (or is there) and can hold
/// a file, without making it: its nearest existing ancestor is a folder
/// that a file can be created in.
pub(crate) fn check_folder(path: &Path) -> io::Result<()> {
    let existing = path
        .ancestors()
        .find(|a| !a.as_os_str().is_empty() && fs::symlink_metadata(a).is_ok())
        .unwrap_or(Path::new("."));
    if !fs::metadata(existing)?.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::NotADirectory,
            format!("`{}` is not a folder", existing.display()),
        ));
    }
    tempfile::tempfile_in(existing)
        .map(drop)
        .map_err(without_temp_name)
}

/// Checks that the temporary directory (`TMPDIR`) can hold a file, without
/// leaving one there.
pub(crate) fn check_temp_dir() -> io::Result<()> {
    tempfile::tempfile_in(std::env::temp_dir())
        .map(drop)
        .map_err(without_temp_name)
}

/// Saves `bytes` somewhere writable when the real output could not be
/// written: the temporary directory, else the current one. Returns where.
pub(crate) fn save_elsewhere(name: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    let file_name = name.file_name().unwrap_or(name.as_os_str());
    let mut last = io::Error::other("no place to save the result");
    for dir in [std::env::temp_dir(), PathBuf::from(".")] {
        let saved = tempfile::Builder::new()
            .prefix(&format!("{}.", file_name.to_string_lossy()))
            .suffix(".cargo-reduce-saved")
            .tempfile_in(&dir)
            .and_then(|mut tmp| {
                tmp.write_all(bytes)?;
                tmp.as_file().sync_all()?;
                tmp.keep().map_err(|e| e.error)
            });
        match saved {
            Ok((_, path)) => return Ok(fs::canonicalize(&path).unwrap_or(path)),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// Takes the exclusive right to write `destination` for as long as the
/// returned file is open: two runs writing one output would both report
/// success, one result silently lost. `Ok(None)` when another run holds
/// it. The lock files live in a private directory under the temporary
/// one, never beside the user's files.
pub(crate) fn lock(destination: &Destination) -> io::Result<Option<fs::File>> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let Destination::File { resolved, .. } = destination else {
        return Ok(Some(fs::File::open("/dev/null")?));
    };
    let uid = fs::metadata("/proc/self")?.uid();
    let dir = std::env::temp_dir().join(format!("cargo-reduce-locks-{uid}"));
    // Not recursive: a missing TMPDIR is the user's to fix, not to create.
    match fs::DirBuilder::new().mode(0o700).create(&dir) {
        Err(e) if e.kind() != io::ErrorKind::AlreadyExists => return Err(e),
        _ => {}
    }
    if fs::symlink_metadata(&dir)?.uid() != uid {
        return Err(io::Error::other(format!(
            "`{}` belongs to another user",
            dir.display()
        )));
    }
    let absolute = std::path::absolute(resolved)?;
    let key = xxhash_rust::xxh3::xxh3_128(absolute.as_os_str().as_encoded_bytes());
    let file = fs::File::create(dir.join(format!("{key:032x}.lock")))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(fs::TryLockError::WouldBlock) => Ok(None),
        Err(fs::TryLockError::Error(e)) => Err(e),
    }
}

/// `path` relative to the current directory when it is under it, as cargo
/// names the files it writes.
pub(crate) fn from_cwd(path: &Path) -> PathBuf {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf())
}

/// `path` for a one-line message: control characters (a newline, an ESC
/// that would drive the terminal) escaped.
pub(crate) fn shown(path: &Path) -> String {
    escape_controls(&path.display().to_string())
}

/// `text` with every control character written as an escape (`\n`,
/// `\u{1b}`).
pub(crate) fn escape_controls(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_string();
    }
    text.chars()
        .map(|c| match c {
            c if c.is_control() => c.escape_default().to_string(),
            c => c.to_string(),
        })
        .collect()
}

/// `a`, `b`: paths quoted and joined for a one-line message.
pub(crate) fn list_paths(paths: &[PathBuf]) -> String {
    let quoted: Vec<String> = paths.iter().map(|p| format!("`{}`", p.display())).collect();
    quoted.join(", ")
}

/// True when `a` and `b` name the same existing file.
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// True when `path` (existing or not) is the existing directory `dir` or
/// lies below it, symbolic links and `..` resolved.
pub(crate) fn within(path: &Path, dir: &Path) -> bool {
    let Ok(dir) = fs::canonicalize(dir) else {
        return false;
    };
    // The deepest existing ancestor resolved, the rest appended.
    let mut rest = Vec::new();
    let mut existing = path;
    let resolved = loop {
        if let Ok(resolved) = fs::canonicalize(existing) {
            break resolved;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = match parent.as_os_str().is_empty() {
                    true => Path::new("."),
                    false => parent,
                };
            }
            _ => return false,
        }
    };
    let full = rest
        .iter()
        .rev()
        .fold(resolved, |full, name| full.join(name));
    full.starts_with(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_below_a_directory_is_within_it_existing_or_not() {
        let dir = tempfile::tempdir().unwrap();
        let corpus = dir.path().join("corpus");
        fs::create_dir(&corpus).unwrap();
        assert!(within(&corpus, &corpus));
        assert!(within(&corpus.join("sub/deeper"), &corpus));
        assert!(within(&corpus.join("../corpus/sub"), &corpus));
        assert!(!within(&dir.path().join("corpus-min"), &corpus));
        assert!(!within(dir.path(), &corpus));
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&corpus, &link).unwrap();
        assert!(within(&link.join("sub"), &corpus));
    }

    #[test]
    fn kept_files_are_written_through_symlinks_and_never_over_devices() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        fs::write(&real, b"old").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert!(write_if_changed(&link, b"new").unwrap());
        assert!(!write_if_changed(&link, b"new").unwrap(), "unchanged");
        assert_eq!(fs::read(&real).unwrap(), b"new");
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(write_if_changed(Path::new("/dev/null"), b"x").is_err());
    }
    use std::os::unix::fs::PermissionsExt;

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
        // A stem rustc takes as a crate name.
        assert_eq!(
            default_output_path(Path::new("src/lib.rs")),
            Path::new("src/lib_reduced.rs")
        );
    }

    #[test]
    fn atomic_writes_replace_and_keep_permissions() {
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

    #[test]
    fn an_atomic_write_of_a_new_file_has_the_modes_a_created_file_has() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain");
        fs::File::create(&plain).unwrap();
        let out = dir.path().join("report.sarif");
        write_atomically(&out, b"{}", None).unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&out), mode(&plain));
    }

    #[test]
    fn temporaries_of_killed_runs_are_removed_by_the_next_check() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str| {
            let path = dir.path().join(name);
            fs::write(&path, "partial").unwrap();
            path
        };
        // No process has this pid: the kernel's limit is 2^22.
        let dead = 2_000_000_000;
        let stale = file(&format!(".cargo-reduce-{dead}-a1B2c3"));
        let kept = [
            file(&format!(".cargo-reduce-{}-a1B2c3", std::process::id())),
            file(".cargo-reduce-a1B2c3"), // older runs: no pid
            file(&format!("cargo-reduce-{dead}-a1B2c3")),
            file(&format!(".cargo-reduce-{dead}-")),
            file("out.txt"),
        ];
        let link = dir.path().join(format!(".cargo-reduce-{dead}-link"));
        std::os::unix::fs::symlink(&kept[4], &link).unwrap();
        Destination::check(&dir.path().join("out.txt")).unwrap();
        assert!(!stale.exists(), "the dead run's temporary file is removed");
        for path in &kept {
            assert_eq!(fs::read(path).unwrap(), b"partial", "{}", path.display());
        }
        assert!(fs::symlink_metadata(&link).is_ok(), "links are left alone");
    }

    #[test]
    fn errors_do_not_name_temporary_files() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("gone/out.txt");
        let err = write_atomically(&missing, b"x", None).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        assert!(!err.to_string().contains(".cargo-reduce-"), "{err}");
        let wrapped = io::Error::new(
            io::ErrorKind::StorageFull,
            "No space left on device (os error 28) at path \"/d/.cargo-reduce-1-x\"",
        );
        assert_eq!(
            without_temp_name(wrapped).to_string(),
            "No space left on device (os error 28)"
        );
    }

    #[test]
    fn what_is_not_a_file_is_refused_before_anything_runs() {
        let dir = tempfile::tempdir().unwrap();
        let refused = |p: &Path| Destination::check(p).unwrap_err().to_string();
        assert!(refused(Path::new("/dev/null")).contains("a character device"));
        assert!(refused(dir.path()).contains("a directory"));
        let fifo = dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        assert!(refused(&fifo).contains("a FIFO"));
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).unwrap();
        assert!(refused(&dangling).contains("symlink to a missing file"));
        assert!(refused(&dir.path().join("no/such/dir/out")).contains("does not exist"));
        assert_eq!(
            Destination::check(Path::new("-")).unwrap(),
            Destination::Stdout
        );
    }

    #[test]
    fn a_symlink_is_followed_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("real");
        fs::write(&target, "old").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        Destination::check(&link)
            .unwrap()
            .write(b"new", None)
            .unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read(&target).unwrap(), b"new");
    }

    #[test]
    fn control_characters_are_escaped_for_messages() {
        assert_eq!(shown(Path::new("a\nb\u{1b}[31m")), "a\\nb\\u{1b}[31m");
        assert_eq!(shown(Path::new("plain é")), "plain é");
    }

    #[test]
    fn one_output_is_written_by_one_run_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let out = Destination::check(&dir.path().join("out")).unwrap();
        let held = lock(&out).unwrap().expect("free");
        assert!(lock(&out).unwrap().is_none(), "held by the first");
        drop(held);
        assert!(lock(&out).unwrap().is_some(), "free again");
    }

    #[test]
    fn a_result_that_cannot_go_where_asked_is_saved_elsewhere() {
        let saved = save_elsewhere(Path::new("/nowhere/x.reduced.js"), b"kept").unwrap();
        assert_eq!(fs::read(&saved).unwrap(), b"kept");
        assert!(saved
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("x.reduced.js."));
        fs::remove_file(saved).unwrap();
    }
}
