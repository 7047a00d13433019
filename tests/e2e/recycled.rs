//! Directories for the tests' copies of fixture crates, recycled from one
//! test to the next.
//!
//! cargo-reduce keeps one build directory per workspace root (see
//! `fuzz/standin/dirs.rs`), so a copy at a new path rebuilds every
//! dependency of its crate: seconds per test, most of what many tests cost.
//! A copy made in a recycled directory has the path an earlier copy of the
//! same fixture had, and its build is warm. Each copy is still a fresh copy
//! of the fixture in an emptied directory: what a test wrote is gone, and
//! the copied files are newer than any earlier build of them, so cargo
//! rebuilds what the copy holds.

use std::fs::{self, File};
use std::path::{Path, PathBuf};

/// An empty directory that no other test uses until this is dropped; the
/// directory is emptied then.
pub struct RecycledDir {
    path: PathBuf,
    /// The slot's lock, held while the directory is in use: a file lock,
    /// so that two runs of the suite at once take different slots too.
    _lock: File,
}

impl RecycledDir {
    /// The lowest free slot of `name` (one per test that holds one at the
    /// same time, in this run or another), emptied.
    pub fn new(name: &str) -> RecycledDir {
        let base = base();
        fs::create_dir_all(&base).unwrap();
        let (path, lock) = (0..)
            .find_map(|i| {
                let lock = File::create(base.join(format!("{name}-{i}.lock"))).unwrap();
                lock.try_lock()
                    .ok()
                    .map(|()| (base.join(format!("{name}-{i}")), lock))
            })
            .unwrap();
        if !empty(&path) {
            panic!("cannot empty {}", path.display());
        }
        fs::create_dir_all(&path).unwrap();
        RecycledDir { path, _lock: lock }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for RecycledDir {
    fn drop(&mut self) {
        // Best effort: the next test in this slot empties it again. The
        // lock is released after, when the file is closed.
        empty(&self.path);
    }
}

/// The directory of the slots: outside the repository (whose git root
/// would otherwise be the copies' too), one per checkout's tests.
fn base() -> PathBuf {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    env!("CARGO_TARGET_TMPDIR").hash(&mut hasher);
    std::env::temp_dir().join(format!("cargo-reduce-e2e-{:016x}", hasher.finish()))
}

/// Removes `dir` and everything in it, also where a test left a folder
/// read-only: whether it is gone.
fn empty(dir: &Path) -> bool {
    if fs::remove_dir_all(dir).is_err() && dir.exists() {
        writable(dir);
        let _ = fs::remove_dir_all(dir);
    }
    !dir.exists()
}

fn writable(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = fs::set_permissions(dir, fs::Permissions::from_mode(0o755));
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            writable(&entry.path());
        }
    }
}
