//! Variants of a stand-in: a copy in a directory of its own whose build
//! script sets one `cfg`. As a patch from another path a variant is another
//! package to cargo, so the stand-in and its variants stay compiled side by
//! side, and the build flags of every other crate stay the same (a flag for
//! the whole build would make cargo rebuild every dependency whenever it
//! changed).
//!
//! Two variants exist: `cfg(cargo_reduce_system_alloc)` for targets with
//! their own global allocator (`alloc`), and `cfg(cargo_reduce_companion)`
//! for the other engine's stand-in in a build (see [`COMPANION`]).

use std::path::{Path, PathBuf};

use super::crate_files::{Locked, StandIn};
use super::error::{io_error, BuildError};

/// The cfg of a companion: the stand-in of an engine whose crate is in
/// the build only as a dependency (a package with targets of both engines,
/// or a dependency that depends on libfuzzer-sys under `cfg(fuzzing)`, as
/// image-rs/image's rav1e does). It keeps the crate's API and leaves out
/// what the engine's own stand-in in the same program defines: `main`,
/// `pthread_create` and the global allocator.
pub(crate) const COMPANION: &str = "cargo_reduce_companion";

/// The directory of the variant of the stand-in in `harness_dir` with
/// `cfg`, beside it.
pub(crate) fn dir(harness_dir: &Path, cfg: &str) -> PathBuf {
    let name = harness_dir
        .file_name()
        .unwrap_or_default()
        .to_string_lossy();
    let suffix = cfg.strip_prefix("cargo_reduce_").unwrap_or(cfg);
    harness_dir.with_file_name(format!("{name}-{}", suffix.replace('_', "-")))
}

/// Writes the variant of `stand_in` (for the engine `locked`) with `cfg`
/// beside `harness_dir`; returns its directory. Files whose content is
/// unchanged are left alone, so cargo rebuilds nothing.
pub(crate) fn write(
    stand_in: &StandIn,
    harness_dir: &Path,
    locked: &Locked,
    cfg: &str,
) -> Result<PathBuf, BuildError> {
    let dir = dir(harness_dir, cfg);
    let set_cfg = format!("println!(\"cargo:rustc-cfg={cfg}\");");
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

/// Writes `content` to `path` unless it holds it already.
pub(super) fn write_if_changed(path: &Path, content: &str) -> Result<(), BuildError> {
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
    fn a_variant_s_build_script_sets_its_cfg() {
        let dir = tempfile::tempdir().unwrap();
        for stand_in in [&AFL, &LIBFUZZER_SYS] {
            let harness = dir.path().join(stand_in.package);
            let locked = Locked {
                version: "0.4.13".into(),
                source: crate::fuzz::standin::crate_files::Source::Registry,
                arbitrary: Some("1.4.1".into()),
            };
            for (cfg, suffix) in [
                ("cargo_reduce_system_alloc", "system-alloc"),
                (COMPANION, "companion"),
            ] {
                let variant = write(stand_in, &harness, &locked, cfg).unwrap();
                let manifest = std::fs::read_to_string(variant.join("Cargo.toml")).unwrap();
                assert!(!manifest.contains('@'), "{manifest}");
                assert!(manifest.contains(&format!("\"cfg({cfg})\"")), "{manifest}");
                assert_eq!(
                    variant,
                    dir.path().join(format!("{}-{suffix}", stand_in.package))
                );
                let script = std::fs::read_to_string(variant.join("build.rs")).unwrap();
                let main = script.find("fn main() {").unwrap();
                let set = script.find(&format!("cargo:rustc-cfg={cfg}\"")).unwrap();
                assert!(main < set, "{script}");
                assert!(variant.join("src/lib.rs").is_file());
            }
        }
    }
}
