//! Targets that bring their own `#[global_allocator]`: the stand-in's
//! allocator (the malloc limit, see the harness's `capture` module) would
//! conflict with theirs, so they are built against a variant of the
//! stand-in without it. The variant is a copy in a directory of its own
//! whose build script sets `cfg(cargo_reduce_system_alloc)`: as a patch
//! from another path it is another package to cargo, so both builds of it
//! and every dependency stay compiled side by side, and the build flags of
//! every crate of a workspace stay the same (a flag for the whole build
//! made cargo rebuild every dependency whenever it changed, so twice per
//! run, and again for each other crate of the workspace).
//!
//! Which fuzz crates need the variant is remembered in the build
//! directory, so later runs start with it instead of failing first.

use std::path::{Path, PathBuf};

use super::error::{io_error, BuildError};
use super::standin::{Locked, StandIn};

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

/// The variant's directory, beside the stand-in in `harness_dir`.
pub(super) fn variant_dir(harness_dir: &Path) -> PathBuf {
    let name = harness_dir
        .file_name()
        .unwrap_or_default()
        .to_string_lossy();
    harness_dir.with_file_name(format!("{name}-system-alloc"))
}

/// Writes the variant of `stand_in` (for the engine `locked`) beside `harness_dir`;
/// returns its directory. Files whose content is unchanged are left
/// alone, so cargo rebuilds nothing.
pub(super) fn write_variant(
    stand_in: &StandIn,
    harness_dir: &Path,
    locked: &Locked,
) -> Result<PathBuf, BuildError> {
    let dir = variant_dir(harness_dir);
    let set_cfg = format!("println!(\"cargo:rustc-cfg={CFG}\");");
    let mut has_build_script = false;
    for (name, content) in stand_in.all_files() {
        let content = match *name {
            "build.rs" => {
                has_build_script = true;
                content.replacen("fn main() {", &format!("fn main() {{\n    {set_cfg}"), 1)
            }
            _ => StandIn::render(name, content, locked),
        };
        write_if_changed(&dir.join(name), &content)?;
    }
    if !has_build_script {
        // cargo finds `build.rs` beside the manifest by itself.
        write_if_changed(
            &dir.join("build.rs"),
            &format!("fn main() {{\n    {set_cfg}\n}}\n"),
        )?;
    }
    Ok(dir)
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

fn write_if_changed(path: &Path, content: &str) -> Result<(), BuildError> {
    if std::fs::read(path).is_ok_and(|old| old == content.as_bytes()) {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io_error(parent))?;
    }
    std::fs::write(path, content).map_err(io_error(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::engines::afl::AFL;
    use crate::fuzz::engines::libfuzzer::LIBFUZZER_SYS;

    #[test]
    fn the_variant_s_build_script_sets_the_cfg() {
        let dir = tempfile::tempdir().unwrap();
        for stand_in in [&AFL, &LIBFUZZER_SYS] {
            let harness = dir.path().join(stand_in.package);
            let locked = Locked {
                version: "0.4.13".into(),
                source: crate::fuzz::build::standin::Source::Registry,
                arbitrary: Some("1.4.1".into()),
            };
            let variant = write_variant(stand_in, &harness, &locked).unwrap();
            let manifest = std::fs::read_to_string(variant.join("Cargo.toml")).unwrap();
            assert!(!manifest.contains('@'), "{manifest}");
            assert_eq!(
                variant,
                dir.path()
                    .join(format!("{}-system-alloc", stand_in.package))
            );
            let script = std::fs::read_to_string(variant.join("build.rs")).unwrap();
            let main = script.find("fn main() {").unwrap();
            let cfg = script
                .find("cargo:rustc-cfg=cargo_reduce_system_alloc")
                .unwrap();
            assert!(main < cfg, "{script}");
            assert!(variant.join("src/lib.rs").is_file());
        }
    }

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
