//! Builds a fuzz project's targets against a fuzz engine's stand-in
//! ([`StandIn`]): writes the stand-in crate (shipped inside cargo-reduce)
//! under the version the project's `Cargo.lock` holds, and runs `cargo
//! build --release` with a `--config patch.crates-io.<crate>.path=...` and
//! cargo-fuzz's `RUSTFLAGS` minus instrumentation, on a
//! shadow (`shadow.rs`) of the fuzz crate's manifest and lock (cargo
//! rewrites the lock when patching; the user's is never written).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;

mod alloc;
mod call_sites;
mod coverage;
pub(crate) mod crate_files;
mod dirs;
mod error;
pub(crate) mod instrument;
mod invoke;
mod kind;
mod lockfile;
mod nightly;
mod resolve;
mod run;
mod sancov_exempt;
mod shadow;
mod variant;

pub(crate) use error::{BuildError, WorkerBuildError};
pub(crate) use kind::BuildKind;
#[cfg(test)]
pub(crate) use lockfile::lock_file;

use crate::fuzz::project::{BinKind, FuzzProject};
use crate::fuzz::toolchain::Toolchain;
use crate_files::{Locked, Source, StandIn};
use error::io_error;
use invoke::{command_line, run_for_output};
use shadow::Placeholder;

/// What building one target gave: its binary, or the compiler's errors.
pub(crate) type BuiltTarget = Result<PathBuf, String>;

/// What a build gave.
#[derive(Debug)]
pub(crate) struct Built {
    /// Each target's binary or errors, in the order asked.
    pub targets: Vec<BuiltTarget>,
    /// The units cargo compiled rather than found fresh (`crate@version
    /// target`): what a rebuild cost.
    pub compiled: Vec<String>,
}

/// A target to build.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BuildTarget<'a> {
    /// Its name.
    pub name: &'a str,
    /// What cargo builds it as.
    pub kind: BinKind,
    /// The features it needs.
    pub features: &'a [String],
}

impl<'a> From<&'a str> for BuildTarget<'a> {
    /// A `[[bin]]` that needs no feature (every cargo-fuzz target).
    fn from(name: &'a str) -> Self {
        BuildTarget {
            name,
            kind: BinKind::Bin,
            features: &[],
        }
    }
}

impl BuildTarget<'_> {
    /// cargo's option that selects it.
    fn selector(&self) -> [&str; 2] {
        let flag = match self.kind {
            BinKind::Bin => "--bin",
            BinKind::Example => "--example",
            BinKind::Test => "--test",
        };
        [flag, self.name]
    }
}

/// Builds `targets` of the fuzz project in `dirs.fuzz`, with the versions
/// of the lock file `dirs.lock`, against the harness in `dirs.harness`
/// (written by [`StandIn::write`]; keep it in one place across runs so
/// cargo rebuilds nothing) into `dirs.target`, as `kind` says (with
/// AddressSanitizer: `crate::fuzz::sanitizer`); returns the binaries, in `targets`' order
/// (a target that does not compile does not keep the others from being
/// built). The build runs on a shadow (`shadow.rs`) of the fuzz crate's
/// manifest and lock inside the target directory, so the user's files are
/// never written. A lock without `libc` (libfuzzer-sys before 0.4.4)
/// makes cargo look `libc` up in the registry index for the harness.
#[cfg(test)]
pub(crate) fn build_patched(
    stand_in: &StandIn,
    dirs: Dirs<'_>,
    targets: &[BuildTarget<'_>],
    kind: BuildKind<'_>,
    interrupt: &AtomicBool,
) -> Result<Vec<BuiltTarget>, BuildError> {
    let engine = stand_in
        .locked(dirs.lock)?
        .located(&dirs.fuzz.join("Cargo.toml"), stand_in.package)?;
    let user = Toolchain::user();
    let build = Build {
        stand_in,
        engine: &engine,
        companions: &[],
        placeholders: &[],
        toolchain: kind.toolchain().unwrap_or(&user),
        kind,
    };
    Ok(build_patched_with(&build, dirs, targets, interrupt)?.targets)
}

/// Where [`build_patched`] works.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Dirs<'a> {
    /// The fuzz crate.
    pub fuzz: &'a Path,
    /// The lock file whose versions the build takes.
    pub lock: &'a Path,
    /// The engine's stand-in.
    pub harness: &'a Path,
    /// The build.
    pub target: &'a Path,
}

