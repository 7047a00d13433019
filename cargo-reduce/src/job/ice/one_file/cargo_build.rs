//! The build the user runs (`cargo build`, or `--cargo-subcmd`), run as
//! `cargo … -vv` into a private target directory, and what it says when
//! rustc crashes: the ICE and the crate's exact rustc command line. The
//! user's tree is left as it was: the target directory and rustc's ICE
//! files go to a temporary directory, and a `Cargo.lock` the build had to
//! create is removed again.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::{Error, Exit};
use crate::job::ice::rustc::args::RustcArgs;
use crate::job::ice::rustc::signature::Signature;
use crate::output::shown;

/// How to run the user's build.
#[derive(Debug, Clone, Default)]
pub(crate) struct BuildSpec {
    /// `--manifest-path`.
    pub(crate) manifest_path: Option<PathBuf>,
    /// The cargo subcommand: `build`, `check`, `test`, `doc`, `clippy`…
    pub(crate) subcommand: String,
    /// Passed through to cargo: `--package`, `--profile`, `--features`,
    /// `--target`….
    pub(crate) cargo_args: Vec<String>,
}

/// What the build showed.
#[derive(Debug)]
pub(crate) struct Crash {
    /// The ICE.
    pub(crate) signature: Signature,
    /// The command line of the crate that crashed rustc.
    pub(crate) invocation: RustcArgs,
    /// The command lines of the crates the build compiled before it (its
    /// dependencies among them), whose sources an MCVE that still needs
    /// one can take in ([`crate::job::ice::deps::take_in`]).
    pub(crate) compiled: Vec<RustcArgs>,
}

/// Runs the build into `scratch` (its target directory and ICE files) and
/// finds the crash.
pub(crate) fn run(spec: &BuildSpec, scratch: &Path) -> Result<Crash, Error> {
    let workspace = workspace_root(spec)?;
    let lock = workspace.join("Cargo.lock");
    let had_lock = lock.exists();
    let mut command = cargo();
    command.arg(&spec.subcommand);
    if spec.subcommand == "test" || spec.subcommand == "bench" {
        command.arg("--no-run");
    }
    command
        .arg("-vv")
        .arg("--target-dir")
        .arg(scratch.join("target"))
        .args(manifest_args(spec))
        .args(&spec.cargo_args)
        .env("RUSTC_ICE", scratch)
        .env("CARGO_TERM_COLOR", "never")
        .stdin(Stdio::null());
    let output = command.output();
    if !had_lock {
        // The build's own resolution; the user's tree stays as it was.
        let _ = std::fs::remove_file(&lock);
    }
    let output = output.map_err(|e| Error::caused(Exit::Environment, "cannot run cargo", e))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    find_crash(&stderr, &workspace).ok_or_else(|| no_crash(spec, output.status.success(), &stderr))
}

/// The ICE and the failed rustc command in cargo's `-vv` output.
pub(crate) fn find_crash(stderr: &str, workspace: &Path) -> Option<Crash> {
    let signature = Signature::parse(stderr)?;
    let failed = failed_command(stderr)?;
    // `-vv` prints each command with its environment; the failed one is
    // repeated without it after `Caused by:`.
    let full = running_commands(stderr)
        .find(|c| c.ends_with(failed))
        .unwrap_or(failed);
    let invocation = located(RustcArgs::parse(full, workspace)?);
    let compiled = running_commands(stderr)
        .filter(|c| !c.ends_with(failed))
        .filter_map(|c| RustcArgs::parse(c, workspace))
        .map(located)
        .collect();
    Some(Crash {
        signature,
        invocation,
        compiled,
    })
}

/// `invocation` run where its crate root is: cargo runs rustc in the
/// workspace root for its members and in the package's own directory
/// (`CARGO_MANIFEST_DIR`) for the others (registry, git).
fn located(mut invocation: RustcArgs) -> RustcArgs {
    let dir = invocation
        .env
        .iter()
        .find(|(k, _)| k == "CARGO_MANIFEST_DIR")
        .map(|(_, dir)| PathBuf::from(dir));
    if let Some(dir) = dir.filter(|_| !invocation.source_path().exists()) {
        invocation.cwd = dir;
    }
    invocation
}

/// The command of `process didn't exit successfully: `CMD` (exit status:
/// 101)`.
/// The text is searched whole, not by lines: an environment value that
/// holds a line break (a package `description` ending in `\n`) spreads
/// the command over several lines.
fn failed_command(stderr: &str) -> Option<&str> {
    const START: &str = "process didn't exit successfully: `";
    let rest = &stderr[stderr.rfind(START)? + START.len()..];
    let end = ["` (exit status: ", "` (signal: "]
        .iter()
        .filter_map(|close| rest.find(close))
        .min()?;
    Some(&rest[..end])
}

/// The commands of cargo's `Running `CMD`` lines, each up to the
/// backquote that ends its (last) line.
fn running_commands(stderr: &str) -> impl Iterator<Item = &str> {
    stderr.match_indices("Running `").filter_map(|(at, start)| {
        let rest = &stderr[at + start.len()..];
        let end = rest
            .find("`\n")
            .or_else(|| rest.strip_suffix('`').map(str::len))?;
        Some(&rest[..end])
    })
}

