//! A shadow of the user's fuzz crate, so that the patched build never
//! writes the user's `Cargo.lock`.
//!
//! Cargo rewrites the lock file whenever a `[patch]` replaces a package, and
//! stable cargo has no flag to put the lock elsewhere. So the build runs on
//! a copy of the fuzz crate's manifest in a directory of cargo-reduce's own
//! (under the target directory), with a copy of the lock beside it: every
//! relative path in the manifest made absolute, every target listed
//! explicitly with its absolute source path, values inherited from an
//! enclosing workspace filled in, and the workspace's `[patch]` and
//! `[profile]` carried over. The user's files are only read; a build killed
//! at any moment leaves them as they were. One difference remains for the
//! targets: `CARGO_MANIFEST_DIR` names the shadow directory.

use std::path::{Path, PathBuf};

use cargo_metadata::{Metadata, Package, TargetKind};
use toml_edit::{DocumentMut, Item, Table, TableLike, Value};

use super::error::BuildError;

/// Dependency tables of a manifest (and of each `[target.X]`).
const DEPENDENCY_TABLES: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];

/// A shadow manifest, and the user's workspace root it stands for.
pub(super) struct Shadow {
    /// The shadow's `Cargo.toml`.
    pub manifest: PathBuf,
    /// The user's workspace root: sources are named relative to it.
    pub root: PathBuf,
}

/// A copy of an engine's stand-in that the shadow depends on by path in
/// place of the engine from git: a fuzz crate with no lock would otherwise
/// have cargo fetch the repository to resolve it, though the stand-in
/// replaces it (the build patches this copy's path with the stand-in).
#[derive(Debug, Clone)]
pub(super) struct Placeholder {
    /// The engine crate (`libfuzzer-sys`).
    pub package: &'static str,
    /// The copy's directory.
    pub dir: PathBuf,
}

/// Writes the shadow of the package whose manifest is `manifest` into
/// `dir`: `dir/Cargo.toml` and a copy of `lock` (its workspace's
/// `Cargo.lock`, or one resolved for it); without `lock`, the lock already
/// in `dir` stays. A git dependency on a crate of `placeholders` takes
/// that placeholder by path instead. Files whose content is unchanged are
/// left alone, so cargo rebuilds nothing.
pub(super) fn prepare(
    manifest: &Path,
    lock: Option<&Path>,
    dir: &Path,
    placeholders: &[Placeholder],
) -> Result<Shadow, BuildError> {
    let metadata = metadata_no_deps(manifest)?;
    let package = metadata
        .packages
        .iter()
        .find(|p| same_path(p.manifest_path.as_std_path(), manifest))
        .ok_or_else(|| BuildError::Manifest {
            path: manifest.to_path_buf(),
            reason: "cargo metadata lists no package for it".into(),
        })?;
    let root_manifest = metadata.workspace_root.as_std_path().join("Cargo.toml");
    let mut doc = read_manifest(manifest)?;
    if !same_path(&root_manifest, manifest) {
        let root = read_manifest(&root_manifest)?;
        let root_dir = metadata.workspace_root.as_std_path();
        inherit(&mut doc, &root, root_dir);
    }
    let base = manifest.parent().unwrap_or(Path::new("."));
    absolutize(doc.as_table_mut(), base);
    use_placeholders(doc.as_table_mut(), placeholders);
    list_targets(&mut doc, package);
    own_workspace(&mut doc);
    let shadow = dir.join("Cargo.toml");
    write_if_changed(&shadow, doc.to_string().as_bytes())?;
    if let Some(lock) = lock {
        let lock_bytes = std::fs::read(lock).map_err(|source| BuildError::Io {
            path: lock.to_path_buf(),
            source,
        })?;
        write_if_changed(&dir.join("Cargo.lock"), &lock_bytes)?;
    }
    Ok(Shadow {
        manifest: shadow,
        root: metadata.workspace_root.into_std_path_buf(),
    })
}

/// `cargo metadata --no-deps` of the workspace of `manifest` (which writes
/// no lock).
pub(super) fn metadata_no_deps(manifest: &Path) -> Result<Metadata, BuildError> {
    crate::fuzz::project::metadata::no_deps(manifest).map_err(|e| BuildError::Manifest {
        path: manifest.to_path_buf(),
        reason: e.to_string(),
    })
}

