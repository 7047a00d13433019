//! Builds a fuzz project's targets against the `libfuzzer-sys` stand-in:
//! writes the harness crate (shipped inside cargo-reduce) under the version
//! the project's `Cargo.lock` holds, runs `cargo build --release` with a
//! `--config patch.crates-io.libfuzzer-sys.path=...` and cargo-fuzz's
//! `RUSTFLAGS` minus instrumentation, and puts the lock file back as it was
//! (cargo rewrites it when patching).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use crate::fuzz::project::FuzzProject;

/// The harness crate's files, relative to its directory.
pub const HARNESS_FILES: &[(&str, &str)] = &[
    ("src/lib.rs", include_str!("../../harness/src/lib.rs")),
    (
        "src/protocol.rs",
        include_str!("../../harness/src/protocol.rs"),
    ),
    ("src/worker.rs", include_str!("../../harness/src/worker.rs")),
    (
        "src/capture.rs",
        include_str!("../../harness/src/capture.rs"),
    ),
];

/// The harness manifest; `@VERSION@` becomes the locked version.
const MANIFEST_TEMPLATE: &str = include_str!("../../harness/Cargo.toml.in");

/// cargo-fuzz's `RUSTFLAGS`, minus sanitizer and coverage instrumentation.
const RUSTFLAGS: &str = "--cfg fuzzing -Cdebug-assertions -Coverflow-checks";

/// Added when the target has its own `#[global_allocator]` (see the harness's
/// `capture` module).
const SYSTEM_ALLOC_CFG: &str = "--cfg cargo_reduce_system_alloc";

/// Why building against the harness failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// A command could not be started.
    #[error("cannot run `{command}`: {source}")]
    Spawn {
        /// The command line.
        command: String,
        /// What failed.
        source: std::io::Error,
    },
    /// The lock file holds no `libfuzzer-sys` from crates.io.
    #[error("{} locks no libfuzzer-sys from crates.io", lock.display())]
    NotLocked {
        /// The lock file.
        lock: PathBuf,
    },
    /// The lock file holds several versions of `libfuzzer-sys`.
    #[error("{} locks several libfuzzer-sys versions: {}", lock.display(), versions.join(", "))]
    SeveralVersions {
        /// The lock file.
        lock: PathBuf,
        /// The versions.
        versions: Vec<String>,
    },
    /// Cargo said the patch was not used: the build would link real libFuzzer.
    #[error(
        "cargo did not use the libfuzzer-sys {harness} stand-in: {} locks libfuzzer-sys {locked}",
        lock.display()
    )]
    PatchNotUsed {
        /// Version the harness was written with.
        harness: String,
        /// Version(s) in the lock file.
        locked: String,
        /// The lock file.
        lock: PathBuf,
    },
    /// A cargo command failed.
    #[error("`{command}` failed ({status}):\n{stderr}")]
    Cargo {
        /// The command line.
        command: String,
        /// Its exit status.
        status: ExitStatus,
        /// The end of its stderr.
        stderr: String,
    },
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> BuildError + '_ {
    move |source| BuildError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The `Cargo.lock` that governs `fuzz_dir` (its workspace's).
pub fn lock_file(fuzz_dir: &Path) -> Result<PathBuf, BuildError> {
    let mut command = Command::new("cargo");
    command
        .args([
            "locate-project",
            "--workspace",
            "--message-format",
            "plain",
            "--manifest-path",
        ])
        .arg(fuzz_dir.join("Cargo.toml"));
    let stdout = run_for_output(&mut command)?;
    let manifest = PathBuf::from(stdout.trim());
    Ok(manifest.with_file_name("Cargo.lock"))
}

/// The version of `libfuzzer-sys` (from crates.io) that `fuzz_dir`'s lock
/// file holds: the harness is written under exactly this version so that
/// cargo's patch replaces it without re-resolving anything else.
pub fn locked_libfuzzer_version(fuzz_dir: &Path) -> Result<String, BuildError> {
    let lock = lock_file(fuzz_dir)?;
    let text = std::fs::read_to_string(&lock).map_err(io_error(&lock))?;
    let mut versions = registry_versions(&text, "libfuzzer-sys");
    match versions.len() {
        0 => Err(BuildError::NotLocked { lock }),
        1 => Ok(versions.remove(0)),
        _ => Err(BuildError::SeveralVersions { lock, versions }),
    }
}

/// Versions of package `name` from a registry in lock file `text`.
fn registry_versions(text: &str, name: &str) -> Vec<String> {
    let mut versions = Vec::new();
    for block in text.split("[[package]]").skip(1) {
        let field = |key: &str| {
            block.lines().find_map(|line| {
                let value = line
                    .trim()
                    .strip_prefix(key)?
                    .trim_start()
                    .strip_prefix('=')?;
                Some(value.trim().trim_matches('"').to_string())
            })
        };
        let from_registry =
            field("source").is_some_and(|s| s.starts_with("registry+") || s.starts_with("sparse+"));
        if field("name").as_deref() == Some(name) && from_registry {
            versions.extend(field("version"));
        }
    }
    versions
}

/// Writes the harness crate into `dir` as `libfuzzer-sys` `version`. Files
/// whose content is unchanged are left alone, so cargo does not rebuild.
pub fn write_harness(dir: &Path, version: &str) -> Result<(), BuildError> {
    let manifest = MANIFEST_TEMPLATE.replace("@VERSION@", version);
    let files = HARNESS_FILES
        .iter()
        .copied()
        .chain([("Cargo.toml", manifest.as_str())]);
    for (name, content) in files {
        let path = dir.join(name);
        if std::fs::read(&path).is_ok_and(|old| old == content.as_bytes()) {
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io_error(parent))?;
        }
        std::fs::write(&path, content).map_err(io_error(&path))?;
    }
    Ok(())
}

