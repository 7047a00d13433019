//! Fuzz crates away from the usual places: a project whose afl.rs or
//! cargo-fuzz crate lives deeper in its tree (roxmltree keeps its afl.rs
//! target in `testing-tools/afl-fuzz/`, outside its workspace) is found
//! by looking through the workspace's folders a few levels down, when
//! neither the workspace nor the folders beside it hold one. A manifest is
//! read as text first, so that `cargo metadata` runs only on the crates
//! that name a fuzz engine.

use std::path::{Path, PathBuf};

use toml_edit::{DocumentMut, Item, TableLike};

use super::afl_crates::AFL_CRATE;
use super::campaign::{SEARCH_DEPTH, SKIPPED_DIRS};
use super::cargo_fuzz_crates::LIBFUZZER_CRATE;

/// The manifests of crates at most [`SEARCH_DEPTH`] folders below `root`
/// (as deep as AFL++ instances are looked for: `tools/fuzz/afl/x/` is
/// four), not in `skip` nor in a folder that search skips or a hidden
/// one, that are cargo-fuzz crates or depend on a fuzz engine; sorted.
pub(super) fn fuzz_manifests_below(root: &Path, skip: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(root)
        .max_depth(SEARCH_DEPTH + 1)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !skipped_dir(e, skip))
        .filter_map(Result::ok)
        .filter(|e| e.depth() > 1 && e.file_type().is_file() && e.file_name() == "Cargo.toml")
        .map(walkdir::DirEntry::into_path)
        .filter(|path| names_a_fuzz_engine(path))
        .collect()
}

/// A folder not to look in: one the instance search skips (build output,
/// VCS data, dependencies), a hidden one, or `skip`.
fn skipped_dir(entry: &walkdir::DirEntry, skip: &Path) -> bool {
    let name = entry.file_name().to_string_lossy();
    entry.file_type().is_dir()
        && (SKIPPED_DIRS.contains(&&*name) || name.starts_with('.') || entry.path() == skip)
}

/// True for a manifest with `cargo-fuzz = true` in `[package.metadata]` or
/// a dependency on `afl` or `libfuzzer-sys` (under its name or renamed).
fn names_a_fuzz_engine(manifest: &Path) -> bool {
    let Ok(doc) = std::fs::read_to_string(manifest).map(|t| t.parse::<DocumentMut>()) else {
        return false;
    };
    let Ok(doc) = doc else { return false };
    let cargo_fuzz = doc
        .get("package")
        .and_then(|p| p.get("metadata"))
        .and_then(|m| m.get("cargo-fuzz"))
        .and_then(Item::as_bool)
        == Some(true);
    cargo_fuzz || dependency_tables(&doc).any(names_an_engine)
}

/// `[dependencies]` and `[dev-dependencies]`, and the same under every
/// `[target.'cfg(..)']`.
fn dependency_tables(doc: &DocumentMut) -> impl Iterator<Item = &dyn TableLike> {
    let per_target = doc
        .get("target")
        .and_then(Item::as_table_like)
        .into_iter()
        .flat_map(|targets| targets.iter().map(|(_, t)| t));
    std::iter::once(doc.as_item())
        .chain(per_target)
        .flat_map(|item| ["dependencies", "dev-dependencies"].map(|key| item.get(key)))
        .flatten()
        .filter_map(Item::as_table_like)
}

/// True when a dependency table names a fuzz engine's crate.
fn names_an_engine(table: &dyn TableLike) -> bool {
    table.iter().any(|(name, spec)| {
        let package = spec.get("package").and_then(Item::as_str).unwrap_or(name);
        package == AFL_CRATE || package == LIBFUZZER_CRATE
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(dir: &Path, rel: &str, text: &str) -> PathBuf {
        let path = dir.join(rel).join("Cargo.toml");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn only_crates_that_name_a_fuzz_engine_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let package = "[package]\nname = \"x\"\n";
        manifest(root, "", &format!("{package}[workspace]\n"));
        let afl = manifest(
            root,
            "tools/afl",
            &format!("{package}[dependencies]\nafl = \"*\"\n"),
        );
        let renamed = manifest(
            root,
            "a/b/c",
            &format!("{package}[target.'cfg(unix)'.dev-dependencies]\nfz = {{ package = \"libfuzzer-sys\", version = \"0.4\" }}\n"),
        );
        let cargo_fuzz = manifest(
            root,
            "deep/fuzz",
            &format!("{package}[package.metadata]\ncargo-fuzz = true\n"),
        );
        manifest(
            root,
            "lib",
            &format!("{package}[dependencies]\nafl-like = \"1\"\n"),
        );
        let deepest = manifest(
            root,
            "a/b/c/d",
            &format!("{package}[dependencies]\nafl = \"*\"\n"),
        );
        for too_deep_or_skipped in ["a/b/c/d/e", "node_modules/x"] {
            manifest(
                root,
                too_deep_or_skipped,
                &format!("{package}[dependencies]\nafl = \"*\"\n"),
            );
        }
        manifest(
            root,
            "target/x",
            &format!("{package}[dependencies]\nafl = \"*\"\n"),
        );
        manifest(
            root,
            ".hidden",
            &format!("{package}[dependencies]\nafl = \"*\"\n"),
        );
        manifest(
            root,
            "out/x",
            &format!("{package}[dependencies]\nafl = \"*\"\n"),
        );
        manifest(root, "broken", "[package\n");
        let found = fuzz_manifests_below(root, &root.join("out"));
        assert_eq!(found, vec![renamed, deepest, cargo_fuzz, afl]);
    }
}
