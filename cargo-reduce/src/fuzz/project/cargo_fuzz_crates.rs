//! cargo-fuzz crates: packages with `cargo-fuzz = true` in
//! `[package.metadata]` (every `[[bin]]` is a libFuzzer target, as `cargo
//! fuzz` has it), and in a package that also fuzzes with afl.rs, the
//! targets whose source calls libfuzzer-sys's `fuzz_target!`.

use std::fs;
use std::path::Path;

use cargo_metadata::{DependencyKind, Package, Target, TargetKind};

use super::artifact::{scan_artifacts, Saved};
use super::features::{enabling_feature, target_features};
use super::{BinKind, DiscoveryError, FuzzTarget};

/// The crate libFuzzer targets depend on.
pub(super) const LIBFUZZER_CRATE: &str = "libfuzzer-sys";

/// True for a package with `cargo-fuzz = true` in `[package.metadata]`.
pub(super) fn is_fuzz_crate(package: &Package) -> bool {
    package.metadata.get("cargo-fuzz").and_then(|v| v.as_bool()) == Some(true)
}

/// True for a package that depends on `libfuzzer-sys` (not only to build).
pub(super) fn depends_on_libfuzzer(package: &Package) -> bool {
    package
        .dependencies
        .iter()
        .any(|d| d.name == LIBFUZZER_CRATE && d.kind != DependencyKind::Build)
}

/// True when the source of a target uses libfuzzer-sys.
pub(super) fn uses_libfuzzer(source: &Path) -> bool {
    fs::read_to_string(source)
        .is_ok_and(|text| text.contains("fuzz_target!") || text.contains("libfuzzer_sys"))
}

/// The libFuzzer targets of `package`, sorted by name, with their
/// artifacts: every `[[bin]]`, or when `by_source` (the package fuzzes with
/// another engine too) only those whose source [`uses_libfuzzer`].
pub(super) fn libfuzzer_targets(
    package: &Package,
    fuzz_dir: &Path,
    by_source: bool,
) -> Result<Vec<FuzzTarget>, DiscoveryError> {
    let enabling = enabling_feature(package, LIBFUZZER_CRATE);
    let chosen = |t: &&Target| {
        t.is_kind(TargetKind::Bin) && (!by_source || uses_libfuzzer(t.src_path.as_std_path()))
    };
    let mut targets = Vec::new();
    for target in package.targets.iter().filter(chosen) {
        let artifacts_dir = fuzz_dir.join("artifacts").join(&target.name);
        targets.push(FuzzTarget {
            name: target.name.clone(),
            source: target.src_path.clone().into_std_path_buf(),
            kind: BinKind::Bin,
            features: target_features(target, enabling.as_deref()),
            artifacts: scan_artifacts(&artifacts_dir, Saved::LibFuzzer)?,
            artifacts_dir,
            settings: Default::default(),
        });
    }
    targets.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(targets)
}
