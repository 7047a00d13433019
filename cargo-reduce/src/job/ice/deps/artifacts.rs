//! The compiled dependencies that the report's command still names, kept
//! beside the MCVE. A dependency that is neither taken in nor built as an
//! auxiliary crate ([`crate::job::ice::deps::take_in`], [`crate::job::ice::deps::auxiliary`]) stays
//! an `--extern` of the command: a library in the run's temporary target
//! directory, which is gone once the run ends. Those libraries, and the
//! ones they were compiled against (rustc finds those through `-L
//! dependency=`), are copied into `NAME.ice.deps/` beside the MCVE, and the
//! command names them there, so that it still crashes rustc after the run
//! (with the same compiler: a library's metadata is of one rustc).

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::job::ice::deps::take_in::builds;
use crate::job::ice::rustc::args::RustcArgs;

/// `invocations` (the MCVE's command, then its auxiliary crates') with
/// their `--extern`s and `-L`s into `temporary` naming copies in `dir`
/// (made, or replaced, only when there is one), and the libraries copied;
/// `compiled` (the build's command lines) says what each library was
/// compiled against.
pub(crate) fn keep_beside(
    invocations: &[RustcArgs],
    compiled: &[RustcArgs],
    temporary: &Path,
    dir: &Path,
) -> io::Result<Vec<RustcArgs>> {
    let libraries = needed(invocations, compiled, temporary);
    if libraries.is_empty() {
        return Ok(invocations.to_vec());
    }
    let parent = dir.parent().unwrap_or(Path::new("."));
    let staging = tempfile::Builder::new()
        .prefix(".cargo-reduce-deps-")
        .tempdir_in(parent)?;
    for library in &libraries {
        for file in with_siblings(library) {
            if let Some(name) = file.file_name() {
                fs::copy(&file, staging.path().join(name))?;
            }
        }
    }
    if dir.exists() {
        if !written_here(dir) {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "it exists and holds other files than compiled libraries: move it, or choose another -o",
            ));
        }
        fs::remove_dir_all(dir)?;
    }
    fs::rename(staging.keep(), dir)?;
    let moved = invocations.iter();
    Ok(moved
        .map(|i| relocated(i, temporary, &libraries, dir))
        .collect())
}

/// The libraries of the build in `temporary` that `invocations` name
/// and, through the build's command lines, the ones those were compiled
/// against (an auxiliary crate, built elsewhere, is none of them).
fn needed(invocations: &[RustcArgs], compiled: &[RustcArgs], temporary: &Path) -> Vec<PathBuf> {
    let mut seen = HashSet::new();
    let mut order = Vec::new();
    let mut pending: Vec<PathBuf> = invocations
        .iter()
        .flat_map(RustcArgs::externs)
        .map(|(_, path)| PathBuf::from(path))
        .filter(|path| !path.starts_with(auxiliaries_in(temporary)))
        .collect();
    while let Some(path) = pending.pop() {
        if !path.starts_with(temporary) || !seen.insert(path.clone()) {
            continue;
        }
        let text = path.to_string_lossy();
        if let Some(dependency) = compiled.iter().find(|c| builds(c, &text)) {
            pending.extend(dependency.externs().map(|(_, p)| PathBuf::from(p)));
        }
        order.push(path);
    }
    order
}

/// Whether `dir` is what an earlier run left: a directory of libraries
/// only (`lib….rlib`, `.rmeta`, `.so`), which it may replace; nothing else
/// of the user's is ever deleted.
fn written_here(dir: &Path) -> bool {
    let Ok(entries) = fs::read_dir(dir) else {
        return false;
    };
    entries.into_iter().all(|entry| {
        entry.is_ok_and(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let library = [".rlib", ".rmeta", ".so"].iter().any(|x| name.ends_with(x));
            e.file_type().is_ok_and(|t| t.is_file()) && name.starts_with("lib") && library
        })
    })
}

/// Where the auxiliary crates are built in the run's `temporary`
/// directory.
pub(crate) fn auxiliaries_in(temporary: &Path) -> PathBuf {
    temporary.join("auxiliary")
}

/// `library` and its other form beside it: cargo compiles a dependency to
/// `.rmeta` (all a library needs) and `.rlib` (what a binary links).
fn with_siblings(library: &Path) -> Vec<PathBuf> {
    let mut files = vec![library.to_path_buf()];
    for extension in ["rlib", "rmeta"] {
        let sibling = library.with_extension(extension);
        if sibling != library && sibling.is_file() {
            files.push(sibling);
        }
    }
    files
}

