//! Builds a fuzz project's targets against a fuzz engine's stand-in
//! ([`StandIn`]): writes the stand-in crate (shipped inside cargo-reduce)
//! under the version the project's `Cargo.lock` holds, and runs `cargo
//! build --release` with a `--config patch.crates-io.<crate>.path=...` and
//! cargo-fuzz's `RUSTFLAGS` minus instrumentation, on a
//! [shadow](shadow) of the fuzz crate's manifest and lock (cargo
//! rewrites the lock when patching; the user's is never written).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

mod command;
mod error;
mod lockfile;
mod shadow;
pub mod standin;

pub use error::{BuildError, WorkerBuildError};
pub use lockfile::lock_file;

use crate::fuzz::project::FuzzProject;
use command::{command_line, run_for_output};
use error::io_error;
use lockfile::{existing_lock, registry_versions};
use standin::StandIn;

/// cargo-fuzz's `RUSTFLAGS`, minus sanitizer and coverage instrumentation.
const RUSTFLAGS: &str = "--cfg fuzzing -Cdebug-assertions -Coverflow-checks";

/// Added when the target has its own `#[global_allocator]` (see the harness's
/// `capture` module).
const SYSTEM_ALLOC_CFG: &str = "--cfg cargo_reduce_system_alloc";

/// Builds `targets` of the fuzz project in `fuzz_dir` against the harness in
/// `harness_dir` (written by [`write_harness`]; keep it in one place across
/// runs so cargo rebuilds nothing) into `target_dir`; returns the binaries,
/// in `targets`' order. The build runs on a [shadow](shadow) of the
/// fuzz crate's manifest and lock inside `target_dir`, so the user's files
/// are never written. A lock without `libc` (libfuzzer-sys before 0.4.4)
/// makes cargo look `libc` up in the registry index for the harness.
pub fn build_patched(
    stand_in: &StandIn,
    fuzz_dir: &Path,
    harness_dir: &Path,
    targets: &[&str],
    target_dir: &Path,
) -> Result<Vec<PathBuf>, BuildError> {
    let lock = existing_lock(fuzz_dir)?;
    let text = std::fs::read_to_string(&lock).map_err(io_error(&lock))?;
    let locked = registry_versions(&text, stand_in.package).join(", ");
    let unused = |harness| BuildError::PatchNotUsed {
        package: stand_in.package,
        harness,
        locked: locked.clone(),
        lock: lock.clone(),
    };
    let shadow = shadow::prepare(
        &fuzz_dir.join("Cargo.toml"),
        &lock,
        &target_dir.join("cargo-reduce-shadow"),
    )?;
    let patch = format!(
        "patch.crates-io.{}.path={}",
        stand_in.package,
        toml_string(harness_dir)
    );
    build_shadow(
        fuzz_dir,
        &shadow,
        &patch,
        harness_dir,
        targets,
        target_dir,
        &unused,
    )
}

/// Builds the shadow manifest `shadow` with cargo run in `fuzz_dir` (so the
/// user's `.cargo/config.toml` applies as for their own builds).
fn build_shadow(
    fuzz_dir: &Path,
    shadow: &shadow::Shadow,
    patch: &str,
    harness_dir: &Path,
    targets: &[&str],
    target_dir: &Path,
    unused: &dyn Fn(String) -> BuildError,
) -> Result<Vec<PathBuf>, BuildError> {
    let host = host_triple(fuzz_dir)?;
    let build = |extra_flags: &str| {
        let mut command = Command::new("cargo");
        command
            .current_dir(fuzz_dir)
            .args(["build", "--release", "--target", &host, "--manifest-path"])
            .arg(&shadow.manifest)
            .arg("--target-dir")
            .arg(target_dir)
            .args(["--config", patch])
            .env_remove("RUSTFLAGS")
            .env(
                "CARGO_ENCODED_RUSTFLAGS",
                rustflags(extra_flags, &shadow.root),
            );
        for target in targets {
            command.args(["--bin", target]);
        }
        run_cargo(&mut command, harness_dir, unused)
    };
    match build("") {
        Err(BuildError::Cargo { stderr, .. })
            if stderr.contains("conflicts with global allocator") =>
        {
            build(SYSTEM_ALLOC_CFG)?
        }
        other => other?,
    }
    let release = target_dir.join(&host).join("release");
    Ok(targets.iter().map(|t| release.join(t)).collect())
}

