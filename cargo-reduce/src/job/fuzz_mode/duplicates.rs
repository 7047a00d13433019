//! The duplicates a run found, kept for `cargo reduce list`: an input that
//! fails like another is not reduced (its failure is reduced once), and
//! `list` would otherwise show it as not reduced on every later look. Kept
//! in `<target dir>/cargo-reduce/duplicates.json`, each input with the
//! size and modification time it had (a file changed since is not taken
//! for the input it was).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use super::Work;
use crate::fuzz::project::FuzzProject;
use crate::job::group::Role;
use crate::output::write_if_changed;

/// One input known to fail like another.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    /// The input it fails like (reduced, or reduced for it).
    of: PathBuf,
    /// Its size and modification time (nanoseconds since the epoch).
    size: u64,
    modified: u128,
}

/// The duplicates known in one fuzz crate, by input path.
#[derive(Debug, Default)]
pub(crate) struct Duplicates {
    entries: BTreeMap<PathBuf, Entry>,
}

impl Duplicates {
    /// The duplicates kept for `project` (none if the file is missing or
    /// unreadable).
    pub(crate) fn load(project: &FuzzProject) -> Duplicates {
        Duplicates::read(&file(project))
    }

    fn read(file: &Path) -> Duplicates {
        let entries = fs::read(file)
            .ok()
            .and_then(|text| serde_json::from_slice(&text).ok())
            .unwrap_or_default();
        Duplicates { entries }
    }

    /// The input `path` fails like, if a run found it a duplicate and it
    /// is the same file still.
    pub(crate) fn of(&self, path: &Path) -> Option<&Path> {
        let entry = self.entries.get(path)?;
        (stamp(path) == Some((entry.size, entry.modified))).then_some(entry.of.as_path())
    }

    /// Records in `file` what a run decided about `inputs` (each path with
    /// the input it fails like, if it is a duplicate): their earlier
    /// entries are replaced, entries of files gone are dropped.
    fn record(file: &Path, inputs: &[(&Path, Option<&Path>)]) -> std::io::Result<()> {
        // Runs in one target directory at once would lose each other's.
        fs::create_dir_all(file.parent().unwrap_or(Path::new(".")))?;
        let lock = fs::File::create(file.with_extension("lock"))?;
        lock.lock()?;
        let mut known = Duplicates::read(file);
        for &(path, of) in inputs {
            known.entries.remove(path);
            let (Some(of), Some((size, modified))) = (of, stamp(path)) else {
                continue;
            };
            let of = of.to_path_buf();
            let entry = Entry { of, size, modified };
            known.entries.insert(path.to_path_buf(), entry);
        }
        known.entries.retain(|path, _| path.is_file());
        let text = serde_json::to_vec_pretty(&known.entries).map_err(std::io::Error::other)?;
        write_if_changed(file, &text).map(drop)
    }
}

/// Records the duplicates of a run that replayed and grouped `work` (by
/// `roles`), per crate. A file that cannot be written only costs `list`
/// its note.
pub(super) fn record_run(projects: &[FuzzProject], work: &[Work], roles: &[Option<Role>]) {
    for (p, project) in projects.iter().enumerate() {
        let inputs: Vec<(&Path, Option<&Path>)> = work
            .iter()
            .zip(roles)
            .filter(|(item, _)| item.project == p && !item.done)
            .map(|(item, role)| {
                let of = match role {
                    Some(Role::Duplicate { of }) => Some(work[*of].artifact.path.as_path()),
                    _ => None,
                };
                (item.artifact.path.as_path(), of)
            })
            .collect();
        if !inputs.is_empty() {
            let _ = Duplicates::record(&file(project), &inputs);
        }
    }
}

/// Where a crate's duplicates are kept.
fn file(project: &FuzzProject) -> PathBuf {
    project
        .target_dir
        .join("cargo-reduce")
        .join("duplicates.json")
}

/// The size and modification time of the file at `path`.
fn stamp(path: &Path) -> Option<(u64, u128)> {
    let meta = fs::metadata(path).ok()?;
    let modified = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    Some((meta.len(), modified.as_nanos()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_duplicate_is_known_until_its_file_changes_or_a_run_says_otherwise() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("duplicates.json");
        let (a, b, c) = (
            dir.path().join("crash-a"),
            dir.path().join("crash-b"),
            dir.path().join("crash-c"),
        );
        for path in [&a, &b, &c] {
            fs::write(path, b"x").unwrap();
        }
        Duplicates::record(&file, &[(&b, Some(&a)), (&c, Some(&a))]).unwrap();
        let known = Duplicates::read(&file);
        assert_eq!(known.of(&b), Some(a.as_path()));
        assert_eq!(known.of(&a), None);
        // Another run found c failing differently; b's file was rewritten.
        Duplicates::record(&file, &[(&c, None)]).unwrap();
        fs::write(&b, b"longer").unwrap();
        let known = Duplicates::read(&file);
        assert_eq!(known.of(&c), None);
        assert_eq!(known.of(&b), None, "another file now");
        // A file gone leaves the record at the next run.
        fs::remove_file(&b).unwrap();
        Duplicates::record(&file, &[]).unwrap();
        assert!(Duplicates::read(&file).entries.is_empty());
    }
}
