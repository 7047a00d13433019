//! Writing a minimized corpus so that no moment loses one: the new set
//! goes to a hidden sibling directory, every file and the directory
//! synced, then takes the destination's place in one `rename` (or, over
//! a directory that exists, one `renameat2(RENAME_EXCHANGE)`, which swaps
//! the two atomically). Until then the destination is as it was; Ctrl-C
//! or kill -9 at any moment leaves either the old directory or the new one
//! there, never a mix or none; what such a kill leaves beside it goes
//! with the next write. And failing inputs as artifacts.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::error::{Error, Exit};
use crate::job::threads::map_in_order;

/// The file that marks an output directory as `corpus`'s own (so a second
/// run may replace it; any other directory with files is refused).
pub(in crate::job) const MARKER: &str = ".cargo-reduce-corpus";

/// Files written and synced at once (each on a thread of its own).
const SYNCS_IN_FLIGHT: usize = 8;

/// How a destination is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::job) enum Mode {
    /// A directory of `corpus`'s own (marked), new or from an earlier run.
    Output,
    /// The corpus itself, replaced (`--in-place`).
    InPlace,
}

/// Refuses `dir` as an output directory when it holds files and is not
/// marked as one of `corpus`'s outputs: they would be lost.
pub(super) fn check_output(dir: &Path) -> Result<(), Error> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::cannot("read", dir, e)),
    };
    let names: Vec<_> = entries.flatten().map(|e| e.file_name()).collect();
    if names.is_empty() || names.iter().any(|n| n == MARKER) {
        return Ok(());
    }
    Err(Error::new(
        Exit::Usage,
        format!(
            "output directory `{}` holds files and is not an output of `cargo reduce corpus`; \
             give --output a new or empty directory, or use --in-place to replace the corpus",
            dir.display()
        ),
    ))
}

/// Writes `files` (name, bytes; a name may hold folders) as the directory `dest`, replacing what is
/// there in one step (see the module's doc).
pub(in crate::job) fn write_set(
    dest: &Path,
    files: &[(String, &[u8])],
    mode: Mode,
) -> Result<(), Error> {
    let parent = dest
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(|e| Error::cannot("create", parent, e))?;
    let name = dest.file_name().unwrap_or_default().to_string_lossy();
    let prefix = format!(".{name}.cargo-reduce-");
    // One writer per parent at a time: under the lock, every staged
    // directory of this destination is a killed run's.
    let _lock = lock_dir(parent)?;
    remove_stale(parent, &prefix);
    let staged = tempfile::Builder::new()
        .prefix(&prefix)
        .tempdir_in(parent)
        .map_err(|e| Error::cannot("create a directory in", parent, e))?;
    let write = |path: &Path, bytes: &[u8]| -> io::Result<()> {
        let file = fs::File::create(path)?;
        io::Write::write_all(&mut &file, bytes)?;
        file.sync_all()
    };
    let staged_files: Vec<(PathBuf, &[u8])> = files
        .iter()
        .map(|(file, bytes)| (staged.path().join(file), *bytes))
        .collect();
    for (path, _) in &staged_files {
        // A name may hold folders (a coverage report's pages).
        let folder = path.parent().unwrap_or(staged.path());
        fs::create_dir_all(folder).map_err(|e| Error::cannot("create", folder, e))?;
    }
    // A sync waits on the disk, not on a CPU: with several in flight the
    // filesystem commits them together.
    let written = map_in_order(&staged_files, SYNCS_IN_FLIGHT, |(path, bytes)| {
        write(path, bytes).map_err(|e| Error::cannot("write", path, e))
    });
    written.into_iter().collect::<Result<(), Error>>()?;
    if mode == Mode::Output {
        let marker = staged.path().join(MARKER);
        write(&marker, b"").map_err(|e| Error::cannot("write", &marker, e))?;
    }
    sync_dir(staged.path())?;
    swap_in(staged, dest)?;
    sync_dir(parent)
}