/// Builds `targets` of the fuzz project in `fuzz_dir` against the harness in
/// `harness_dir` (written by [`write_harness`]; keep it in one place across
/// runs so cargo rebuilds nothing) into `target_dir`; returns the binaries,
/// in `targets`' order. The lock file is byte-identical afterwards, whatever
/// happened. A lock without `libc` (libfuzzer-sys before 0.4.4) makes cargo
/// look `libc` up in the registry index for the harness.
pub fn build_patched(
    fuzz_dir: &Path,
    harness_dir: &Path,
    targets: &[&str],
    target_dir: &Path,
) -> Result<Vec<PathBuf>, BuildError> {
    let lock = lock_file(fuzz_dir)?;
    let saved = std::fs::read(&lock).ok();
    let locked = match &saved {
        Some(bytes) => {
            registry_versions(&String::from_utf8_lossy(bytes), "libfuzzer-sys").join(", ")
        }
        None => "nothing (there is no lock file)".to_string(),
    };
    let unused = |harness| BuildError::PatchNotUsed {
        harness,
        locked: locked.clone(),
        lock: lock.clone(),
    };
    let result = build_with_lock_saved(fuzz_dir, harness_dir, targets, target_dir, &unused);
    restore(&lock, saved.as_deref())?;
    result
}

