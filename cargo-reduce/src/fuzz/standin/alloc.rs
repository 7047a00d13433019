//! Targets that bring their own `#[global_allocator]`: the stand-in's
//! allocator (the malloc limit, see the harness's `capture` module) would
//! conflict with theirs, so they are built against a variant (`variant`)
//! of the stand-in without it, `cfg(cargo_reduce_system_alloc)`.
//!
//! Which fuzz crates need the variant is remembered in the build
//! directory, so later runs start with it instead of failing first.

use std::path::{Path, PathBuf};

use super::crate_files::{Locked, StandIn};
use super::error::BuildError;
use super::variant::{self, write_if_changed};

/// The cfg the stand-in's allocator is left out under.
const CFG: &str = "cargo_reduce_system_alloc";

/// rustc's error when two global allocators meet.
const CONFLICT: &str = "conflicts with global allocator";

/// Where crates that need the variant are remembered, under the build
/// directory.
const REMEMBERED: &str = "cargo-reduce-system-alloc";

/// True when a build's diagnostics say a target has its own allocator.
pub(super) fn conflicts(diagnostics: &str) -> bool {
    diagnostics.contains(CONFLICT)
}

/// Writes the variant of `stand_in` (for the engine `locked`) beside
/// `harness_dir`; returns its directory.
pub(super) fn write_variant(
    stand_in: &StandIn,
    harness_dir: &Path,
    locked: &Locked,
) -> Result<PathBuf, BuildError> {
    variant::write(stand_in, harness_dir, locked, CFG)
}

/// True when an earlier build of the fuzz crate in `fuzz_dir` into
/// `target_dir` needed the variant.
pub(super) fn remembered(target_dir: &Path, fuzz_dir: &Path) -> bool {
    marker(target_dir, fuzz_dir).is_file()
}

/// Remembers that the fuzz crate in `fuzz_dir` needs the variant.
pub(super) fn remember(target_dir: &Path, fuzz_dir: &Path) -> Result<(), BuildError> {
    let path = marker(target_dir, fuzz_dir);
    write_if_changed(&path, &format!("{}\n", fuzz_dir.display()))
}

fn marker(target_dir: &Path, fuzz_dir: &Path) -> PathBuf {
    let key = xxhash_rust::xxh3::xxh3_64(fuzz_dir.as_os_str().as_encoded_bytes());
    target_dir.join(REMEMBERED).join(format!("{key:016x}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crates_that_needed_the_variant_are_remembered_apart() {
        let dir = tempfile::tempdir().unwrap();
        let (one, two) = (Path::new("/w/one"), Path::new("/w/two"));
        assert!(!remembered(dir.path(), one));
        remember(dir.path(), one).unwrap();
        assert!(remembered(dir.path(), one));
        assert!(!remembered(dir.path(), two));
    }
}
