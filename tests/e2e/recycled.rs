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

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The slots in use: `(name, index)`.
static IN_USE: Mutex<BTreeSet<(String, usize)>> = Mutex::new(BTreeSet::new());

/// An empty directory that no other test uses until this is dropped; the
/// directory is emptied then.
pub struct RecycledDir {
    path: PathBuf,
    slot: (String, usize),
}

impl RecycledDir {
    /// The lowest free slot of `name` (one per test that holds one at the
    /// same time), emptied.
    pub fn new(name: &str) -> RecycledDir {
        let slot = {
            let mut in_use = IN_USE.lock().unwrap_or_else(|e| e.into_inner());
            let index = (0..)
                .find(|i| !in_use.contains(&(name.to_string(), *i)))
                .unwrap();
            let slot = (name.to_string(), index);
            in_use.insert(slot.clone());
            slot
        };
        let path = base().join(format!("{name}-{}", slot.1));
        if !empty(&path) {
            panic!("cannot empty {}", path.display());
        }
        fs::create_dir_all(&path).unwrap();
        RecycledDir { path, slot }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for RecycledDir {
    fn drop(&mut self) {
        // Best effort: the next test in this slot empties it again.
        empty(&self.path);
        IN_USE
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.slot);
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
