//! `boa-coverage FILE|DIR...`: runs every file (directories: every file in
//! them, sorted) once through Boa exactly as `boa_eval` runs an input
//! (`fuzz-targets/boa/shared/script.rs`), one fresh context each.
//!
//! Built with `-C instrument-coverage` by `bench/protograph/fair`, it counts
//! the coverage of a fuzzing run's corpus with instrumentation that guided
//! none of the fuzzers compared. A panic inside Boa is caught and the next
//! file runs; each file's name goes to stderr first, so that a driver can
//! skip a file that kills the process (a failed allocation, a stack
//! overflow) and resume.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use boa_engine::Context;

#[path = "../../../../fuzz-targets/boa/shared/script.rs"]
mod script;

fn main() {
    std::panic::set_hook(Box::new(|_| {}));
    let mut files: Vec<PathBuf> = Vec::new();
    for arg in std::env::args_os().skip(1) {
        collect(Path::new(&arg), &mut files);
    }
    for file in files {
        eprintln!("{}", file.display());
        let Ok(data) = std::fs::read(&file) else {
            continue;
        };
        let _ = catch_unwind(AssertUnwindSafe(|| script::run(Context::default(), &data)));
    }
}

/// `path` if it is a file, else the files directly inside it, sorted.
fn collect(path: &Path, files: &mut Vec<PathBuf>) {
    if path.is_file() {
        files.push(path.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        eprintln!("boa-coverage: cannot read {}", path.display());
        std::process::exit(2);
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    files.extend(found);
}