fn build_with_lock_saved(
    fuzz_dir: &Path,
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
            .arg(fuzz_dir.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(target_dir)
            .arg("--config")
            .arg(format!(
                "patch.crates-io.libfuzzer-sys.path={}",
                toml_string(harness_dir)
            ))
            .env("RUSTFLAGS", rustflags(extra_flags));
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

/// cargo-fuzz's flags after any the user set, as cargo-fuzz does.
fn rustflags(extra: &str) -> String {
    let user = std::env::var("RUSTFLAGS").unwrap_or_default();
    [user.as_str(), RUSTFLAGS, extra]
        .iter()
        .filter(|s| !s.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" ")
}

/// `path` as a TOML basic string.
fn toml_string(path: &Path) -> String {
    let text = path.to_string_lossy();
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

fn command_line(command: &Command) -> String {
    let args = command.get_args().map(|a| a.to_string_lossy().into_owned());
    std::iter::once(command.get_program().to_string_lossy().into_owned())
        .chain(args)
        .collect::<Vec<_>>()
        .join(" ")
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

/// The version a harness was written with (for messages).
fn harness_version(harness_dir: &Path) -> String {
    let manifest = std::fs::read_to_string(harness_dir.join("Cargo.toml")).unwrap_or_default();
    manifest
        .lines()
        .find_map(|l| l.strip_prefix("version = "))
        .map_or("?".to_string(), |v| v.trim_matches('"').to_string())
}

/// Puts the lock file back as it was (or removes it if there was none).
fn restore(lock: &Path, saved: Option<&[u8]>) -> Result<(), BuildError> {
    let current = std::fs::read(lock).ok();
    if current.as_deref() == saved {
        return Ok(());
    }
    match saved {
        Some(bytes) => std::fs::write(lock, bytes),
        None => std::fs::remove_file(lock),
    }
    .map_err(io_error(lock))
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

fn run_for_output(command: &mut Command) -> Result<String, BuildError> {
    let line = command_line(command);
    let output = command
        .stderr(Stdio::piped())
        .output()
        .map_err(|source| BuildError::Spawn {
            command: line.clone(),
            source,
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        return Err(BuildError::Cargo {
            command: line,
            status: output.status,
            stderr,
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The libfuzzer-sys versions the stand-in implements.
pub fn supported_version(version: &str) -> bool {
    version.starts_with("0.4.")
}

/// Why building the workers failed.
#[derive(Debug, thiserror::Error)]
pub enum WorkerBuildError {
    /// The fuzz crate locks a libfuzzer-sys the stand-in does not implement.
    #[error("{} locks libfuzzer-sys {version}, which cargo-reduce does not support: its stand-in implements 0.4.x; update the fuzz crate with `cargo update -p libfuzzer-sys`", lock.display())]
    Unsupported {
        /// The lock file.
        lock: PathBuf,
        /// The locked version.
        version: String,
    },
    /// Cargo or the harness failed.
    #[error(transparent)]
    Build(#[from] BuildError),
}

/// Builds `targets` of `project` against the stand-in; returns their
/// binaries. The stand-in and the build live under the project's target
/// directory (`cargo-reduce/`), apart from `cargo fuzz`'s own builds, so
/// neither invalidates the other and rebuilds are incremental.
pub fn build_workers(
    project: &FuzzProject,
    targets: &[&str],
) -> Result<Vec<PathBuf>, WorkerBuildError> {
    let root = project.target_dir.join("cargo-reduce");
    let _exclusive = lock_builds(&root)?;
    let version = locked_libfuzzer_version(&project.fuzz_dir)?;
    if !supported_version(&version) {
        return Err(WorkerBuildError::Unsupported {
            lock: project.lock_file.clone(),
            version,
        });
    }
    let harness = root.join(format!("libfuzzer-sys-{version}"));
    write_harness(&harness, &version)?;
    Ok(build_patched(
        &project.fuzz_dir,
        &harness,
        targets,
        &root.join("build"),
    )?)
}

/// Takes an exclusive lock on `<root>/build.lock`, held until the returned
/// file is dropped. The patched build rewrites the user's Cargo.lock until
/// it puts it back, so two cargo-reduce runs on one project must neither
/// build at once nor read the lock while the other builds.
fn lock_builds(root: &Path) -> Result<std::fs::File, BuildError> {
    let path = root.join("build.lock");
    let io = |source| BuildError::Io {
        path: path.clone(),
        source,
    };
    std::fs::create_dir_all(root).map_err(io)?;
    let file = std::fs::File::create(&path).map_err(io)?;
    rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
        .map_err(|errno| io(errno.into()))?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_registry_versions_only() {
        let lock = r#"
[[package]]
name = "libfuzzer-sys"
version = "0.4.7"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "libfuzzer-sys"
version = "0.4.9"

[[package]]
name = "arbitrary"
version = "1.3.2"
source = "registry+https://github.com/rust-lang/crates.io-index"
"#;
        assert_eq!(registry_versions(lock, "libfuzzer-sys"), ["0.4.7"]);
        assert_eq!(registry_versions(lock, "arbitrary"), ["1.3.2"]);
    }

    #[test]
    fn rustflags_follow_the_users() {
        assert!(rustflags("").ends_with(RUSTFLAGS));
        assert!(rustflags(SYSTEM_ALLOC_CFG).ends_with(SYSTEM_ALLOC_CFG));
    }

    #[test]
    fn toml_strings_are_escaped() {
        assert_eq!(toml_string(Path::new(r#"/a "b"\c"#)), r#""/a \"b\"\\c""#);
    }

    #[test]
    fn every_harness_source_is_shipped() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("harness/src");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| format!("src/{}", e.unwrap().file_name().to_string_lossy()))
            .collect();
        let mut shipped: Vec<String> = HARNESS_FILES.iter().map(|f| f.0.to_string()).collect();
        on_disk.sort();
        shipped.sort();
        assert_eq!(on_disk, shipped);
    }

    #[test]
    fn harness_manifest_gets_the_version() {
        let dir = tempfile::tempdir().unwrap();
        write_harness(dir.path(), "0.4.7").unwrap();
        let manifest = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
        assert!(manifest.contains("version = \"0.4.7\""));
        assert!(dir.path().join("src/worker.rs").exists());
    }

    #[test]
    fn only_0_4_is_supported() {
        assert!(supported_version("0.4.13"));
        assert!(!supported_version("0.3.5"));
        assert!(!supported_version("0.5.0"));
    }
}