/// What a build patches in and how it compiles.
#[derive(Clone, Copy)]
struct Build<'a> {
    /// The engine's stand-in.
    stand_in: &'a StandIn,
    /// The engine as the lock holds it.
    engine: &'a Locked,
    /// `--config` patches of the other engines' stand-ins the build's lock
    /// holds (a package that fuzzes with both engines, or a dependency that
    /// depends on an engine under `cfg(fuzzing)`), so that the build never
    /// compiles a real engine (libFuzzer's C++, AFL++). Each is a companion
    /// (`variant::COMPANION`): linked into the engine's program, it
    /// defines none of the symbols the engine's stand-in does.
    companions: &'a [String],
    /// What the shadow depends on in place of engines from git (a lock
    /// resolved for the run: `resolve.rs`).
    placeholders: &'a [Placeholder],
    /// The toolchain that builds (a nightly one for ASan and for targets
    /// that need it).
    toolchain: &'a Toolchain,
    /// Plain, AddressSanitizer or coverage.
    kind: BuildKind<'a>,
}

/// [`build_patched`] as `build` says.
fn build_patched_with(
    build: &Build<'_>,
    dirs: Dirs<'_>,
    targets: &[BuildTarget<'_>],
    interrupt: &AtomicBool,
) -> Result<Built, BuildError> {
    let invocation = Invocation::prepare(build, dirs, targets)?;
    let cargo = |harness: &Path| invocation.run(build, dirs, targets, harness, interrupt);
    let (output, command, compiled) = build_allocating(build.stand_in, build.engine, dirs, &cargo)?;
    match per_target(output, command, targets) {
        Ok(binaries) => Ok(Built {
            targets: binaries,
            compiled,
        }),
        Err(whole) => build_apart(build, dirs, targets, interrupt, whole),
    }
}

/// A cargo build's output and command line.
type CargoRun = Result<(run::Output, String), BuildError>;

/// What every cargo build of one [`build_patched_with`] shares.
struct Invocation {
    shadow: shadow::Shadow,
    /// `--config` patches besides the engine's (companions, `arbitrary`).
    patches: Vec<String>,
    /// `CARGO_ENCODED_RUSTFLAGS`.
    flags: String,
    host: String,
    /// The features the targets need, sorted, once each.
    features: Vec<String>,
}

impl Invocation {
    /// The shadow written, `arbitrary` instrumented where it is recorded,
    /// the host and flags found.
    fn prepare(
        build: &Build<'_>,
        dirs: Dirs<'_>,
        targets: &[BuildTarget<'_>],
    ) -> Result<Invocation, BuildError> {
        let shadow = shadow::prepare(
            &dirs.fuzz.join("Cargo.toml"),
            Some(dirs.lock),
            &dirs.target.join("cargo-reduce-shadow"),
            build.placeholders,
        )?;
        let mut patches = Vec::new();
        for patch in build.companions {
            patches.extend(["--config".to_string(), patch.clone()]);
        }
        let instrumented = instrumented_arbitrary(build, dirs, &shadow, &patches)?;
        let mut base_flags = String::new();
        if let Some(instrumented) = &instrumented {
            patches.extend([
                "--config".to_string(),
                patch_config("arbitrary", &instrumented.dir),
            ]);
            base_flags.push_str(instrument::TRACE_CFG);
        }
        let host = host_triple(dirs.fuzz, build.toolchain)?;
        let mut features: Vec<String> = targets
            .iter()
            .flat_map(|t| t.features.iter().cloned())
            .collect();
        features.sort_unstable();
        features.dedup();
        // The same flags for every build, whatever the stand-in (see `alloc`).
        let mut flags = rustflags(build.stand_in.rustflags, &base_flags, &shadow.root);
        let mut kind_flags = build.kind.rustflags(&host, build.stand_in.package);
        if build.kind.signs_failures() {
            kind_flags.extend(call_sites::flags(dirs.fuzz, build.toolchain));
        }
        for flag in kind_flags {
            flags.push('\x1f');
            flags.push_str(&flag);
        }
        Ok(Invocation {
            shadow,
            patches,
            flags,
            host,
            features,
        })
    }

    /// One cargo build of `targets` against the stand-in in `harness`: its
    /// output and command line.
    fn run(
        &self,
        build: &Build<'_>,
        dirs: Dirs<'_>,
        targets: &[BuildTarget<'_>],
        harness: &Path,
        interrupt: &AtomicBool,
    ) -> CargoRun {
        let package = build.stand_in.package;
        let mut command = Command::new("cargo");
        command
            .current_dir(dirs.fuzz)
            .args(["build", "--target", &self.host, "--manifest-path"])
            .arg(&self.shadow.manifest)
            .arg("--target-dir")
            .arg(dirs.target)
            .args(["--config", &engine_patch(package, build.engine, harness)])
            .args(&self.patches)
            .env_remove("RUSTFLAGS")
            .env("CARGO_ENCODED_RUSTFLAGS", &self.flags);
        if build.kind.counts_coverage() {
            sancov_exempt::apply(&mut command, dirs.target, harness)?;
            // Link-time optimization drops SanitizerCoverage's per-module
            // symbols under AddressSanitizer (rust-lld: undefined symbol
            // `__sancov_gen_.N`; pulldown-cmark's workspace sets `lto`), and
            // the counters are placed before it anyway.
            command.args(["--config", "profile.release.lto=false"]);
        }
        build.toolchain.apply(&mut command);
        if build.stand_in.release {
            command.arg("--release");
        }
        if !self.features.is_empty() {
            command.args(["--features", &self.features.join(",")]);
        }
        for target in targets {
            command.args(target.selector());
        }
        match run::run(&mut command, harness, interrupt)? {
            (_, true) => Err(BuildError::PatchNotUsed {
                package,
                harness: harness_version(dirs.harness),
                locked: build.engine.version.clone(),
                lock: dirs.lock.to_path_buf(),
            }),
            (output, false) => Ok((output, command_line(&command))),
        }
    }
}

/// The recording copy of `arbitrary`, where the stand-in decodes with a
/// 1.x; never in the coverage build, whose features are those of the
/// user's code (the recorder's thread-local would add the edges of its
/// lazy start to whichever input a process decodes first).
fn instrumented_arbitrary(
    build: &Build<'_>,
    dirs: Dirs<'_>,
    shadow: &shadow::Shadow,
    patches: &[String],
) -> Result<Option<instrument::Instrumented>, BuildError> {
    match build.engine.arbitrary.as_deref() {
        Some(v) if !v.starts_with("1.") => return Ok(None),
        _ if build.kind.counts_coverage() => return Ok(None),
        _ => {}
    }
    let text = std::fs::read_to_string(dirs.lock).map_err(io_error(dirs.lock))?;
    let mut metadata_args = patches.to_vec();
    metadata_args.extend([
        "--config".to_string(),
        engine_patch(build.stand_in.package, build.engine, dirs.harness),
    ]);
    let cache = dirs.target.parent().unwrap_or(dirs.target);
    instrument::prepare(&text, &shadow.manifest, &metadata_args, cache)
}

/// Builds with `cargo` against the stand-in, or against its system-alloc
/// variant when the crate has its own global allocator (known from an
/// earlier build, or learnt from this one's errors): the output, command
/// line and every package compiled.
fn build_allocating(
    stand_in: &StandIn,
    engine: &Locked,
    dirs: Dirs<'_>,
    cargo: &dyn Fn(&Path) -> CargoRun,
) -> Result<(run::Output, String, Vec<String>), BuildError> {
    let variant = || alloc::write_variant(stand_in, dirs.harness, engine);
    let own_allocator = alloc::remembered(dirs.target, dirs.fuzz);
    let (mut output, mut command) = match own_allocator {
        true => cargo(&variant()?)?,
        false => cargo(dirs.harness)?,
    };
    let mut compiled = std::mem::take(&mut output.compiled);
    if !own_allocator && alloc::conflicts(&output.diagnostics()) {
        (output, command) = cargo(&variant()?)?;
        alloc::remember(dirs.target, dirs.fuzz)?;
        compiled.append(&mut output.compiled);
    }
    Ok((output, command, compiled))
}

/// After a build that failed before any target (`whole`): when the
/// targets need different features, builds each set of targets that
/// needs the same ones on its own, so that a target whose features break
/// the build (a feature the package does not have, or one that breaks a
/// dependency) fails only itself. `whole` when every set fails alike, or
/// there is only one.
fn build_apart(
    build: &Build<'_>,
    dirs: Dirs<'_>,
    targets: &[BuildTarget<'_>],
    interrupt: &AtomicBool,
    whole: BuildError,
) -> Result<Built, BuildError> {
    let mut sets: Vec<&[String]> = targets.iter().map(|t| t.features).collect();
    sets.sort_unstable();
    sets.dedup();
    if sets.len() < 2 {
        return Err(whole);
    }
    let mut results: Vec<Option<BuiltTarget>> = vec![None; targets.len()];
    let mut compiled = Vec::new();
    let mut any_built = false;
    for set in sets {
        let group: Vec<BuildTarget<'_>> = targets
            .iter()
            .filter(|t| t.features == set)
            .copied()
            .collect();
        let outcome = match build_patched_with(build, dirs, &group, interrupt) {
            Err(BuildError::Interrupted) => return Err(BuildError::Interrupted),
            Err(error) => vec![Err(error.to_string()); group.len()],
            Ok(mut built) => {
                any_built = true;
                compiled.append(&mut built.compiled);
                built.targets
            }
        };
        let slots = targets
            .iter()
            .enumerate()
            .filter(|(_, t)| t.features == set);
        for ((i, _), result) in slots.zip(outcome) {
            results[i] = Some(result);
        }
    }
    if !any_built {
        return Err(whole);
    }
    Ok(Built {
        targets: results
            .into_iter()
            .map(|r| r.expect("every set built"))
            .collect(),
        compiled,
    })
}

/// Each target's binary or errors. A build that made no binary at all
/// failed before any target (resolution, the lock, a dependency): that is
/// the whole build's error.
fn per_target(
    output: run::Output,
    command: String,
    targets: &[BuildTarget<'_>],
) -> Result<Vec<BuiltTarget>, BuildError> {
    let status = output.status.expect("the build ended");
    if !status.success() && !targets.iter().any(|t| output.binaries.contains_key(t.name)) {
        return Err(BuildError::Cargo {
            command,
            status,
            stderr: output.diagnostics(),
        });
    }
    Ok(targets
        .iter()
        .map(|t| match output.binaries.get(t.name) {
            Some(binary) => Ok(binary.clone()),
            None => Err(output
                .errors
                .get(t.name)
                .cloned()
                .unwrap_or_else(|| output.diagnostics())),
        })
        .collect())
}

/// The engine's flags (`engine`, then `extra`) after any the user set, as
/// cargo-fuzz and cargo-afl do, then a
/// remapping of `root/` to nothing: the shadow names every source by its
/// absolute path, and `file!()` (so every panic location) must read as in
/// the user's own builds, relative to their workspace root. Encoded for
/// `CARGO_ENCODED_RUSTFLAGS` (separated by 0x1f), so a path with spaces
/// stays one argument.
fn rustflags(engine: &str, extra: &str, root: &Path) -> String {
    let user = user_rustflags();
    let ours = engine
        .split(' ')
        .chain(extra.split(' '))
        .filter(|s| !s.is_empty());
    let remap = format!("--remap-path-prefix={}/=", root.display());
    user.into_iter()
        .chain(ours.map(String::from))
        .chain([remap])
        .collect::<Vec<_>>()
        .join("\x1f")
}

/// The flags the user set in the environment (`CARGO_ENCODED_RUSTFLAGS`,
/// else `RUSTFLAGS`).
fn user_rustflags() -> Vec<String> {
    match std::env::var("CARGO_ENCODED_RUSTFLAGS") {
        Ok(encoded) if !encoded.is_empty() => encoded.split('\x1f').map(String::from).collect(),
        _ => std::env::var("RUSTFLAGS")
            .unwrap_or_default()
            .split_whitespace()
            .map(String::from)
            .collect(),
    }
}

/// Gives a `cargo` command (`metadata`) the flags the build's come from:
/// the user's environment's, as `CARGO_ENCODED_RUSTFLAGS`, which replaces
/// a `.cargo/config.toml`'s `build.rustflags` as it does for the build (and
/// for `cargo fuzz build` / `cargo afl build`). A config's nightly-only
/// flag (image-rs/image's `-Znew-llvm-pass-manager=no`) would otherwise
/// fail the resolution on stable.
fn with_build_rustflags(command: &mut Command) -> &mut Command {
    command
        .env_remove("RUSTFLAGS")
        .env("CARGO_ENCODED_RUSTFLAGS", user_rustflags().join("\x1f"))
}

/// The `--config` value that patches crates.io's `package` with the
/// crate in `dir`.
fn patch_config(package: &str, dir: &Path) -> String {
    format!("patch.crates-io.{package}.path={}", toml_string(dir))
}

/// The `--config` value that patches the engine crate where the lock takes
/// it from (crates.io; a git repository: `patch."<url>"`, which covers
/// every branch, tag and rev of it; a path: `patch."file://<dir>"`, which
/// replaces it wherever it is named, the user's manifest untouched) with
/// the stand-in in `dir`.
fn engine_patch(package: &str, engine: &Locked, dir: &Path) -> String {
    let url = match &engine.source {
        Source::Git(url) => url.clone(),
        Source::Path(Some(path)) => format!("file://{}", path.display()),
        Source::Registry | Source::Path(None) => return patch_config(package, dir),
    };
    format!(
        "patch.{}.{package}.path={}",
        toml_string(Path::new(&url)),
        toml_string(dir)
    )
}

/// `path` as a TOML basic string.
fn toml_string(path: &Path) -> String {
    let text = path.to_string_lossy();
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
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
/// with cargo-fuzz; `cargo reduce run` passes it to the front ends alike).
pub(crate) fn host_triple(fuzz_dir: &Path, toolchain: &Toolchain) -> Result<String, BuildError> {
    let mut command = Command::new("rustc");
    command.current_dir(fuzz_dir).arg("-vV");
    toolchain.apply(&mut command);
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
/// neither invalidates the other and rebuilds are incremental. A project
/// whose lock does not hold the engine (or that has none) gets one
/// resolved for the run; `note` is told so in one line. Each of `others`
/// (the other engines' stand-ins) whose crate the lock holds is patched in
/// too, as a companion: a package with targets of both engines depends on
/// both, and a dependency may depend on an engine under `cfg(fuzzing)`. Each
/// [`BuildKind`] but the plain one has a build directory of its own. A
/// target that needs nightly (`#![feature]`) on another toolchain is built
/// again with nightly (`nightly.rs`).
pub(crate) fn build_workers(
    stand_in: &StandIn,
    others: &[&StandIn],
    project: &FuzzProject,
    targets: &[BuildTarget<'_>],
    kind: BuildKind<'_>,
    interrupt: &AtomicBool,
    note: &dyn Fn(&str),
) -> Result<Built, WorkerBuildError> {
    let root = project.target_dir.join("cargo-reduce");
    let _exclusive = lock_builds(&root)?;
    let manifest = project.fuzz_dir.join("Cargo.toml");
    let engines: Vec<&StandIn> = [stand_in]
        .into_iter()
        .chain(others.iter().copied())
        .collect();
    let lock = resolve::lock(
        stand_in.package,
        &engines,
        &manifest,
        &project.lock_file,
        &root.join("resolved"),
    )?;
    if let Some(line) = &lock.resolved {
        note(line);
    }
    let engine = locate(stand_in, &lock, &manifest)?;
    if !(stand_in.supports)(&engine.version) {
        return Err(WorkerBuildError::Unsupported {
            lock: lock.resolved.is_none().then_some(lock.path),
            manifest,
            package: stand_in.package,
            supported: stand_in.versions,
            suggest: stand_in.suggest,
            version: engine.version,
        });
    }
    let harness = root.join(format!("{}-{}", stand_in.package, engine.version));
    stand_in.write(&harness, &engine)?;
    let companions = companions(others, &lock, &manifest, &root)?;
    let user = Toolchain::user();
    let build = Build {
        stand_in,
        engine: &engine,
        companions: &companions,
        placeholders: &lock.placeholders,
        toolchain: kind.toolchain().unwrap_or(&user),
        kind,
    };
    let dirs = Dirs {
        fuzz: &project.fuzz_dir,
        lock: &lock.path,
        harness: &harness,
        target: &dirs::build_dir(&root, &project.workspace_root, kind.dir_name())?,
    };
    let first = build_patched_with(&build, dirs, targets, interrupt);
    // A kind's nightly rebuild beside it, so that neither invalidates the other.
    let nightly_name = format!("{}-nightly", kind.dir_name());
    let nightly_dir = || dirs::build_dir(&root, &project.workspace_root, &nightly_name);
    let fallback = nightly::Fallback {
        build: &build,
        dirs,
        nightly_dir: &nightly_dir,
        note,
    };
    Ok(fallback.rebuild(targets, interrupt, first)?)
}

/// The engine of `stand_in` as `lock` holds it, with the directory of a
/// path source: its placeholder's, or the one the manifests name.
fn locate(stand_in: &StandIn, lock: &resolve::Lock, manifest: &Path) -> Result<Locked, BuildError> {
    let locked = stand_in.locked(&lock.path)?;
    let placeholder = lock
        .placeholders
        .iter()
        .find(|p| p.package == stand_in.package);
    match placeholder {
        Some(placeholder) if locked.source == Source::Path(None) => Ok(Locked {
            source: Source::Path(Some(placeholder.dir.clone())),
            ..locked
        }),
        _ => locked.located(manifest, stand_in.package),
    }
}

/// The `--config` patches of the `others` stand-ins whose crate the lock
/// `lock` holds, each written as a companion under `root`.
fn companions(
    others: &[&StandIn],
    lock: &resolve::Lock,
    manifest: &Path,
    root: &Path,
) -> Result<Vec<String>, BuildError> {
    let mut companions = Vec::new();
    for other in others {
        match locate(other, lock, manifest) {
            Ok(locked) if (other.supports)(&locked.version) => {
                let dir = root.join(format!("{}-{}", other.package, locked.version));
                let dir = variant::write(other, &dir, &locked, variant::COMPANION)?;
                companions.push(engine_patch(other.package, &locked, &dir));
            }
            _ => {}
        }
    }
    Ok(companions)
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
        const ENGINE: &str = "--cfg fuzzing -Cdebug-assertions";
        let flags = |extra| rustflags(ENGINE, extra, Path::new("/my project"));
        let ours = ENGINE.replace(' ', "\x1f");
        assert!(flags("").ends_with(&format!("{ours}\x1f--remap-path-prefix=/my project/=")));
        let trace = instrument::TRACE_CFG;
        assert!(flags(trace).contains(&trace.replace(' ', "\x1f")));
    }

    #[test]
    fn a_git_or_path_engine_is_patched_by_its_url() {
        let engine = |source| Locked {
            version: "0.4.7".into(),
            source,
            arbitrary: None,
        };
        let dir = Path::new("/h");
        assert_eq!(
            engine_patch("libfuzzer-sys", &engine(Source::Registry), dir),
            "patch.crates-io.libfuzzer-sys.path=\"/h\""
        );
        let git = Source::Git("https://github.com/rust-fuzz/libfuzzer-sys".into());
        assert_eq!(
            engine_patch("libfuzzer-sys", &engine(git), dir),
            "patch.\"https://github.com/rust-fuzz/libfuzzer-sys\".libfuzzer-sys.path=\"/h\""
        );
        let path = Source::Path(Some("/src/libfuzzer".into()));
        assert_eq!(
            engine_patch("libfuzzer-sys", &engine(path), dir),
            "patch.\"file:///src/libfuzzer\".libfuzzer-sys.path=\"/h\""
        );
    }

    #[test]
    fn toml_strings_are_escaped() {
        assert_eq!(toml_string(Path::new(r#"/a "b"\c"#)), r#""/a \"b\"\\c""#);
    }
}