/// Whether `a` and `b` name the same file (symlinks resolved).
pub(super) fn same_path(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

fn read_manifest(path: &Path) -> Result<DocumentMut, BuildError> {
    let text = std::fs::read_to_string(path).map_err(|source| BuildError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    text.parse()
        .map_err(|e: toml_edit::TomlError| BuildError::Manifest {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })
}

fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<(), BuildError> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    let io = |source| BuildError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io)?;
    }
    std::fs::write(path, bytes).map_err(io)
}

/// Fills in what the package inherits from the workspace root `root` (in
/// `root_dir`): `field.workspace = true` in `[package]` and in dependency
/// tables, `[lints] workspace = true`; carries over the root's `[patch]`,
/// `[replace]` and `[profile]`, which apply to the workspace's builds.
fn inherit(doc: &mut DocumentMut, root: &DocumentMut, root_dir: &Path) {
    let mut root = root.clone();
    absolutize(root.as_table_mut(), root_dir);
    let workspace = root.get("workspace").and_then(Item::as_table_like);
    if let (Some(package), Some(fields)) = (
        doc.get_mut("package").and_then(Item::as_table_like_mut),
        workspace.and_then(|w| w.get("package")?.as_table_like()),
    ) {
        package.remove("workspace");
        for (key, item) in package.iter_mut() {
            if inherits(item) {
                if let Some(value) = fields.get(key.get()) {
                    *item = value.clone();
                }
            }
        }
    }
    if let Some(deps) = workspace.and_then(|w| w.get("dependencies")?.as_table_like()) {
        for_each_dependency_table(doc.as_table_mut(), &mut |table| {
            for (name, item) in table.iter_mut() {
                if let Some(shared) = deps.get(name.get()) {
                    inherit_dependency(item, shared);
                }
            }
        });
    }
    if doc.get("lints").is_some_and(inherits) {
        match workspace.and_then(|w| w.get("lints")) {
            Some(lints) => doc["lints"] = lints.clone(),
            None => {
                doc.remove("lints");
            }
        }
    }
    for key in ["patch", "replace", "profile"] {
        if let Some(item) = root.get(key) {
            doc[key] = item.clone();
        }
    }
}

/// `{ workspace = true }` (or `x.workspace = true`).
fn inherits(item: &Item) -> bool {
    item.as_table_like()
        .and_then(|t| t.get("workspace"))
        .and_then(Item::as_bool)
        == Some(true)
}

/// Replaces `dep = { workspace = true, features = [...], optional = ... }`
/// by the workspace's entry, keeping the local `features` (added) and
/// `optional`/`default-features` keys.
fn inherit_dependency(item: &mut Item, shared: &Item) {
    if !inherits(item) {
        return;
    }
    let local = item.as_table_like().expect("inherits() saw a table");
    let mut merged = Table::new();
    match shared {
        Item::Value(Value::String(version)) => {
            merged.insert("version", toml_edit::value(version.value().clone()));
        }
        other => {
            if let Some(table) = other.as_table_like() {
                for (key, value) in table.iter() {
                    merged.insert(key, value.clone());
                }
            }
        }
    }
    for (key, value) in local.iter().filter(|(key, _)| *key != "workspace") {
        if key == "features" {
            let mut features = merged
                .get("features")
                .and_then(Item::as_array)
                .cloned()
                .unwrap_or_default();
            for feature in value.as_array().into_iter().flatten() {
                features.push(feature.clone());
            }
            merged.insert("features", toml_edit::value(features));
        } else {
            merged.insert(key, value.clone());
        }
    }
    *item = toml_edit::value(merged.into_inline_table());
}

/// Calls `f` on every dependency table: `[dependencies]` and the like, at
/// the top, under `[target.X]` and under `[workspace]`.
fn for_each_dependency_table(doc: &mut Table, f: &mut dyn FnMut(&mut dyn TableLike)) {
    for name in DEPENDENCY_TABLES {
        if let Some(table) = doc.get_mut(name).and_then(Item::as_table_like_mut) {
            f(table);
        }
    }
    if let Some(targets) = doc.get_mut("target").and_then(Item::as_table_like_mut) {
        for (_, platform) in targets.iter_mut() {
            if let Some(platform) = platform.as_table_mut() {
                for name in DEPENDENCY_TABLES {
                    if let Some(table) = platform.get_mut(name).and_then(Item::as_table_like_mut) {
                        f(table);
                    }
                }
            }
        }
    }
    if let Some(deps) = doc
        .get_mut("workspace")
        .and_then(|w| w.get_mut("dependencies"))
        .and_then(Item::as_table_like_mut)
    {
        f(deps);
    }
}