/// `invocation` with each of its paths into `temporary` of the copied
/// `libraries` moved into `dir`: an `--extern NAME=PATH` of one by the
/// library's file name, an `-L [KIND=]DIR` where they were as `dir` itself
/// (another `-L`, of a build script's native libraries, and an auxiliary
/// crate's `--extern` stay).
fn relocated(
    invocation: &RustcArgs,
    temporary: &Path,
    libraries: &[PathBuf],
    dir: &Path,
) -> RustcArgs {
    let mut moved = invocation.clone();
    for i in 1..moved.args.len() {
        let flag = moved.args[i - 1].clone();
        let arg = &mut moved.args[i];
        let (prefix, path) = match arg.split_once('=') {
            Some((p, v)) => (format!("{p}="), PathBuf::from(v)),
            None => (String::new(), PathBuf::from(&*arg)),
        };
        if !path.starts_with(temporary) {
            continue;
        }
        match flag.as_str() {
            "--extern" if libraries.contains(&path) => {
                let name = path.file_name().unwrap_or_default();
                *arg = format!("{prefix}{}", dir.join(name).display());
            }
            "-L" if libraries.iter().any(|l| l.parent() == Some(&path)) => {
                *arg = format!("{prefix}{}", dir.display());
            }
            _ => {}
        }
    }
    moved
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(command: &str) -> RustcArgs {
        RustcArgs::parse(command, Path::new("/p")).unwrap()
    }

    #[test]
    fn the_libraries_named_and_those_they_need_are_copied_and_named_beside_the_mcve() {
        let temporary = tempfile::tempdir().unwrap();
        let deps = temporary.path().join("target/debug/deps");
        fs::create_dir_all(&deps).unwrap();
        for file in [
            "liba-1.rmeta",
            "liba-1.rlib",
            "libb-2.rlib",
            "libunused-3.rlib",
        ] {
            fs::write(deps.join(file), file).unwrap();
        }
        let d = deps.display();
        let t = temporary.path().display();
        let mcve = parse(&format!(
            "rustc --crate-name app x.rs -L dependency={d} --extern a={d}/liba-1.rmeta --extern std \
             -L native={t}/build/a/out --extern r={t}/auxiliary/r/out/libr.rlib"
        ));
        let compiled = [
            parse(&format!(
                "rustc --crate-name a src/lib.rs -C extra-filename=-1 --extern b={d}/libb-2.rlib"
            )),
            parse("rustc --crate-name b src/lib.rs -C extra-filename=-2"),
        ];
        let out = tempfile::tempdir().unwrap();
        let dir = out.path().join("app.ice.deps");
        fs::create_dir(&dir).unwrap();
        fs::write(dir.join("libstale-0.rlib"), "").unwrap();
        // An auxiliary crate's command names what it needs too.
        let auxiliary = parse(&format!(
            "rustc --crate-name r r.rs --extern b={d}/libb-2.rlib"
        ));
        let both = keep_beside(&[mcve, auxiliary], &compiled, temporary.path(), &dir).unwrap();
        assert_eq!(
            both[1].relative_to(&dir).display("r.rs"),
            "rustc --crate-name r r.rs --extern b=app.ice.deps/libb-2.rlib"
        );
        let kept = &both[0];
        let mut files: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        assert_eq!(files, ["liba-1.rlib", "liba-1.rmeta", "libb-2.rlib"]);
        let shown = kept.relative_to(&dir).display("app.ice.rs");
        assert!(
            shown.starts_with(
                "rustc --crate-name app app.ice.rs -L dependency=app.ice.deps \
                 --extern a=app.ice.deps/liba-1.rmeta --extern std"
            ),
            "{shown}"
        );
        // A build script's native libraries and an auxiliary crate stay.
        assert!(kept.args.contains(&format!("native={t}/build/a/out")));
        assert!(kept
            .args
            .contains(&format!("r={t}/auxiliary/r/out/libr.rlib")));
        // Nothing in the temporary directory: nothing copied, no directory.
        let none = parse("rustc --crate-name app x.rs --extern b=/elsewhere/libb.rlib");
        let other = out.path().join("other.ice.deps");
        assert_eq!(
            keep_beside(
                std::slice::from_ref(&none),
                &compiled,
                temporary.path(),
                &other
            )
            .unwrap(),
            [none]
        );
        assert!(!other.exists());
    }

    #[test]
    fn a_directory_of_the_user_s_by_that_name_is_never_replaced() {
        let temporary = tempfile::tempdir().unwrap();
        let library = temporary.path().join("libb-2.rlib");
        fs::write(&library, "b").unwrap();
        let command = format!("rustc --crate-name r r.rs --extern b={}", library.display());
        let out = tempfile::tempdir().unwrap();
        let theirs = out.path().join("theirs.deps");
        fs::create_dir(&theirs).unwrap();
        fs::write(theirs.join("notes.txt"), "mine").unwrap();
        let refused = keep_beside(&[parse(&command)], &[], temporary.path(), &theirs);
        assert!(refused.is_err());
        assert_eq!(
            fs::read_to_string(theirs.join("notes.txt")).unwrap(),
            "mine"
        );
        assert_eq!(
            fs::read_dir(out.path()).unwrap().count(),
            1,
            "no staging left"
        );
    }
}