/// cargo-fuzz's flags after any the user set, as cargo-fuzz does, then a
/// remapping of `root/` to nothing: the shadow names every source by its
/// absolute path, and `file!()` (so every panic location) must read as in
/// the user's own builds, relative to their workspace root. Encoded for
/// `CARGO_ENCODED_RUSTFLAGS` (separated by 0x1f), so a path with spaces
/// stays one argument.
fn rustflags(extra: &str, root: &Path) -> String {
    let user: Vec<String> = match std::env::var("CARGO_ENCODED_RUSTFLAGS") {
        Ok(encoded) if !encoded.is_empty() => encoded.split('\x1f').map(String::from).collect(),
        _ => std::env::var("RUSTFLAGS")
            .unwrap_or_default()
            .split_whitespace()
            .map(String::from)
            .collect(),
    };
    let ours = RUSTFLAGS
        .split(' ')
        .chain(extra.split(' ').filter(|s| !s.is_empty()));
    let remap = format!("--remap-path-prefix={}/=", root.display());
    user.into_iter()
        .chain(ours.map(String::from))
        .chain([remap])
        .collect::<Vec<_>>()
        .join("\x1f")
}

/// `path` as a TOML basic string.
fn toml_string(path: &Path) -> String {
    let text = path.to_string_lossy();
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Runs a cargo build, watching its stderr for the "patch was not used"
/// warning (then it stops the build: it would link real libFuzzer).
fn run_cargo(
    command: &mut Command,
    harness_dir: &Path,
    unused: &dyn Fn(String) -> BuildError,
) -> Result<(), BuildError> {
    let line = command_line(command);
    let spawn_error = |source| BuildError::Spawn {
        command: line.clone(),
        source,
    };
    die_with_this_process(command);
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(spawn_error)?;
    let mut stderr = String::new();
    let mut unused_patch = false;
    for text in BufReader::new(child.stderr.take().expect("piped")).lines() {
        let text = text.unwrap_or_default();
        unused_patch |= text.contains("was not used in the crate graph");
        stderr.push_str(&text);
        stderr.push('\n');
        if unused_patch {
            let _ = child.kill();
            break;
        }
    }
    let status = child.wait().map_err(spawn_error)?;
    if unused_patch {
        return Err(unused(harness_version(harness_dir)));
    }
    if !status.success() {
        let tail = stderr.len().saturating_sub(8000);
        let tail = stderr
            .char_indices()
            .find(|&(i, _)| i >= tail)
            .map_or("", |(i, _)| &stderr[i..]);
        return Err(BuildError::Cargo {
            command: line,
            status,
            stderr: tail.to_string(),
        });
    }
    Ok(())
}

/// Makes `command`'s process die (SIGKILL) when the thread that starts it
/// ends, which for a build is when cargo-reduce ends: a cargo-reduce
/// killed by SIGKILL (or an OOM killer) cannot stop its build, which
/// would otherwise run on to its end without it. (The rustc processes
/// cargo started finish the crate they compile.) Builds start on the main
/// thread, which lives as long as the process.
fn die_with_this_process(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    let parent = rustix::process::getpid();
    // SAFETY: only prctl and getppid (plain system calls, async-signal-
    // safe) run in the child between fork and exec.
    unsafe {
        command.pre_exec(move || {
            rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))?;
            // The parent died before the prctl: the signal will never come.
            if rustix::process::getppid() != Some(parent) {
                return Err(std::io::Error::other("cargo-reduce ended"));
            }
            Ok(())
        });
    }
}

