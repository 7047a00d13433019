//! The user's own build of a fuzz target, by the engine's cargo front end
//! (`cargo fuzz build`, `cargo afl build`), as the user runs it in the
//! fuzz crate's tree, with debug info; and where that build puts the
//! binary. `cargo reduce run` runs that binary, the one the user would
//! debug, not the stand-in's.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::fuzz::project::{BinKind, Engine, FuzzProject, FuzzTarget};
use crate::fuzz::sanitizer::Sanitizer;

/// A cargo front end of a fuzz engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tool {
    /// `cargo fuzz` (cargo-fuzz), for libFuzzer targets.
    CargoFuzz,
    /// `cargo afl` (afl.rs), for AFL++ targets.
    CargoAfl,
}

impl Tool {
    /// The front end of `engine`'s targets.
    pub(crate) fn of(engine: Engine) -> Tool {
        match engine {
            Engine::LibFuzzer => Tool::CargoFuzz,
            Engine::Afl => Tool::CargoAfl,
        }
    }

    /// The program cargo runs for the subcommand (`cargo-fuzz`).
    pub(crate) fn program(self) -> &'static str {
        match self {
            Tool::CargoFuzz => "cargo-fuzz",
            Tool::CargoAfl => "cargo-afl",
        }
    }

    /// How to install it.
    pub(crate) fn install(self) -> &'static str {
        match self {
            Tool::CargoFuzz => "cargo install cargo-fuzz",
            Tool::CargoAfl => "cargo install cargo-afl",
        }
    }
}

/// One build of one target by its front end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FrontEndBuild {
    /// The front end.
    pub tool: Tool,
    /// The arguments after `cargo`.
    pub args: Vec<OsString>,
    /// Where the user would type it: the project's root for `cargo fuzz`
    /// (it finds `fuzz/` from there; `--fuzz-dir` names the crate), the
    /// fuzz crate's folder for `cargo afl`.
    pub cwd: PathBuf,
    /// The binary it writes.
    pub binary: PathBuf,
    /// Whether it needs a nightly toolchain (cargo-fuzz's sanitizer and
    /// SanitizerCoverage flags).
    pub nightly: bool,
}

/// Why a target cannot be built by its front end.
pub(crate) type Refusal = String;

/// Which of its front end's profiles a target is built in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Profile {
    /// The one the engine fuzzes with (`cargo fuzz run`'s release profile),
    /// so that a stack overflow or a timeout fails where it failed there.
    Fuzzing,
    /// Full debug info and no optimization (`cargo fuzz build --dev`): the
    /// release profile keeps line tables only, so a debugger would show no
    /// variables.
    Debugging,
}

/// The build of `target` of `project` by its front end, in `profile`:
/// `cargo fuzz build` for libFuzzer, with the sanitizer `--sanitizer`
/// chooses (`auto`: cargo-fuzz's default, AddressSanitizer); `cargo afl
/// build` for afl.rs (its default, the dev profile with full debug info,
/// which afl.rs's guide fuzzes, in either profile). `host` is the host's
/// target triple, the one cargo-fuzz builds for.
pub(crate) fn plan(
    project: &FuzzProject,
    target: &FuzzTarget,
    sanitizer: Sanitizer,
    host: &str,
    profile: Profile,
) -> Result<FrontEndBuild, Refusal> {
    match project.engine {
        Engine::LibFuzzer => Ok(cargo_fuzz(project, target, sanitizer, host, profile)),
        Engine::Afl => cargo_afl(project, target, sanitizer),
    }
}

fn cargo_fuzz(
    project: &FuzzProject,
    target: &FuzzTarget,
    sanitizer: Sanitizer,
    host: &str,
    profile: Profile,
) -> FrontEndBuild {
    let mut args: Vec<OsString> = ["fuzz", "build"].map(OsString::from).to_vec();
    let profile_dir = match profile {
        Profile::Fuzzing => "release",
        Profile::Debugging => {
            args.push("--dev".into());
            "debug"
        }
    };
    match sanitizer {
        Sanitizer::Auto => {}
        Sanitizer::Address => args.extend(["--sanitizer", "address"].map(OsString::from)),
        Sanitizer::None => args.extend(["--sanitizer", "none"].map(OsString::from)),
    }
    args.push("--fuzz-dir".into());
    args.push(project.fuzz_dir.clone().into());
    args.extend(features(target));
    args.push(target.name.clone().into());
    let cwd = project.fuzz_dir.parent().unwrap_or(&project.fuzz_dir);
    FrontEndBuild {
        tool: Tool::CargoFuzz,
        args,
        cwd: cwd.to_path_buf(),
        binary: project
            .target_dir
            .join(host)
            .join(profile_dir)
            .join(&target.name),
        nightly: true,
    }
}

fn cargo_afl(
    project: &FuzzProject,
    target: &FuzzTarget,
    sanitizer: Sanitizer,
) -> Result<FrontEndBuild, Refusal> {
    if sanitizer == Sanitizer::Address {
        return Err("`cargo afl build` has no sanitizer option: leave --sanitizer out (afl.rs builds use RUSTFLAGS=-Zsanitizer=address set by hand)".into());
    }
    let debug = project.target_dir.join("debug");
    let (flag, binary) = match target.kind {
        BinKind::Bin => ("--bin", debug.join(&target.name)),
        BinKind::Example => ("--example", debug.join("examples").join(&target.name)),
        BinKind::Test => {
            return Err(format!(
                "`{}` is a [[test]] target, whose binary cargo names by hash: run it with `cargo afl test --test {}`",
                target.name, target.name
            ))
        }
    };
    let mut args: Vec<OsString> = ["afl", "build", "--manifest-path"]
        .map(OsString::from)
        .to_vec();
    args.push(project.manifest_path.clone().into());
    args.push(flag.into());
    args.push(target.name.clone().into());
    args.extend(features(target));
    Ok(FrontEndBuild {
        tool: Tool::CargoAfl,
        args,
        cwd: project.fuzz_dir.clone(),
        binary,
        nightly: false,
    })
}

