//! A coverage report's content: the lines of a target's corpus
//! (`fuzz::lines`) under the names of the files on disk, the files kept
//! that the report is about (the user's own code, and the dependencies'
//! with `--include-deps`; never the standard library, the stand-in or
//! generated code), targets merged, and each file's totals.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use super::derived::derived_lines;
use crate::fuzz::lines::SourceCounts;
use crate::job::message::FileCoverage;

/// The directory rustc builds a fuzz crate's shadow in
/// (`fuzz::standin::shadow`): the debug info names the user's files
/// relative to the workspace root, or from this directory on.
const SHADOW_DIR: &str = "cargo-reduce-shadow";

/// Per source file on disk: per instrumented line, the inputs that
/// reached it; per function, its line and the inputs that called it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Coverage {
    pub files: BTreeMap<PathBuf, BTreeMap<u32, u64>>,
    pub functions: BTreeMap<PathBuf, BTreeMap<String, (u32, u64)>>,
}

/// Where a report's files may come from.
#[derive(Clone, Debug)]
pub(super) struct Scope {
    /// The fuzz crate's workspace root: relative names are under it.
    pub root: PathBuf,
    /// Where generated code and the stand-in live (the target directory).
    pub build_dirs: Vec<PathBuf>,
    /// Where dependencies' sources live (`$CARGO_HOME`).
    pub deps_dirs: Vec<PathBuf>,
    /// `--include-deps`.
    pub include_deps: bool,
}

impl Scope {
    /// The file on disk that debug-info `name` is, when the report is
    /// about it.
    fn resolve(&self, name: &str) -> Option<PathBuf> {
        let path = self.on_disk(Path::new(name));
        let generated = self.build_dirs.iter().any(|d| path.starts_with(d));
        let dependency = self.deps_dirs.iter().any(|d| path.starts_with(d));
        let kept = !generated && (self.include_deps || !dependency);
        (kept && path.is_file()).then_some(path)
    }

    /// Where the paths of `coverage` are shown from: the deepest folder
    /// that holds the workspace root and every file but the dependencies',
    /// so that the library a cargo-fuzz crate (`fuzz/`) tests, in `../src`,
    /// is shown relative too. The workspace root when only the file
    /// system's root would hold them all.
    pub(super) fn shown_from(&self, coverage: &Coverage) -> PathBuf {
        let mut root = self.root.clone();
        let own = coverage
            .files
            .keys()
            .filter(|path| !self.deps_dirs.iter().any(|d| path.starts_with(d)));
        for path in own {
            while !path.starts_with(&root) && root.pop() {}
        }
        match root.parent() {
            Some(_) => root,
            None => self.root.clone(),
        }
    }

    /// Debug-info file `name` as the path on disk it names, one name for
    /// every way the debug info names one file.
    pub(super) fn file_name(&self, name: &str) -> String {
        self.on_disk(Path::new(name)).to_string_lossy().into_owned()
    }

    /// `name` as a path on disk: relative names and the shadow's are the
    /// workspace root's.
    fn on_disk(&self, name: &Path) -> PathBuf {
        let parts: Vec<Component<'_>> = name.components().collect();
        if let Some(at) = parts.iter().rposition(|c| c.as_os_str() == SHADOW_DIR) {
            return self.root.join(parts[at + 1..].iter().collect::<PathBuf>());
        }
        match name.is_relative() {
            true => self.root.join(name),
            false => name.to_path_buf(),
        }
    }
}

impl Coverage {
    /// `counts` (named as the debug info names files) as the files of
    /// `scope`.
    pub(super) fn new(counts: SourceCounts, scope: &Scope) -> Coverage {
        let mut coverage = Coverage::default();
        for (name, lines) in counts.lines {
            if let Some(path) = scope.resolve(&name) {
                coverage.add_lines(path, &lines);
            }
        }
        for (name, functions) in counts.functions {
            if let Some(path) = scope.resolve(&name) {
                coverage.add_functions(path, &functions);
            }
        }
        coverage.leave_out_derived();
        coverage
    }

    /// Leaves out the lines and functions of derived impls (`derived`):
    /// a source-based report does not count them.
    fn leave_out_derived(&mut self) {
        for (path, lines) in &mut self.files {
            let is_rust = path.extension().is_some_and(|e| e == "rs");
            let Some(text) = is_rust.then(|| std::fs::read(path).ok()).flatten() else {
                continue;
            };
            let derived = derived_lines(&text);
            lines.retain(|line, _| !derived.contains(line));
            if let Some(functions) = self.functions.get_mut(path) {
                functions.retain(|_, (line, _)| !derived.contains(line));
            }
        }
        self.files.retain(|_, lines| !lines.is_empty());
        self.functions.retain(|_, functions| !functions.is_empty());
    }

    /// Adds another target's coverage: a line's (a function's) inputs are
    /// summed.
    pub(super) fn merge(&mut self, other: &Coverage) {
        for (path, lines) in &other.files {
            self.add_lines(path.clone(), lines);
        }
        for (path, functions) in &other.functions {
            self.add_functions(path.clone(), functions);
        }
    }

    fn add_lines(&mut self, path: PathBuf, lines: &BTreeMap<u32, u64>) {
        let into = self.files.entry(path).or_default();
        for (&line, &count) in lines {
            *into.entry(line).or_default() += count;
        }
    }

    fn add_functions(&mut self, path: PathBuf, functions: &BTreeMap<String, (u32, u64)>) {
        let into = self.functions.entry(path).or_default();
        for (name, &(line, count)) in functions {
            into.entry(name.clone()).or_insert((line, 0)).1 += count;
        }
    }