/// The version a harness was written with (for messages).
fn harness_version(harness_dir: &Path) -> String {
    let manifest = std::fs::read_to_string(harness_dir.join("Cargo.toml")).unwrap_or_default();
    manifest
        .lines()
        .find_map(|l| l.strip_prefix("version = "))
        .map_or("?".to_string(), |v| v.trim_matches('"').to_string())
}

/// The host target triple of the toolchain that builds `fuzz_dir` (passing
/// `--target` keeps `RUSTFLAGS` away from build scripts and proc macros, as
/// with cargo-fuzz).
fn host_triple(fuzz_dir: &Path) -> Result<String, BuildError> {
    let mut command = Command::new("rustc");
    command.current_dir(fuzz_dir).arg("-vV");
    let stdout = run_for_output(&mut command)?;
    match stdout.lines().find_map(|l| l.strip_prefix("host: ")) {
        Some(host) => Ok(host.trim().to_string()),
        None => Err(BuildError::Spawn {
            command: command_line(&command),
            source: std::io::Error::other("`rustc -vV` printed no host line"),
        }),
    }
}

/// Builds `targets` of `project` against `stand_in`; returns their
/// binaries. The stand-in and the build live under the project's target
/// directory (`cargo-reduce/`), apart from `cargo fuzz`'s own builds, so
/// neither invalidates the other and rebuilds are incremental.
pub fn build_workers(
    stand_in: &StandIn,
    project: &FuzzProject,
    targets: &[&str],
) -> Result<Vec<PathBuf>, WorkerBuildError> {
    let root = project.target_dir.join("cargo-reduce");
    let _exclusive = lock_builds(&root)?;
    let version = stand_in.locked_version(&project.fuzz_dir)?;
    if !(stand_in.supports)(&version) {
        return Err(WorkerBuildError::Unsupported {
            lock: project.lock_file.clone(),
            package: stand_in.package,
            supported: stand_in.versions,
            version,
        });
    }
    let harness = root.join(format!("{}-{version}", stand_in.package));
    stand_in.write(&harness, &version)?;
    Ok(build_patched(
        stand_in,
        &project.fuzz_dir,
        &harness,
        targets,
        &root.join("build"),
    )?)
}

/// Takes an exclusive lock on `<root>/build.lock`, held until the returned
/// file is dropped: two cargo-reduce runs on one project write the same
/// stand-in and shadow files, so they build one after the other.
fn lock_builds(root: &Path) -> Result<std::fs::File, BuildError> {
    let path = root.join("build.lock");
    let io = |source| BuildError::Io {
        path: path.clone(),
        source,
    };
    std::fs::create_dir_all(root).map_err(io)?;
    let file = std::fs::File::create(&path).map_err(io)?;
    file.lock().map_err(io)?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rustflags_follow_the_users() {
        let flags = |extra| rustflags(extra, Path::new("/my project"));
        let ours = RUSTFLAGS.replace(' ', "\x1f");
        assert!(flags("").ends_with(&format!("{ours}\x1f--remap-path-prefix=/my project/=")));
        assert!(flags(SYSTEM_ALLOC_CFG).contains(&SYSTEM_ALLOC_CFG.replace(' ', "\x1f")));
    }

    #[test]
    fn a_build_dies_with_the_thread_that_started_it() {
        use std::os::unix::process::ExitStatusExt;
        let started = std::time::Instant::now();
        let mut child = std::thread::spawn(|| {
            let mut command = Command::new("sleep");
            command.arg("30");
            die_with_this_process(&mut command);
            command.spawn().unwrap()
        })
        .join()
        .unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(9), "{status:?}");
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }

    #[test]
    fn toml_strings_are_escaped() {
        assert_eq!(toml_string(Path::new(r#"/a "b"\c"#)), r#""/a \"b\"\\c""#);
    }
}
