//! The inputs `cargo reduce ci` replays for one target: libFuzzer's
//! artifacts and AFL++'s crashes and hangs (as discovery found them), the
//! regression ledger, OSS-Fuzz / ClusterFuzzLite testcases kept in the fuzz
//! crate, and with `--corpus` the corpus; and the shard that takes each.

use std::fs;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use super::ledger::Entry;
use crate::error::{Error, Exit};
use crate::fuzz::project::{clusterfuzz, Artifact, ArtifactKind, FuzzTarget, Origin};
use cargo_reduce_messages::ci::Source;

/// One input to replay.
#[derive(Debug, Clone)]
pub(crate) struct Input {
    /// The file, with what discovery knows of it (kind, AFL++ origin).
    pub artifact: Artifact,
    /// Where it comes from.
    pub source: Source,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Their hash (see [`crate::job::replay_cache::content_hash`]).
    pub hash: String,
    /// Its entry, for a ledger input (index into the target's entries).
    pub ledger: Option<usize>,
}

/// How deep below the fuzz crate testcases are looked for.
const CLUSTERFUZZ_DEPTH: usize = 3;

/// Every input of `target`: its artifacts, its ledger `entries`, the
/// `testcases` named after it, and with `corpus` the files of
/// `<fuzz dir>/corpus/<target>/`, read on `threads` threads (reading is
/// most of a replay's time). An input that cannot be read is an error
/// naming it.
pub(crate) fn collect(
    target: &FuzzTarget,
    entries: &[Entry],
    testcases: &[PathBuf],
    corpus: Option<&Path>,
    threads: usize,
) -> Result<Vec<Input>, Error> {
    let mut wanted: Vec<(Artifact, Source, Option<usize>)> = Vec::new();
    for artifact in &target.artifacts {
        if artifact.kind == ArtifactKind::SlowUnit {
            // Not a failure.
            continue;
        }
        let source = match artifact.origin {
            Origin::Afl(_) => Source::Afl,
            Origin::LibFuzzer => Source::Artifact,
        };
        wanted.push((artifact.clone(), source, None));
    }
    let plain = |path: &Path| Artifact::plain(path.to_path_buf(), 0);
    for (i, entry) in entries.iter().enumerate() {
        wanted.push((plain(&entry.input), Source::Ledger, Some(i)));
    }
    for path in testcases {
        wanted.push((plain(path), Source::Clusterfuzz, None));
    }
    if let Some(dir) = corpus {
        for path in files_in(dir)? {
            wanted.push((plain(&path), Source::Corpus, None));
        }
    }
    let contents = read_all(wanted.iter().map(|w| w.0.path.as_path()).collect(), threads);
    wanted
        .into_iter()
        .zip(contents)
        .map(|((mut artifact, source, ledger), bytes)| {
            let bytes = bytes.map_err(|e| {
                Error::caused(
                    Exit::BadInput,
                    format!("cannot read input `{}`", artifact.path.display()),
                    e,
                )
            })?;
            artifact.size = bytes.len() as u64;
            Ok(Input {
                hash: super::content_hash(&bytes),
                artifact,
                source,
                bytes,
                ledger,
            })
        })
        .collect()
}

/// The contents of `paths`, in order, read by up to `threads` threads.
pub(in crate::job) fn read_all(paths: Vec<&Path>, threads: usize) -> Vec<std::io::Result<Vec<u8>>> {
    crate::job::threads::map_in_order(&paths, threads, |path| fs::read(path))
}

/// The files below `dir`, in nested folders too (OSS-Fuzz keeps
/// testcases in `corpus/<target>/regressions/` and the like), in a fixed
/// order (by name, each folder's files where the folder sorts); hidden
/// files and folders are skipped, symlinks followed, a symlink loop or a
/// dangling symlink skipped. A missing `dir` has none.
pub(in crate::job) fn files_in(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    if let Err(e) = fs::read_dir(dir) {
        if e.kind() == std::io::ErrorKind::NotFound {
            return Ok(Vec::new());
        }
        return Err(unreadable(dir, e));
    }
    let mut files = Vec::new();
    for entry in visible(walkdir::WalkDir::new(dir), |_| true) {
        match entry {
            Ok(entry) if entry.file_type().is_file() => files.push(entry.into_path()),
            Ok(_) => {}
            Err(e) if skipped(&e) => {}
            Err(e) => {
                let path = e.path().unwrap_or(dir).to_path_buf();
                return Err(unreadable(&path, e));
            }
        }
    }
    Ok(files)
}

