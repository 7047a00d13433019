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

/// The file that marks an output directory as one of ours (a corpus set
/// or a coverage report), listing the files it was written with: a later
/// run may replace it, unless someone has put other files there since.
/// It sits in a hidden folder because libFuzzer and afl-fuzz read every
/// file of a corpus directory as an input, hidden files too, but skip
/// hidden folders (as `corpus` does).
const MARKER: &str = ".cargo-reduce/written";

/// The marker of earlier releases, a file beside the inputs: still read,
/// and gone with the next write.
const OLD_MARKER: &str = ".cargo-reduce-corpus";

/// The marker's listing of `dir`, from either name; `None` for a
/// directory of no run of ours.
fn read_marker(dir: &Path) -> io::Result<Option<String>> {
    for marker in [MARKER, OLD_MARKER] {
        match fs::read_to_string(dir.join(marker)) {
            Ok(listed) => return Ok(Some(listed)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(None)
}

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

/// Refuses `dir` as an output directory of `cargo reduce MODE` when it
/// cannot be made or written (a file, a folder of a file, a read-only
/// one), or when it holds a file no run of ours wrote there (a directory of the user's, or
/// another tool's files put into one of ours): it would be lost. `hint`
/// says what to do instead.
pub(in crate::job) fn check_output(dir: &Path, mode: &str, hint: &str) -> Result<(), Error> {
    crate::output::check_folder(dir).map_err(|e| {
        Error::caused_with_hint(
            Exit::Usage,
            format!("cannot write the output directory `{}`", dir.display()),
            e,
            hint,
        )
    })?;
    let Some(file) = foreign_file(dir).map_err(|e| Error::cannot("read", dir, e))? else {
        return Ok(());
    };
    let marked = read_marker(dir).is_ok_and(|listed| listed.is_some());
    let what = match file.parent() == Some(dir) && !marked {
        true => format!("holds files and is not an output of `cargo reduce {mode}`"),
        false => format!(
            "holds `{}`, which no `cargo reduce {mode}` wrote there",
            file.strip_prefix(dir).unwrap_or(&file).display()
        ),
    };
    Err(Error::new(
        Exit::Usage,
        format!("output directory `{}` {what}; {hint}", dir.display()),
    ))
}

/// The first file under `dir` that would be lost in replacing it: any
/// entry of an unmarked directory, or a file its marker does not list
/// (a marker of an older release lists none, and vouches for all).
fn foreign_file(dir: &Path) -> io::Result<Option<PathBuf>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let Some(listed) = read_marker(dir)? else {
        return Ok(entries.flatten().next().map(|e| e.path()));
    };
    let listed: std::collections::HashSet<&str> = listed.lines().collect();
    if listed.is_empty() {
        return Ok(None);
    }
    let foreign = walkdir::WalkDir::new(dir)
        .min_depth(1)
        .into_iter()
        .flatten()
        .filter(|e| !e.file_type().is_dir())
        .map(walkdir::DirEntry::into_path)
        .find(|path| {
            let name = path.strip_prefix(dir).unwrap_or(path).to_string_lossy();
            name != MARKER && name != OLD_MARKER && !listed.contains(name.as_ref())
        });
    Ok(foreign)
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
        let folder = marker.parent().unwrap_or(staged.path());
        fs::create_dir_all(folder).map_err(|e| Error::cannot("create", folder, e))?;
        let listed: String = files.iter().map(|(name, _)| format!("{name}\n")).collect();
        write(&marker, listed.as_bytes()).map_err(|e| Error::cannot("write", &marker, e))?;
        // Again under the lock: files put there since the run's first check.
        if let Some(file) = foreign_file(dest).map_err(|e| Error::cannot("read", dest, e))? {
            return Err(Error::new(
                Exit::Usage,
                format!(
                    "output directory `{}` now holds `{}`, which no run of cargo-reduce wrote there; \
                     nothing was replaced: give --output a new or empty directory",
                    dest.display(),
                    file.display()
                ),
            ));
        }
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
        check_output(&out, "corpus", "").unwrap();
        assert!(
            check_output(&dest, "corpus", "").is_err(),
            "a directory of the user's"
        );
    }

    /// A marked output into which another tool put a file (`cargo fuzz
    /// coverage` writes `coverage/<target>/coverage.profdata`) is not ours
    /// to replace: the file is named, up front and under the write's lock;
    /// a marker of an older release (empty) vouches for what is there.
    #[test]
    fn a_file_put_into_a_marked_output_is_never_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("report");
        let files = [
            ("lcov.info".into(), &b"TN:"[..]),
            ("t/html/index.html".into(), &b"<html>"[..]),
        ];
        write_set(&out, &files, Mode::Output).unwrap();
        check_output(&out, "coverage", "").unwrap();
        write_set(&out, &files, Mode::Output).unwrap();
        let theirs = out.join("t/coverage.profdata");
        fs::write(&theirs, b"profile").unwrap();
        let refused = check_output(&out, "coverage", "").unwrap_err().to_string();
        assert!(refused.contains("t/coverage.profdata"), "{refused}");
        assert!(write_set(&out, &files, Mode::Output).is_err());
        assert_eq!(fs::read(&theirs).unwrap(), b"profile", "kept");
        fs::write(out.join(MARKER), b"").unwrap();
        check_output(&out, "coverage", "").unwrap();
    }

    /// libFuzzer (`-merge`, `-runs=0`, a fuzzing run) and afl-fuzz read
    /// every file of a corpus directory, hidden ones too, and skip hidden
    /// folders: a set's directory holds its inputs as files and nothing
    /// else, so that they load as many inputs as it has.
    #[test]
    fn a_sets_directory_holds_no_file_but_its_inputs() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("corpus-min/t");
        write_set(
            &out,
            &[("a".into(), b"1"), ("b".into(), b"22")],
            Mode::Output,
        )
        .unwrap();
        let mut files: Vec<String> = fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap())
            .filter(|e| e.file_type().unwrap().is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        assert_eq!(files, ["a", "b"]);
        check_output(&out, "corpus", "").unwrap();
    }

    /// An output of an earlier release, marked by a file beside its inputs,
    /// is still ours to replace, and the marker file goes with it.
    #[test]
    fn an_output_with_the_earlier_marker_file_is_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("t");
        fs::create_dir(&out).unwrap();
        fs::write(out.join("a"), b"1").unwrap();
        fs::write(out.join(OLD_MARKER), b"a\n").unwrap();
        check_output(&out, "corpus", "").unwrap();
        fs::write(out.join("theirs"), b"x").unwrap();
        assert!(check_output(&out, "corpus", "").is_err());
        fs::remove_file(out.join("theirs")).unwrap();
        write_set(&out, &[("b".into(), b"2")], Mode::Output).unwrap();
        assert!(!out.join(OLD_MARKER).exists());
        assert_eq!(fs::read(out.join("b")).unwrap(), b"2");
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
