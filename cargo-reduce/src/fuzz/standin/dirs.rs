//! The build directories under `<target-dir>/cargo-reduce/`: one per
//! workspace, shared by all its fuzz crates. Sources are remapped relative
//! to the workspace root (`--remap-path-prefix`), and cargo keeps one
//! build of a crate per set of remaps, so workspaces that share a target
//! directory (`CARGO_TARGET_DIR`, or tests that copy a project to new
//! places) would rebuild every dependency for one another in one
//! directory.
//!
//! Only those of the [`KEEP`] most recently used workspaces are kept, each
//! workspace's every kind of build (plain, AddressSanitizer, coverage…):
//! a run holds a shared lock on the directory it built into until it ends
//! (its workers are started from the binaries there), and an older
//! directory is removed only when no run holds it.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::error::{io_error, BuildError};

/// How many workspaces' build directories stay (each holds a whole build
/// of its workspace's fuzz crates and their dependencies, one per kind of
/// build the workspace made: fuzz mode, `corpus` and `coverage` make up to
/// five, and counting directories evicted one of its own kinds).
const KEEP: usize = 4;

/// The locks this process holds on the build directories it uses.
static IN_USE: Mutex<Vec<File>> = Mutex::new(Vec::new());

/// The build directory of the workspace at `workspace_root` under `root`
/// (`<kind>-<hash>`: `kind` is `build`, `build-asan` for the
/// AddressSanitizer build, or `build-nightly` for targets that need
/// nightly), marked as in use by this process and as the most recently used; older
/// ones beyond [`KEEP`] that no run uses are removed. Call with the
/// builds' exclusive lock held.
pub(super) fn build_dir(
    root: &Path,
    workspace_root: &Path,
    kind: &str,
) -> Result<PathBuf, BuildError> {
    let key = xxhash_rust::xxh3::xxh3_64(workspace_root.as_os_str().as_encoded_bytes());
    let dir = root.join(format!("{kind}-{key:016x}"));
    let lock = lock_path(&dir);
    std::fs::create_dir_all(root).map_err(io_error(root))?;
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock)
        .map_err(io_error(&lock))?;
    file.lock_shared().map_err(io_error(&lock))?;
    file.set_modified(std::time::SystemTime::now())
        .map_err(io_error(&lock))?;
    IN_USE.lock().unwrap_or_else(|e| e.into_inner()).push(file);
    remove_old(root, &dir);
    Ok(dir)
}

/// The lock file of build directory `dir`, beside it (not `build.lock`,
/// the builds' exclusive lock, for the `build/` of earlier versions).
fn lock_path(dir: &Path) -> PathBuf {
    let name = dir.file_name().unwrap_or_default().to_string_lossy();
    dir.with_file_name(format!("{name}.in-use"))
}

/// Removes the build directories under `root` of the workspaces past the
/// [`KEEP`] most recently used (`current`'s among them) that no run holds,
/// and the `build/` of earlier cargo-reduce versions. Best effort: a
/// directory that cannot be removed stays.
fn remove_old(root: &Path, current: &Path) {
    let Ok(listing) = std::fs::read_dir(root) else {
        return;
    };
    let mut dirs: Vec<(std::time::SystemTime, String, PathBuf)> = listing
        .flatten()
        .map(|e| e.path())
        .filter(|p| p != current && p.is_dir())
        .filter_map(|p| Some((last_used(&p), workspace_key(&p)?, p)))
        .collect();
    dirs.sort_by(|a, b| b.cmp(a));
    let kept = kept_workspaces(workspace_key(current), dirs.iter().map(|(_, key, _)| key));
    for (_, _, dir) in dirs.into_iter().filter(|(_, key, _)| !kept.contains(key)) {
        let lock = lock_path(&dir);
        let Ok(file) = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock)
        else {
            continue;
        };
        if file.try_lock().is_ok() {
            let _ = std::fs::remove_dir_all(&dir);
            let _ = std::fs::remove_file(&lock);
        }
    }
}

/// When a run last took build directory `dir` (its lock file's time).
fn last_used(dir: &Path) -> std::time::SystemTime {
    std::fs::metadata(lock_path(dir))
        .and_then(|m| m.modified())
        .unwrap_or(std::time::UNIX_EPOCH)
}

