//! `cargo metadata --no-deps`, remembered for the run: discovery reads a
//! fuzz crate's metadata and its build's shadow (`fuzz::standin::shadow`)
//! needs the same a moment later. Each `cargo metadata` is a process (two,
//! with rustup's proxy) and about a third of a warm `cargo reduce ci`'s
//! start outside the build, so the second one is answered from memory,
//! but only while every manifest it was read from (the package's, the
//! workspace root's and each member's) holds the same bytes, in the same
//! working directory and with the same `CARGO_TARGET_DIR`: an edited
//! manifest is read again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use cargo_metadata::{Metadata, MetadataCommand};

/// What one answer was read from.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    manifest: PathBuf,
    cwd: Option<PathBuf>,
    target_dir: Option<std::ffi::OsString>,
}

/// An answer and the manifests (with their bytes) it depends on.
struct Remembered {
    metadata: Metadata,
    manifests: Vec<(PathBuf, Option<Vec<u8>>)>,
}

static REMEMBERED: Mutex<Option<HashMap<Key, Remembered>>> = Mutex::new(None);

/// `cargo metadata --no-deps --manifest-path manifest`, from memory when
/// nothing it was read from has changed.
pub(crate) fn no_deps(manifest: &Path) -> Result<Metadata, cargo_metadata::Error> {
    read(manifest).map(|(metadata, _)| metadata)
}

/// [`no_deps`], and whether cargo ran for it.
fn read(manifest: &Path) -> Result<(Metadata, bool), cargo_metadata::Error> {
    let key = Key {
        manifest: manifest.to_path_buf(),
        cwd: std::env::current_dir().ok(),
        target_dir: std::env::var_os("CARGO_TARGET_DIR"),
    };
    let fresh = |r: &Remembered| r.manifests.iter().all(|(p, b)| std::fs::read(p).ok() == *b);
    {
        let memory = REMEMBERED.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(remembered) = memory.as_ref().and_then(|m| m.get(&key)) {
            if fresh(remembered) {
                return Ok((remembered.metadata.clone(), false));
            }
        }
    }
    // The package's manifest is read before cargo reads it (an edit while
    // cargo runs is seen next time); the others, known from the answer,
    // after it. Targets that cargo finds by their files (`src/bin/*.rs`)
    // are not watched: one added between the two reads of a run is found
    // by the next run.
    let paths = |metadata: Option<&Metadata>| {
        let mut paths = vec![manifest.to_path_buf()];
        if let Some(metadata) = metadata {
            paths.push(metadata.workspace_root.as_std_path().join("Cargo.toml"));
            paths.extend(
                metadata
                    .packages
                    .iter()
                    .map(|p| p.manifest_path.as_std_path().to_path_buf()),
            );
        }
        paths
    };
    let mut before: HashMap<PathBuf, Option<Vec<u8>>> = paths(None)
        .into_iter()
        .map(|p| (p.clone(), std::fs::read(&p).ok()))
        .collect();
    let metadata = MetadataCommand::new()
        .manifest_path(manifest)
        .no_deps()
        .exec()?;
    let manifests = paths(Some(&metadata))
        .into_iter()
        .map(|p| {
            let bytes = before.remove(&p).unwrap_or_else(|| std::fs::read(&p).ok());
            (p, bytes)
        })
        .collect();
    let remembered = Remembered {
        metadata: metadata.clone(),
        manifests,
    };
    REMEMBERED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get_or_insert_with(HashMap::new)
        .insert(key, remembered);
    Ok((metadata, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package(dir: &Path, name: &str) -> PathBuf {
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("src/lib.rs"), "").unwrap();
        let manifest = dir.join("Cargo.toml");
        let text =
            format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n");
        std::fs::write(&manifest, text).unwrap();
        manifest
    }

    #[test]
    fn the_second_read_is_remembered_until_a_manifest_changes() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = package(dir.path(), "first");
        let (metadata, ran) = read(&manifest).unwrap();
        assert!(ran);
        assert_eq!(metadata.packages[0].name.as_str(), "first");
        let (metadata, ran) = read(&manifest).unwrap();
        assert!(!ran, "the same manifest is answered from memory");
        assert_eq!(metadata.packages[0].name.as_str(), "first");
        package(dir.path(), "second");
        let (metadata, ran) = read(&manifest).unwrap();
        assert!(ran, "an edited manifest is read again");
        assert_eq!(metadata.packages[0].name.as_str(), "second");
    }

    #[test]
    fn an_edited_workspace_root_is_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let member = package(&dir.path().join("member"), "member");
        std::fs::write(
            dir.path().join("Cargo.toml"),
            "[workspace]\nmembers = [\"member\"]\n",
        )
        .unwrap();
        let (metadata, _) = read(&member).unwrap();
        assert_eq!(metadata.packages.len(), 1);
        package(&dir.path().join("other"), "other");
        std::fs::write(
            dir.path().join("Cargo.toml"),
            "[workspace]\nmembers = [\"member\", \"other\"]\n",
        )
        .unwrap();
        let (metadata, ran) = read(&member).unwrap();
        assert!(ran);
        assert_eq!(metadata.packages.len(), 2);
    }
}
