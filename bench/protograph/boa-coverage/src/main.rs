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
//!
//! `--instructions N` (first) gives each file a budget of N VM instructions
//! (boa_engine's `fuzz` feature), as Boa's own fuzz target runs its programs
//! (`fuzz-targets/boa/fuzz_targets/boa_ast.rs`), so that its corpus is
//! replayed under the limit it was fuzzed with: printed back to JavaScript,
//! its loops would otherwise run up to `boa_eval`'s loop limit, seconds each.
//! `exhausted FILE` on stderr names the files that reached the budget.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use boa_engine::Context;

#[path = "../../../../fuzz-targets/boa/shared/script.rs"]
mod script;

fn main() {
    std::panic::set_hook(Box::new(|_| {}));
    let mut args: Vec<_> = std::env::args_os().skip(1).collect();
    let budget = instructions(&mut args);
    let mut files: Vec<PathBuf> = Vec::new();
    for arg in args {
        collect(Path::new(&arg), &mut files);
    }
    for file in files {
        eprintln!("{}", file.display());
        let Ok(data) = std::fs::read(&file) else {
            continue;
        };
        let Ok(mut context) = Context::builder().instructions_remaining(budget).build() else {
            continue;
        };
        let _ = catch_unwind(AssertUnwindSafe(|| script::run(&mut context, &data)));
        if budget != usize::MAX && context.instructions_remaining() == 0 {
            eprintln!("exhausted {}", file.display());
        }
    }
}

/// The budget `--instructions N` gives (and removes from `args`), else none.
fn instructions(args: &mut Vec<std::ffi::OsString>) -> usize {
    if args.first().is_none_or(|a| a != "--instructions") {
        return usize::MAX;
    }
    let n = args.get(1).and_then(|n| n.to_str()?.parse().ok());
    let Some(n) = n else {
        eprintln!("boa-coverage: --instructions wants a number");
        std::process::exit(2);
    };
    args.drain(..2);
    n
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
