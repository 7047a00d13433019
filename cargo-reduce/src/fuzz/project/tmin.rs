//! `cargo fuzz tmin`'s results in an `artifacts/<target>/` folder.
//! libFuzzer's crash minimization (`-minimize_crash=1`) writes each smaller
//! input it finds as `minimized-from-<sha1>`, named after the SHA-1 of the
//! input it came from, and goes on from that one: the last file of the
//! chain is its result. From an artifact's content the chain leads to
//! that result. A chain whose original is gone (deleted after tmin) is the
//! only record of its failure: its last file is an input of its own.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use super::sha1_hex;

/// The prefix of a minimized input's name, libFuzzer's: `cargo fuzz tmin`
/// names each step `minimized-from-<sha1>`.
pub(crate) const MINIMIZED_PREFIX: &str = "minimized-from-";

/// The SHA-1 a tmin file's `name` says it was minimized from; `None` for
/// any other name.
pub(super) fn tmin_origin(name: &str) -> Option<&str> {
    let sha1 = name.strip_prefix(MINIMIZED_PREFIX)?;
    let hex = |c: char| c.is_ascii_digit() || ('a'..='f').contains(&c);
    (sha1.len() == 40 && sha1.chars().all(hex)).then_some(sha1)
}

/// The tmin files of one folder, by the SHA-1 of the input each was
/// minimized from.
#[derive(Debug, Default)]
pub(super) struct TminFiles {
    by_origin: HashMap<String, PathBuf>,
}

impl TminFiles {
    /// Takes `path` if its name is tmin's (`minimized-from-` and forty
    /// lowercase hex digits, which no artifact's result is named: those
    /// end in the artifact's name, with its kind's prefix).
    pub(super) fn add(&mut self, path: &Path) {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some(sha1) = tmin_origin(name) {
            self.by_origin.insert(sha1.to_string(), path.to_path_buf());
        }
    }

    /// Whether the folder has none.
    pub(super) fn is_empty(&self) -> bool {
        self.by_origin.is_empty()
    }

    /// The chain that starts from the file at `path` (not in it): each
    /// file minimized from the one before, in order; empty if none was.
    fn chain_from(&self, path: &Path) -> Vec<&Path> {
        let mut chain: Vec<&Path> = Vec::new();
        let mut at = path;
        while let Some(next) = fs::read(at)
            .ok()
            .and_then(|b| self.by_origin.get(&sha1_hex(&b)))
        {
            // Two inputs of one content would loop; none is written twice.
            if chain.contains(&next.as_path()) || next == path {
                break;
            }
            chain.push(next);
            at = next;
        }
        chain
    }

    /// The results tmin left for `artifacts` (the last file of each one's
    /// chain, if it has one), and the last files of the chains no artifact
    /// leads to, sorted: inputs whose originals are gone.
    pub(super) fn results(&self, artifacts: &[&Path]) -> (Vec<Option<PathBuf>>, Vec<PathBuf>) {
        let mut reached: HashSet<&Path> = HashSet::new();
        let mut results = Vec::with_capacity(artifacts.len());
        for artifact in artifacts {
            let chain = self.chain_from(artifact);
            results.push(chain.last().map(|p| p.to_path_buf()));
            reached.extend(chain);
        }
        let known_ends: HashSet<&Path> = results.iter().flatten().map(PathBuf::as_path).collect();
        let mut orphans = BTreeSet::new();
        for file in self.by_origin.values() {
            if reached.contains(file.as_path()) {
                continue;
            }
            let end = self.chain_from(file).last().copied().unwrap_or(file);
            if !known_ends.contains(end) && !reached.contains(end) {
                orphans.insert(end.to_path_buf());
            }
        }
        (results, orphans.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `bytes` in `dir` as tmin writes what it minimized from
    /// `from`; returns the path.
    fn step(dir: &Path, from: &[u8], bytes: &[u8]) -> PathBuf {
        let path = dir.join(format!("{MINIMIZED_PREFIX}{}", sha1_hex(from)));
        fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn the_chain_from_an_artifact_ends_at_tmin_s_result() {
        let dir = tempfile::tempdir().unwrap();
        let crash = dir.path().join("crash-1");
        fs::write(&crash, b"ABCDEF").unwrap();
        let plain = dir.path().join("crash-2");
        fs::write(&plain, b"xyz").unwrap();
        let mut files = TminFiles::default();
        for path in [
            step(dir.path(), b"ABCDEF", b"ABCD"),
            step(dir.path(), b"ABCD", b"AB"),
            // A chain whose original was deleted: its last file is an input.
            step(dir.path(), b"gone", b"gon"),
            step(dir.path(), b"gon", b"g"),
            // cargo-reduce's own result of crash-1 is not tmin's.
            dir.path().join("minimized-from-crash-1"),
        ] {
            files.add(&path);
        }
        let (results, orphans) = files.results(&[&crash, &plain]);
        let ab = dir
            .path()
            .join(format!("{MINIMIZED_PREFIX}{}", sha1_hex(b"ABCD")));
        assert_eq!(results, [Some(ab), None]);
        let g = dir
            .path()
            .join(format!("{MINIMIZED_PREFIX}{}", sha1_hex(b"gon")));
        assert_eq!(orphans, [g]);
    }

    #[test]
    fn a_chain_that_loops_ends() {
        let dir = tempfile::tempdir().unwrap();
        let crash = dir.path().join("crash-1");
        fs::write(&crash, b"A").unwrap();
        let mut files = TminFiles::default();
        files.add(&step(dir.path(), b"A", b"B"));
        files.add(&step(dir.path(), b"B", b"A"));
        let (results, orphans) = files.results(&[&crash]);
        assert!(results[0].is_some());
        assert!(orphans.is_empty());
    }
}