/// The [`KEEP`] workspaces whose directories stay: `current`'s, then the
/// others in `by_last_use`'s order. An earlier version's directory (an
/// empty key) is never kept.
fn kept_workspaces<'a>(
    current: Option<String>,
    by_last_use: impl Iterator<Item = &'a String>,
) -> Vec<String> {
    let mut kept: Vec<String> = current.into_iter().collect();
    for key in by_last_use {
        if kept.len() == KEEP {
            break;
        }
        if !key.is_empty() && !kept.contains(key) {
            kept.push(key.clone());
        }
    }
    kept
}

/// The workspace of build directory `path`: the hash its name ends with
/// (`build-<hash>`, or with the kinds between: `build-asan-<hash>`,
/// `build-coverage-nightly-<hash>`, `build-coverage-lines-<hash>`), empty
/// for the `build` and `build-asan` of earlier versions; `None` for any
/// other folder.
fn workspace_key(path: &Path) -> Option<String> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let mut hash = name.strip_prefix("build")?;
    while let Some(rest) = ["-asan", "-nightly", "-coverage", "-lines"]
        .iter()
        .find_map(|kind| hash.strip_prefix(kind))
    {
        hash = rest;
    }
    match hash.strip_prefix('-') {
        None if hash.is_empty() => Some(String::new()),
        Some(h) if h.len() == 16 => Some(h.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tests that release this process's locks ([`IN_USE`]) run one at
    /// a time: each holds some while it checks that they keep a directory.
    static RELEASES: Mutex<()> = Mutex::new(());

    #[test]
    fn each_workspace_has_its_own_directory_and_old_unused_ones_go() {
        let _one_at_a_time = RELEASES.lock().unwrap_or_else(|e| e.into_inner());
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let dirs: Vec<PathBuf> = (0..KEEP + 2)
            .map(|i| {
                let dir = build_dir(root, Path::new(&format!("/ws/{i}")), "build").unwrap();
                std::fs::create_dir_all(dir.join("release")).unwrap();
                dir
            })
            .collect();
        assert_eq!(
            build_dir(root, Path::new("/ws/0"), "build").unwrap(),
            dirs[0]
        );
        // This process holds every one of them: none goes.
        assert!(dirs.iter().all(|d| d.is_dir()));
        // Released (as when the runs that used them ended), the least
        // recently used go.
        IN_USE.lock().unwrap().clear();
        let legacy = root.join("build");
        std::fs::create_dir_all(&legacy).unwrap();
        // The builds' exclusive lock, held as `build_workers` holds it.
        let builds = File::create(root.join("build.lock")).unwrap();
        builds.lock().unwrap();
        let newest = build_dir(root, Path::new("/ws/new"), "build").unwrap();
        std::fs::create_dir_all(&newest).unwrap();
        let left: Vec<bool> = dirs.iter().map(|d| d.is_dir()).collect();
        assert_eq!(
            left.iter().filter(|&&kept| kept).count(),
            KEEP - 1,
            "{left:?}"
        );
        assert!(dirs[0].is_dir(), "used last but one");
        assert!(!legacy.exists());
        assert!(root.join("build.lock").is_file());
        assert!(newest.is_dir());
    }

    #[test]
    fn a_workspace_keeps_every_kind_of_its_builds() {
        let _one_at_a_time = RELEASES.lock().unwrap_or_else(|e| e.into_inner());
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let kinds = [
            "build",
            "build-asan",
            "build-coverage",
            "build-coverage-asan",
            "build-coverage-lines",
            "build-nightly",
        ];
        let dirs: Vec<PathBuf> = kinds
            .iter()
            .map(|kind| {
                let dir = build_dir(root, Path::new("/ws/one"), kind).unwrap();
                std::fs::create_dir_all(&dir).unwrap();
                dir
            })
            .collect();
        IN_USE.lock().unwrap().clear();
        let again = build_dir(root, Path::new("/ws/one"), "build").unwrap();
        assert_eq!(again, dirs[0]);
        assert!(dirs.iter().all(|d| d.is_dir()), "none of its own goes");
    }

    #[test]
    fn every_kind_of_build_dir_is_known() {
        for name in [
            "build-0123456789abcdef",
            "build-asan-0123456789abcdef",
            "build-nightly-0123456789abcdef",
            "build-coverage-0123456789abcdef",
            "build-coverage-nightly-0123456789abcdef",
            "build-coverage-lines-0123456789abcdef",
            "build",
            "build-asan",
        ] {
            assert!(workspace_key(Path::new(name)).is_some(), "{name}");
        }
        for name in ["resolved", "build-nightly-12", "libfuzzer-sys-0.4.13"] {
            assert!(workspace_key(Path::new(name)).is_none(), "{name}");
        }
    }
}
