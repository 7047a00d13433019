//! What is particular to libFuzzer (through cargo-fuzz and libfuzzer-sys):
//! the stand-in for `libfuzzer-sys`, which fuzz crates are cargo-fuzz's,
//! and libFuzzer's artifact names. Everything else about building and
//! running targets is shared with other engines.

use crate::fuzz::standin::crate_files::StandIn;

/// The libfuzzer-sys stand-in: `cargo-reduce/harness/`, compatible with
/// every public form of libfuzzer-sys 0.1.x to 0.4.x (the build script
/// picks the release's forms).
pub(crate) const LIBFUZZER_SYS: StandIn = StandIn {
    package: "libfuzzer-sys",
    files: &[
        ("Cargo.toml", include_str!("../../../harness/Cargo.toml.in")),
        ("build.rs", include_str!("../../../harness/build.rs")),
        ("src/lib.rs", include_str!("../../../harness/src/lib.rs")),
    ],
    versions: "0.1.x to 0.4.x",
    suggest: "0.4",
    supports: supported_version,
    rustflags:
        "--cfg fuzzing -Cdebug-assertions -Coverflow-checks -Cdebuginfo=limited -Cstrip=none",
    release: true,
};

/// The libfuzzer-sys versions the stand-in implements: every release on
/// crates.io up to 0.4.x, and the git sources of the 0.1.0 era
/// (rust-fuzz/libfuzzer-sys, arbitrary 0.1 and 0.2).
fn supported_version(version: &str) -> bool {
    ["0.1.", "0.2.", "0.3.", "0.4."]
        .iter()
        .any(|minor| version.starts_with(minor))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::fuzz::standin::crate_files::{Locked, Source};

    #[test]
    fn every_harness_source_is_shipped() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("harness/src");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| format!("src/{}", e.unwrap().file_name().to_string_lossy()))
            .collect();
        let mut shipped: Vec<String> = LIBFUZZER_SYS
            .all_files()
            .map(|f| f.0.to_string())
            .filter(|f| f.starts_with("src/"))
            .collect();
        on_disk.sort();
        shipped.sort();
        assert_eq!(on_disk, shipped);
    }

    #[test]
    fn releases_up_to_0_4_are_supported() {
        assert!(supported_version("0.4.13"));
        assert!(supported_version("0.3.0"));
        assert!(supported_version("0.2.1"));
        assert!(supported_version("0.1.0"));
        assert!(!supported_version("0.0.1"));
        assert!(!supported_version("0.5.0"));
    }

    /// libfuzzer-sys 0.1.x's arbitrary 0.2 has no `derive` feature: the
    /// written stand-in names none, so that cargo resolves it.
    #[test]
    fn arbitrary_0_2_gets_no_derive_feature() {
        let locked = |arbitrary: &str| Locked {
            version: "0.1.0".into(),
            source: Source::Registry,
            arbitrary: Some(arbitrary.into()),
        };
        let manifest = LIBFUZZER_SYS.files[0].1;
        let old = StandIn::render("Cargo.toml", manifest, &locked("0.2.0"));
        assert!(old.contains("arbitrary-derive = []"), "{old}");
        assert!(!old.contains("arbitrary/derive"), "{old}");
        let new = StandIn::render("Cargo.toml", manifest, &locked("1.4.1"));
        assert!(
            new.contains("arbitrary-derive = [\"arbitrary/derive\"]"),
            "{new}"
        );
    }
}