/// Replaces each git dependency on a crate of `placeholders` (by its key or
/// its `package`) by a path dependency on the placeholder, keeping its
/// features, `optional` and `default-features`.
fn use_placeholders(doc: &mut Table, placeholders: &[Placeholder]) {
    if placeholders.is_empty() {
        return;
    }
    for_each_dependency_table(doc, &mut |table| {
        for (name, item) in table.iter_mut() {
            let Some(entry) = item.as_table_like_mut() else {
                continue;
            };
            let package = entry.get("package").and_then(Item::as_str);
            let package = package.unwrap_or(name.get()).to_string();
            let found = placeholders.iter().find(|p| p.package == package);
            let Some(placeholder) = found.filter(|_| entry.contains_key("git")) else {
                continue;
            };
            for key in ["git", "branch", "tag", "rev", "version"] {
                entry.remove(key);
            }
            let path = placeholder.dir.to_string_lossy().into_owned();
            entry.insert("path", toml_edit::value(path));
        }
    });
}

/// Makes every relative path of the manifest `doc` absolute, from `base`.
fn absolutize(doc: &mut Table, base: &Path) {
    let fix = |item: &mut Item| {
        if let Some(path) = item.as_str().map(Path::new) {
            if path.is_relative() {
                *item = toml_edit::value(base.join(path).to_string_lossy().into_owned());
            }
        }
    };
    let fix_entries = |table: &mut dyn TableLike| {
        for (_, entry) in table.iter_mut() {
            if let Some(path) = entry.as_table_like_mut().and_then(|e| e.get_mut("path")) {
                fix(path);
            }
        }
    };
    if let Some(package) = doc.get_mut("package").and_then(Item::as_table_like_mut) {
        for key in ["build", "readme", "license-file"] {
            if let Some(item) = package.get_mut(key) {
                fix(item);
            }
        }
    }
    if let Some(path) = doc.get_mut("lib").and_then(|l| l.get_mut("path")) {
        fix(path);
    }
    if let Some(bins) = doc.get_mut("bin").and_then(Item::as_array_of_tables_mut) {
        for bin in bins.iter_mut() {
            if let Some(path) = bin.get_mut("path") {
                fix(path);
            }
        }
    }
    for_each_dependency_table(doc, &mut |table| fix_entries(table));
    if let Some(patches) = doc.get_mut("patch").and_then(Item::as_table_like_mut) {
        for (_, registry) in patches.iter_mut() {
            if let Some(registry) = registry.as_table_like_mut() {
                fix_entries(registry);
            }
        }
    }
    if let Some(replace) = doc.get_mut("replace").and_then(Item::as_table_like_mut) {
        fix_entries(replace);
    }
}

/// Lists the library, the binaries, examples and tests (afl.rs targets may
/// be any of them) and the build script explicitly, with their absolute
/// source paths (the shadow directory has no `src/`), and drops benches,
/// which the build never needs.
fn list_targets(doc: &mut DocumentMut, package: &Package) {
    doc.remove("bench");
    let src = |t: &cargo_metadata::Target| t.src_path.to_string();
    let package_table = doc["package"].as_table_like_mut();
    if let Some(table) = package_table {
        for key in ["autobins", "autoexamples", "autotests", "autobenches"] {
            table.insert(key, toml_edit::value(false));
        }
        if let Some(build) = package
            .targets
            .iter()
            .find(|t| t.is_kind(TargetKind::CustomBuild))
        {
            table.insert("build", toml_edit::value(src(build)));
        }
    }
    if let Some(lib) = package.targets.iter().find(|t| t.is_lib()) {
        doc["lib"]["path"] = toml_edit::value(src(lib));
    }
    for (key, kind) in [
        ("bin", TargetKind::Bin),
        ("example", TargetKind::Example),
        ("test", TargetKind::Test),
    ] {
        list_kind(
            doc,
            key,
            package.targets.iter().filter(|t| t.is_kind(kind.clone())),
        );
    }
}