/// An exclusive `flock` on the directory `dir`, held until the file is
/// dropped (a run killed with it held releases it with its descriptors).
fn lock_dir(dir: &Path) -> Result<fs::File, Error> {
    let file = fs::File::open(dir).map_err(|e| Error::cannot("open", dir, e))?;
    rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
        .map_err(|e| Error::cannot("lock", dir, e.into()))?;
    Ok(file)
}

/// Removes the directories a run killed while writing left beside the
/// destination: a staged set, or after the exchange the replaced
/// directory. Only directories named with `prefix` (which ends in
/// `.cargo-reduce-`), never another file; best effort.
fn remove_stale(parent: &Path, prefix: &str) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let ours = entry.file_name().to_string_lossy().starts_with(prefix);
        if ours && entry.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// Puts the directory `staged` at `dest`: a rename when there is nothing
/// there, else an atomic exchange, after which the old directory (now at
/// the staged path) is removed.
fn swap_in(staged: tempfile::TempDir, dest: &Path) -> Result<(), Error> {
    let from = staged.keep();
    let moved = match fs::symlink_metadata(dest) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => fs::rename(&from, dest),
        _ => rustix::fs::renameat_with(
            rustix::fs::CWD,
            &from,
            rustix::fs::CWD,
            dest,
            rustix::fs::RenameFlags::EXCHANGE,
        )
        .map_err(io::Error::from),
    };
    if let Err(e) = moved {
        let _ = fs::remove_dir_all(&from);
        return Err(Error::cannot("replace", dest, e));
    }
    // The old directory, if there was one; best effort.
    let _ = fs::remove_dir_all(&from);
    Ok(())
}

fn sync_dir(dir: &Path) -> Result<(), Error> {
    fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::cannot("sync", dir, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        files.sort();
        files
    }

    #[test]
    fn a_set_replaces_the_directory_whole_and_leaves_nothing_beside_it() {
        let tmp = tempfile::tempdir().unwrap();
        let dest = tmp.path().join("corpus");
        fs::create_dir(&dest).unwrap();
        fs::write(dest.join("old"), b"old").unwrap();
        write_set(
            &dest,
            &[("a".into(), b"1"), ("b".into(), b"22")],
            Mode::InPlace,
        )
        .unwrap();
        assert_eq!(
            listing(&dest),
            vec![("a".into(), b"1".to_vec()), ("b".into(), b"22".to_vec())]
        );
        assert_eq!(
            fs::read_dir(tmp.path()).unwrap().count(),
            1,
            "no staged directory left"
        );
        let out = tmp.path().join("new/out");
        write_set(&out, &[("c".into(), b"3")], Mode::Output).unwrap();
        assert!(out.join(MARKER).is_file());
        check_output(&out).unwrap();
        assert!(check_output(&dest).is_err(), "a directory of the user's");
    }

    /// What a kill -9 leaves beside the destination (a staged set, or the
    /// replaced directory after the exchange) goes with the next write;
    /// the user's hidden files beside it stay.
    #[test]
    fn a_killed_runs_staged_directory_is_removed_by_the_next_write() {
        let tmp = tempfile::tempdir().unwrap();
        let dest = tmp.path().join("corpus");
        let stale = tmp.path().join(".corpus.cargo-reduce-Ab12Cd");
        fs::create_dir(&stale).unwrap();
        fs::write(stale.join("half"), b"x").unwrap();
        let mine = tmp.path().join(".corpus.mine");
        fs::create_dir(&mine).unwrap();
        let file = tmp.path().join(".corpus.cargo-reduce-notes");
        fs::write(&file, b"a file, not a staged directory").unwrap();
        write_set(&dest, &[("a".into(), b"1")], Mode::InPlace).unwrap();
        assert!(!stale.exists());
        assert!(mine.is_dir() && file.is_file());
        assert_eq!(listing(&dest), vec![("a".into(), b"1".to_vec())]);
    }
}