/// The error when the build did not crash rustc.
fn no_crash(spec: &BuildSpec, success: bool, stderr: &str) -> Error {
    let how = match success {
        true => "succeeded".to_string(),
        false => {
            let last = stderr
                .lines()
                .rev()
                .find(|l| l.starts_with("error"))
                .unwrap_or("no error line");
            format!("failed without an internal compiler error ({last})")
        }
    };
    // A `#![feature]` on stable is the commonest miss: say what to run.
    let what_to_do = match stderr.contains("error[E0554]") {
        true => "it uses `#![feature]` (E0554): run `cargo +nightly reduce ice`",
        false => "pass the options the crashing build needs (--cargo-subcmd, --features, --target, --all-targets or --example NAME, RUSTFLAGS)",
    };
    Error::new(
        Exit::NotInteresting,
        format!(
            "`cargo {}` {how}: there is no ICE to reduce; {what_to_do}",
            spec.subcommand
        ),
    )
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

fn manifest_args(spec: &BuildSpec) -> Vec<String> {
    match &spec.manifest_path {
        Some(path) => vec!["--manifest-path".into(), path.display().to_string()],
        None => Vec::new(),
    }
}

/// The workspace's root directory (where cargo runs rustc for members).
fn workspace_root(spec: &BuildSpec) -> Result<PathBuf, Error> {
    let output = cargo()
        .args(["locate-project", "--workspace", "--message-format", "plain"])
        .args(manifest_args(spec))
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Error::caused(Exit::Environment, "cannot run cargo", e))?;
    if !output.status.success() {
        let why = String::from_utf8_lossy(&output.stderr);
        let where_ = spec
            .manifest_path
            .as_deref()
            .map_or("in the current directory or above".to_string(), |p| {
                format!("at `{}`", shown(p))
            });
        return Err(Error::new(
            Exit::BadInput,
            format!(
                "no cargo project {where_} ({}): run in a crate, give --manifest-path, or give a FILE.rs",
                why.lines().next().unwrap_or("").trim_start_matches("error: ")
            ),
        ));
    }
    let manifest = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    Ok(manifest.parent().unwrap_or(Path::new("/")).to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_failed_crate_and_its_environment_are_found_in_cargo_s_output() {
        let stderr = format!(
            "   Compiling ice-crate v0.0.0 (/p)\n     Running `CARGO_PKG_NAME=ice-crate OUT_DIR=/o rustc --crate-name ice_crate --edition=2021 src/lib.rs --crate-type lib`\n{}\nerror: could not compile `ice-crate` (lib)\n\nCaused by:\n  process didn't exit successfully: `rustc --crate-name ice_crate --edition=2021 src/lib.rs --crate-type lib` (exit status: 101)\n",
            include_str!("../testdata/delayed-1.95.txt")
        );
        let crash = find_crash(&stderr, Path::new("/p")).unwrap();
        assert_eq!(crash.invocation.crate_name(), "ice_crate");
        assert_eq!(crash.invocation.env[1], ("OUT_DIR".into(), "/o".into()));
        assert_eq!(
            crash.signature.message,
            "error performing operation: fully_perform"
        );
    }

    #[test]
    fn a_command_spread_over_lines_by_its_environment_is_found() {
        // humantime 2.1.0's description ends in a line break, which cargo
        // quotes into both command lines.
        let env = "CARGO_PKG_DESCRIPTION='A parser\n' CARGO_PKG_NAME=humantime";
        let rustc = "rustc --crate-name humantime --edition=2018 src/lib.rs --crate-type lib";
        let stderr = format!(
            "     Running `{env} {rustc}`\n{}\nerror: could not compile `humantime` (lib)\n\nCaused by:\n  process didn't exit successfully: `{env} {rustc}` (exit status: 101)\n",
            include_str!("../testdata/delayed-1.95.txt")
        );
        let crash = find_crash(&stderr, Path::new("/p")).unwrap();
        assert_eq!(crash.invocation.crate_name(), "humantime");
        assert_eq!(
            crash.invocation.env[0],
            ("CARGO_PKG_DESCRIPTION".into(), "A parser\n".into())
        );
    }

    #[test]
    fn a_build_error_without_an_ice_is_no_crash() {
        let stderr = "error[E0308]: mismatched types\nerror: could not compile `x` (lib)\n\nCaused by:\n  process didn't exit successfully: `rustc src/lib.rs` (exit status: 1)\n";
        assert!(find_crash(stderr, Path::new("/p")).is_none());
    }

    /// A `#![feature]` crate built on stable says to use nightly.
    #[test]
    fn a_feature_on_stable_says_to_run_nightly() {
        let spec = BuildSpec {
            manifest_path: None,
            subcommand: "build".into(),
            cargo_args: vec![],
        };
        let stderr = "error[E0554]: `#![feature]` may not be used on the stable release channel\nerror: could not compile `x` (lib) due to 1 previous error\n";
        let error = no_crash(&spec, false, stderr).to_string();
        assert!(error.contains("cargo +nightly reduce ice"), "{error}");
        let other = no_crash(&spec, false, "error[E0308]: mismatched types\n").to_string();
        assert!(other.contains("--cargo-subcmd"), "{other}");
    }
}