/// Lists `targets` in the `[[key]]` array with their absolute source paths,
/// keeping what the manifest says of those it lists (`required-features`,
/// `harness`, …).
fn list_kind<'t>(
    doc: &mut DocumentMut,
    key: &str,
    targets: impl Iterator<Item = &'t cargo_metadata::Target>,
) {
    if !doc.contains_array_of_tables(key) {
        doc.remove(key);
        doc[key] = Item::ArrayOfTables(Default::default());
    }
    let listed = doc[key].as_array_of_tables_mut().expect("made above");
    for target in targets {
        let path = toml_edit::value(target.src_path.to_string());
        let entry = listed
            .iter_mut()
            .find(|b| b.get("name").and_then(Item::as_str) == Some(target.name.as_str()));
        match entry {
            Some(entry) => entry["path"] = path,
            None => {
                let mut entry = Table::new();
                entry["name"] = toml_edit::value(target.name.clone());
                entry["path"] = path;
                listed.push(entry);
            }
        }
    }
    if listed.is_empty() {
        doc.remove(key);
    }
}

/// Makes the shadow a workspace of its own, with the package as its only
/// member; inheritance tables of the package's own workspace stay.
fn own_workspace(doc: &mut DocumentMut) {
    if let Some(package) = doc.get_mut("package").and_then(Item::as_table_like_mut) {
        package.remove("workspace");
    }
    let workspace = doc
        .entry("workspace")
        .or_insert_with(|| Item::Table(Table::new()));
    if let Some(workspace) = workspace.as_table_like_mut() {
        for key in ["members", "exclude", "default-members"] {
            workspace.remove(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// A fuzz crate that is a member of its project's workspace and
    /// inherits from it: the shadow builds alone, and no user file changes.
    #[test]
    fn a_member_crate_gets_its_inherited_values_and_absolute_paths() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        write(
            root,
            "Cargo.toml",
            "[workspace]\nmembers = [\"app\", \"fuzz\"]\nresolver = \"2\"\n\n[workspace.package]\nversion = \"1.2.3\"\nedition = \"2021\"\n\n[workspace.dependencies]\napp = { path = \"app\" }\n\n[profile.release]\ndebug = 1\n",
        );
        write(
            root,
            "app/Cargo.toml",
            "[package]\nname = \"app\"\nversion.workspace = true\nedition.workspace = true\n",
        );
        write(root, "app/src/lib.rs", "pub fn f() {}\n");
        write(
            root,
            "fuzz/Cargo.toml",
            "[package]\nname = \"app-fuzz\"\nversion.workspace = true\nedition.workspace = true\n\n[dependencies]\napp = { workspace = true }\n\n[[bin]]\nname = \"one\"\npath = \"fuzz_targets/one.rs\"\ntest = false\n",
        );
        write(
            root,
            "fuzz/fuzz_targets/one.rs",
            "fn main() { app::f(); }\n",
        );
        write(root, "fuzz/src/bin/two.rs", "fn main() {}\n");
        let status = std::process::Command::new("cargo")
            .args(["generate-lockfile", "--offline", "--manifest-path"])
            .arg(root.join("Cargo.toml"))
            .status()
            .unwrap();
        assert!(status.success());
        let before = std::fs::read(root.join("Cargo.lock")).unwrap();
        let shadow_dir = root.join("shadow");
        let shadow = prepare(
            &root.join("fuzz/Cargo.toml"),
            Some(&root.join("Cargo.lock")),
            &shadow_dir,
            &[],
        )
        .unwrap();
        assert_eq!(shadow.root, root.canonicalize().unwrap());
        let shadow = shadow.manifest;
        let text = std::fs::read_to_string(&shadow).unwrap();
        assert!(text.contains("version = \"1.2.3\""), "{text}");
        assert!(
            text.contains(&format!("path = \"{}\"", root.join("app").display())),
            "{text}"
        );
        assert!(
            text.contains(&root.join("fuzz/src/bin/two.rs").display().to_string()),
            "{text}"
        );
        assert!(text.contains("[profile.release]"), "{text}");
        let status = std::process::Command::new("cargo")
            .args(["build", "--offline", "--quiet", "--manifest-path"])
            .arg(&shadow)
            .arg("--target-dir")
            .arg(root.join("target"))
            .status()
            .unwrap();
        assert!(status.success(), "the shadow builds");
        assert_eq!(std::fs::read(root.join("Cargo.lock")).unwrap(), before);
        assert!(!root.join("fuzz/Cargo.lock").exists());
    }
}