    /// Each file's totals, its path shown relative to `root` when under it.
    pub(super) fn summary(&self, root: &Path) -> Vec<FileCoverage> {
        self.files
            .iter()
            .map(|(path, lines)| FileCoverage {
                path: shown(path, root),
                lines_instrumented: lines.len(),
                lines_covered: lines.values().filter(|&&n| n > 0).count(),
            })
            .collect()
    }
}

/// `path` relative to `root` when under it.
pub(super) fn shown(path: &Path, root: &Path) -> PathBuf {
    path.strip_prefix(root).unwrap_or(path).to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::lines::{FileFunctions, FileLines};

    fn scope(root: &Path, include_deps: bool) -> Scope {
        Scope {
            root: root.to_path_buf(),
            build_dirs: vec![root.join("target")],
            deps_dirs: vec![root.join("cargo-home")],
            include_deps,
        }
    }

    /// A cargo-fuzz crate in `fuzz/` and the library it tests in `../src`
    /// are both shown from the project's folder; a dependency's file does
    /// not move it, nor does a file only the file system's root holds.
    #[test]
    fn paths_are_shown_from_the_folder_that_holds_the_users_files() {
        let fuzz = PathBuf::from("/p/lib/fuzz");
        let scope = Scope {
            deps_dirs: vec![PathBuf::from("/home/u/.cargo")],
            ..scope(&fuzz, true)
        };
        let coverage = |files: &[&str]| Coverage {
            files: files
                .iter()
                .map(|f| (PathBuf::from(f), BTreeMap::new()))
                .collect(),
            ..Coverage::default()
        };
        let own = coverage(&["/p/lib/fuzz/fuzz_targets/t.rs"]);
        assert_eq!(scope.shown_from(&own), fuzz);
        let with_lib = coverage(&[
            "/p/lib/fuzz/fuzz_targets/t.rs",
            "/p/lib/src/lib.rs",
            "/home/u/.cargo/registry/src/x/dep-1.0/src/lib.rs",
        ]);
        assert_eq!(scope.shown_from(&with_lib), Path::new("/p/lib"));
        let far = coverage(&["/p/lib/src/lib.rs", "/elsewhere/src/lib.rs"]);
        assert_eq!(scope.shown_from(&far), fuzz);
    }

    #[test]
    fn files_are_the_users_unless_deps_are_asked_for_and_never_generated_or_std() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for file in [
            "src/lib.rs",
            "fuzz_targets/parse.rs",
            "cargo-home/registry/src/x/dep-1.0/src/lib.rs",
            "target/cargo-reduce/harness/src/lib.rs",
        ] {
            std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
            std::fs::write(root.join(file), "").unwrap();
        }
        let dep = root.join("cargo-home/registry/src/x/dep-1.0/src/lib.rs");
        let stand_in = root.join("target/cargo-reduce/harness/src/lib.rs");
        let lines: FileLines = [
            ("src/lib.rs".to_string(), BTreeMap::from([(3, 1), (4, 0)])),
            (
                format!("/t/{SHADOW_DIR}/fuzz_targets/parse.rs"),
                BTreeMap::from([(9, 2)]),
            ),
            (dep.display().to_string(), BTreeMap::from([(1, 1)])),
            (stand_in.display().to_string(), BTreeMap::from([(1, 1)])),
            (
                "/rustc/abc/library/core/src/num/mod.rs".to_string(),
                BTreeMap::from([(1, 1)]),
            ),
        ]
        .into_iter()
        .collect();
        let functions: FileFunctions = [
            (
                "src/lib.rs".to_string(),
                BTreeMap::from([("lib::f".to_string(), (3, 1))]),
            ),
            (
                stand_in.display().to_string(),
                BTreeMap::from([("harness::g".to_string(), (1, 1))]),
            ),
        ]
        .into_iter()
        .collect();
        let counts = SourceCounts { lines, functions };
        let users = Coverage::new(counts.clone(), &scope(root, false));
        let files: Vec<_> = users.summary(root).into_iter().map(|f| f.path).collect();
        assert_eq!(
            files,
            [PathBuf::from("fuzz_targets/parse.rs"), "src/lib.rs".into()]
        );
        let lib = &users.summary(root)[1];
        assert_eq!((lib.lines_instrumented, lib.lines_covered), (2, 1));
        assert_eq!(
            users.functions,
            BTreeMap::from([(
                root.join("src/lib.rs"),
                BTreeMap::from([("lib::f".to_string(), (3, 1))])
            )]),
            "a function is kept with its file"
        );
        let with_deps = Coverage::new(counts, &scope(root, true));
        assert!(with_deps.files.contains_key(&dep));
        assert!(!with_deps.files.contains_key(&stand_in));
        assert_eq!(with_deps.files.len(), 3);
    }

    #[test]
    fn merged_targets_sum_each_lines_inputs() {
        let file = PathBuf::from("/w/src/lib.rs");
        let function = |count| BTreeMap::from([("lib::f".to_string(), (1, count))]);
        let one = Coverage {
            files: BTreeMap::from([(file.clone(), BTreeMap::from([(1, 1), (2, 0)]))]),
            functions: BTreeMap::from([(file.clone(), function(1))]),
        };
        let two = Coverage {
            files: BTreeMap::from([(file.clone(), BTreeMap::from([(2, 3), (5, 0)]))]),
            functions: BTreeMap::from([(file.clone(), function(2))]),
        };
        let mut merged = one.clone();
        merged.merge(&two);
        assert_eq!(
            merged.files[&file],
            BTreeMap::from([(1, 1), (2, 3), (5, 0)])
        );
        assert_eq!(merged.functions[&file], function(3));
        let summary = merged.summary(Path::new("/w"));
        assert_eq!(summary[0].path, PathBuf::from("src/lib.rs"));
        assert_eq!(
            (summary[0].lines_instrumented, summary[0].lines_covered),
            (3, 2)
        );
    }
}
