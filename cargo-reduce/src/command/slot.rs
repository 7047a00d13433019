//! The private directories tests run in: one per concurrent test, mode
//! 0700, named after the owner's pid so that a later run can remove what a
//! killed one left.

use std::ffi::OsStr;
use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rustix::io::Errno;
use rustix::process::{geteuid, test_kill_process, Pid};

/// The private directories are `cargo-reduce-<pid>-<random>` in the
/// temporary directory: the pid tells a later run whether their owner is
/// gone (a run killed by SIGKILL cannot remove them itself).
pub(super) const DIR_PREFIX: &str = "cargo-reduce-";

/// A private directory for one test at a time (mode 0700): the candidate
/// file (under the input's name, in a subdirectory, also 0700) and the
/// captured standard error.
pub(super) struct Slot {
    _dir: tempfile::TempDir,
    pub(super) candidate: PathBuf,
    pub(super) stderr: PathBuf,
    pub(super) buffer: Vec<u8>,
}

impl Slot {
    pub(super) fn new(root: &Path, file_name: &OsStr) -> io::Result<Self> {
        let dir = tempfile::Builder::new()
            .prefix(&format!("{DIR_PREFIX}{}-", std::process::id()))
            .permissions(fs::Permissions::from_mode(0o700))
            .tempdir_in(root)?;
        let inner = dir.path().join("candidate");
        fs::DirBuilder::new().mode(0o700).create(&inner)?;
        let candidate = inner.join(file_name);
        let stderr = dir.path().join("stderr");
        Ok(Slot {
            _dir: dir,
            candidate,
            stderr,
            buffer: Vec::new(),
        })
    }
}

/// Writes the candidate as a new file with exactly the permission bits
/// `mode`, whatever the umask. A new file each time: the last one has
/// `mode` too, which may not allow writing, and the test may have changed it.
pub(super) fn write_candidate(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(bytes)?;
    file.set_permissions(fs::Permissions::from_mode(mode))
}

/// Removes the `cargo-reduce-<pid>-*` directories in `root` that belong to
/// this user and whose process no longer exists: what runs killed by
/// SIGKILL (or a crash) left behind. Best effort; errors are ignored.
pub(super) fn remove_stale_dirs(root: &Path) {
    let Ok(entries) = fs::read_dir(root) else {
        return;
    };
    let me = geteuid().as_raw();
    for entry in entries.flatten() {
        let Some(pid) = owner_pid(&entry.file_name()) else {
            continue;
        };
        // The entry's own metadata: a symbolic link is never followed.
        let ours = entry.metadata().is_ok_and(|m| m.is_dir() && m.uid() == me);
        if ours && !process_exists(pid) {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// The pid in a private directory's name `cargo-reduce-<pid>-<random>`
/// (also the name of an output's temporary file, after its dot).
pub(crate) fn owner_pid(name: &OsStr) -> Option<Pid> {
    let rest = name.to_str()?.strip_prefix(DIR_PREFIX)?;
    let (pid, random) = rest.split_once('-')?;
    if random.is_empty() || pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Pid::from_raw(pid.parse().ok()?)
}

/// Whether a process `pid` exists (a zombie does; so does one of another
/// user, which cannot have made a directory of ours but may reuse the pid).
pub(crate) fn process_exists(pid: Pid) -> bool {
    !matches!(test_kill_process(pid), Err(Errno::SRCH))
}