/// `--features A,B` for a target that needs features, else nothing.
fn features(target: &FuzzTarget) -> Vec<OsString> {
    match target.features.is_empty() {
        true => Vec::new(),
        false => vec!["--features".into(), target.features.join(",").into()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn project(engine: Engine, kind: BinKind, features: &[&str]) -> (FuzzProject, FuzzTarget) {
        let target = FuzzTarget {
            name: "parse".into(),
            source: "/p/fuzz/fuzz_targets/parse.rs".into(),
            kind,
            features: features.iter().map(|f| f.to_string()).collect(),
            artifacts_dir: "/p/fuzz/artifacts/parse".into(),
            artifacts: Vec::new(),
            settings: Default::default(),
        };
        let project = FuzzProject {
            engine,
            package: "p-fuzz".into(),
            manifest_path: "/p/fuzz/Cargo.toml".into(),
            fuzz_dir: "/p/fuzz".into(),
            workspace_root: "/p/fuzz".into(),
            target_dir: "/p/fuzz/target".into(),
            lock_file: "/p/fuzz/Cargo.lock".into(),
            targets: vec![target.clone()],
            instances: Vec::new(),
            results_root: None,
        };
        (project, target)
    }

    fn words(build: &FrontEndBuild) -> String {
        let words: Vec<String> = build
            .args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        words.join(" ")
    }

    #[test]
    fn cargo_fuzz_builds_the_fuzzing_profile_with_the_users_sanitizer() {
        let (p, t) = project(Engine::LibFuzzer, BinKind::Bin, &[]);
        let host = "x86_64-unknown-linux-gnu";
        let auto = plan(&p, &t, Sanitizer::Auto, host, Profile::Fuzzing).unwrap();
        assert_eq!(words(&auto), "fuzz build --fuzz-dir /p/fuzz parse");
        assert_eq!(auto.cwd, Path::new("/p"));
        assert_eq!(
            auto.binary,
            Path::new("/p/fuzz/target/x86_64-unknown-linux-gnu/release/parse")
        );
        assert!(auto.nightly);
        let none = plan(&p, &t, Sanitizer::None, host, Profile::Fuzzing).unwrap();
        assert_eq!(
            words(&none),
            "fuzz build --sanitizer none --fuzz-dir /p/fuzz parse"
        );
        let asan = plan(&p, &t, Sanitizer::Address, host, Profile::Fuzzing).unwrap();
        assert!(words(&asan).contains("--sanitizer address"));
    }

    #[test]
    fn cargo_fuzz_builds_the_dev_profile_for_a_debugger() {
        let (p, t) = project(Engine::LibFuzzer, BinKind::Bin, &[]);
        let host = "x86_64-unknown-linux-gnu";
        let dev = plan(&p, &t, Sanitizer::Auto, host, Profile::Debugging).unwrap();
        assert_eq!(words(&dev), "fuzz build --dev --fuzz-dir /p/fuzz parse");
        assert_eq!(
            dev.binary,
            Path::new("/p/fuzz/target/x86_64-unknown-linux-gnu/debug/parse")
        );
    }

    #[test]
    fn a_targets_features_are_asked_for() {
        let (p, t) = project(Engine::LibFuzzer, BinKind::Bin, &["a", "b"]);
        let build = plan(&p, &t, Sanitizer::Auto, "h", Profile::Fuzzing).unwrap();
        assert!(
            words(&build).ends_with("--features a,b parse"),
            "{}",
            words(&build)
        );
    }

    #[test]
    fn cargo_afl_builds_bins_and_examples_and_refuses_what_it_cannot() {
        let (p, t) = project(Engine::Afl, BinKind::Bin, &[]);
        let bin = plan(&p, &t, Sanitizer::Auto, "h", Profile::Fuzzing).unwrap();
        assert_eq!(
            words(&bin),
            "afl build --manifest-path /p/fuzz/Cargo.toml --bin parse"
        );
        assert_eq!(bin.binary, Path::new("/p/fuzz/target/debug/parse"));
        assert_eq!(bin.tool, Tool::CargoAfl);
        assert!(!bin.nightly);
        let (p, t) = project(Engine::Afl, BinKind::Example, &["afl"]);
        let example = plan(&p, &t, Sanitizer::None, "h", Profile::Fuzzing).unwrap();
        assert_eq!(
            words(&example),
            "afl build --manifest-path /p/fuzz/Cargo.toml --example parse --features afl"
        );
        assert_eq!(
            example.binary,
            Path::new("/p/fuzz/target/debug/examples/parse")
        );
        assert!(plan(&p, &t, Sanitizer::Address, "h", Profile::Fuzzing)
            .unwrap_err()
            .contains("--sanitizer"));
        let (p, t) = project(Engine::Afl, BinKind::Test, &[]);
        assert!(plan(&p, &t, Sanitizer::Auto, "h", Profile::Fuzzing)
            .unwrap_err()
            .contains("cargo afl test"));
    }
}