/// `walk` with symlinks followed, each folder sorted by name, and hidden
/// files and folders (`.git`, `.DS_Store`, temporary files) and those
/// `keep` refuses left out.
fn visible(
    walk: walkdir::WalkDir,
    keep: impl Fn(&walkdir::DirEntry) -> bool,
) -> impl Iterator<Item = walkdir::Result<walkdir::DirEntry>> {
    walk.follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(move |e| {
            e.depth() == 0 || (!e.file_name().to_string_lossy().starts_with('.') && keep(e))
        })
}

/// A symlink loop, or a symlink to nothing: not an input.
fn skipped(error: &walkdir::Error) -> bool {
    error.loop_ancestor().is_some()
        || error
            .io_error()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::NotFound)
}

fn unreadable(path: &Path, error: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::caused(
        Exit::BadInput,
        format!("cannot read corpus `{}`", path.display()),
        error,
    )
}

/// The `clusterfuzz-testcase-*` files under `fuzz_dir` (a few levels
/// down, not in `target/`, `corpus/` or hidden folders), each with the
/// target its name gives (`clusterfuzz-testcase-minimized-<target>-<id>`;
/// the longest of `targets` that fits).
pub(crate) fn clusterfuzz_testcases(fuzz_dir: &Path, targets: &[&str]) -> Vec<(String, PathBuf)> {
    let walk = walkdir::WalkDir::new(fuzz_dir).max_depth(CLUSTERFUZZ_DEPTH + 1);
    let mut found = Vec::new();
    let kept = visible(walk, |e| {
        !(e.file_type().is_dir() && (e.file_name() == "target" || e.file_name() == "corpus"))
    });
    for entry in kept.flatten().filter(|e| e.file_type().is_file()) {
        let name = entry.file_name().to_string_lossy();
        if let Some(target) = clusterfuzz::target_of(&name, targets) {
            found.push((target.to_string(), entry.path().to_path_buf()));
        }
    }
    found.sort();
    found
}

/// `--shard K/N`: the K-th of N machines (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shard {
    /// K.
    pub index: u64,
    /// N.
    pub count: u64,
}

impl Shard {
    /// Whether this shard replays `target`'s input with content `hash`:
    /// the split depends only on them, so every machine agrees without
    /// talking to the others.
    pub(crate) fn takes(&self, target: &str, hash: &str) -> bool {
        let key = xxhash_rust::xxh3::xxh3_64(format!("{target}\0{hash}").as_bytes());
        key % self.count == self.index - 1
    }
}

/// Refuses `shards` unless they are one sharding, each shard once: the
/// files a merge joins (`what`: "records", "reports").
pub(crate) fn one_sharding(shards: &[Shard], what: &str) -> Result<(), String> {
    let Some(count) = shards.first().map(|s| s.count) else {
        return Err(format!("no {what} to merge"));
    };
    let mut seen = vec![false; count as usize];
    for shard in shards {
        let k = shard.index as usize;
        if shard.count != count || k == 0 || k > seen.len() || seen[k - 1] {
            return Err(format!(
                "the {what} are not one sharding: shard {shard} beside shards of {count}, or one shard twice; pass each shard's file once"
            ));
        }
        seen[k - 1] = true;
    }
    match seen.iter().position(|s| !s) {
        Some(missing) => Err(format!(
            "the {what} of shard {}/{count} are missing; pass every shard's file",
            missing + 1
        )),
        None => Ok(()),
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let usage = || format!("`{s}` is not K/N (this machine's number K of N, as in 1/4)");
        let (k, n) = s.split_once('/').ok_or_else(usage)?;
        let (index, count): (u64, u64) = (
            k.trim().parse().map_err(|_| usage())?,
            n.trim().parse().map_err(|_| usage())?,
        );
        if count == 0 || index == 0 || index > count {
            return Err(format!("{s}: K must be between 1 and N, and N at least 1"));
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corpus_files_come_from_nested_folders_in_a_fixed_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for file in ["b", "a/z", "a/deep/y", ".hidden", ".git/x", "c"] {
            let path = root.join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, file).unwrap();
        }
        std::os::unix::fs::symlink(root, root.join("a/loop")).unwrap();
        std::os::unix::fs::symlink("nowhere", root.join("a/dangling")).unwrap();
        let found: Vec<PathBuf> = files_in(root)
            .unwrap()
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().to_path_buf())
            .collect();
        let expected: Vec<PathBuf> = ["a/deep/y", "a/z", "b", "c"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(found, expected);
        assert!(files_in(&root.join("missing")).unwrap().is_empty());
    }

    #[test]
    fn shards_split_every_input_exactly_once() {
        let shards: Vec<Shard> = (1..=3).map(|k| format!("{k}/3").parse().unwrap()).collect();
        for i in 0..200 {
            let hash = format!("{i:016x}");
            let takers = shards.iter().filter(|s| s.takes("t", &hash)).count();
            assert_eq!(takers, 1, "{hash}");
        }
        for bad in ["0/2", "3/2", "1/0", "2", "a/b"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
