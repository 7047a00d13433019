//! The cargo features a fuzz target is built with: its own
//! `required-features`, and the feature that turns its engine's crate on
//! when that crate is an optional dependency (`afl = ["dep:afl"]`), so
//! that `#[cfg(feature = "afl")]` code is compiled. Without them cargo
//! refuses to build the target at all.

use cargo_metadata::{DependencyKind, Package, Target};

/// The feature that turns dependency `dep` on when it is optional (the one
/// named after it first, else the first by name that enables it, else the
/// implicit feature of the dependency); `None` when `dep` is not optional.
pub(super) fn enabling_feature(package: &Package, dep: &str) -> Option<String> {
    let optional = package
        .dependencies
        .iter()
        .any(|d| d.name == dep && d.optional && d.kind != DependencyKind::Build);
    if !optional {
        return None;
    }
    let enables = |values: &Vec<String>| {
        values.iter().any(|v| {
            v.strip_prefix("dep:") == Some(dep)
                || v == dep
                || v.strip_prefix(dep)
                    .is_some_and(|rest| rest.starts_with('/') || rest.starts_with("?/"))
        })
    };
    let mut named: Vec<&String> = package
        .features
        .iter()
        .filter(|(_, values)| enables(values))
        .map(|(name, _)| name)
        .collect();
    named.sort_by_key(|name| (name.as_str() != dep, name.as_str()));
    Some(
        named
            .first()
            .map_or_else(|| dep.to_string(), |n| n.to_string()),
    )
}

/// The features `target` is built with: its `required-features` and
/// `enabling` (sorted, each once).
pub(super) fn target_features(target: &Target, enabling: Option<&str>) -> Vec<String> {
    let mut features = target.required_features.clone();
    features.extend(enabling.map(String::from));
    features.sort();
    features.dedup();
    features
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one package of a manifest with `deps` and `features`.
    fn package(deps: &str, features: &str) -> Package {
        let dir = tempfile::tempdir().unwrap();
        let manifest = format!(
            "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n[workspace]\n[dependencies]\n{deps}\n[features]\n{features}\n"
        );
        std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), "").unwrap();
        let metadata = cargo_metadata::MetadataCommand::new()
            .manifest_path(dir.path().join("Cargo.toml"))
            .no_deps()
            .exec()
            .unwrap();
        metadata.packages.into_iter().next().unwrap()
    }

    #[test]
    fn the_feature_that_enables_an_optional_engine_is_found() {
        let afl = "afl = { version = \"0.18\", optional = true }";
        let p = package(afl, "fuzzing = [\"dep:afl\"]");
        assert_eq!(enabling_feature(&p, "afl").as_deref(), Some("fuzzing"));
        let p = package(afl, "");
        assert_eq!(enabling_feature(&p, "afl").as_deref(), Some("afl"));
        let p = package(
            "libfuzzer-sys = { version = \"0.4\", optional = true }",
            "libfuzzer = [\"libfuzzer-sys/arbitrary-derive\"]",
        );
        // `dep/feature` keeps the dependency's implicit feature.
        assert_eq!(
            enabling_feature(&p, "libfuzzer-sys").as_deref(),
            Some("libfuzzer-sys")
        );
        let p = package(
            "libfuzzer-sys = { version = \"0.4\", optional = true }",
            "libfuzzer = [\"libfuzzer-sys?/arbitrary-derive\", \"dep:libfuzzer-sys\"]",
        );
        assert_eq!(
            enabling_feature(&p, "libfuzzer-sys").as_deref(),
            Some("libfuzzer")
        );
        let p = package(
            "afl = \"0.18\"\nafl-extra = { version = \"1\", optional = true }",
            "",
        );
        assert_eq!(enabling_feature(&p, "afl"), None);
    }
}
