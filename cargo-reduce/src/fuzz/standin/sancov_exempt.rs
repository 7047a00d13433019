//! The coverage builds compile the stand-in without SanitizerCoverage. Its
//! code (the worker's loop around each test, the call into the target,
//! the allocator's limit check, the panic hook) stands in for libFuzzer's
//! and AFL++'s runtimes, which are not instrumented: a test's features
//! must be the target's alone, as the engines count them. Cargo gives
//! every crate the same `RUSTFLAGS` (flags per package are nightly's
//! `-Zprofile-rustflags`), so a coverage build runs rustc through a
//! wrapper (`rustc-wrapper.sh`, as cargo's `RUSTC_WRAPPER`) that drops
//! the flag that runs the pass (`coverage::SANCOV_PASS`, told to it
//! through its environment) for the stand-in's crate and passes every
//! other command on unchanged, through the user's own wrapper when the
//! environment names one.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::coverage::SANCOV_PASS;
use super::error::{io_error, BuildError};

/// The wrapper.
const SCRIPT: &str = include_str!("rustc-wrapper.sh");

/// The wrapper's file name in the build directory.
const SCRIPT_NAME: &str = "rustc-wrapper";

/// What the wrapper reads: the stand-in's directory, the flag it drops
/// there, and the user's wrapper, which it runs in turn.
const STAND_IN_ENV: &str = "CARGO_REDUCE_STAND_IN";
const PASS_ENV: &str = "CARGO_REDUCE_SANCOV_PASS";
const USER_WRAPPER_ENV: &str = "CARGO_REDUCE_RUSTC_WRAPPER";

/// The wrapper's hash, which the stand-in's build script watches
/// (`harness/build.rs`): cargo's fingerprint does not see the wrapper, so
/// a stand-in built before it changed is rebuilt.
const HASH_ENV: &str = "CARGO_REDUCE_SANCOV_EXEMPT";

/// Makes `command`, a coverage build's cargo, compile the stand-in in
/// `stand_in` without SanitizerCoverage, through the wrapper written into
/// `build_dir` (the build's own directory, which the build lock keeps to
/// one run at a time).
pub(super) fn apply(
    command: &mut Command,
    build_dir: &Path,
    stand_in: &Path,
) -> Result<(), BuildError> {
    let script = write_script(build_dir)?;
    command
        .env("RUSTC_WRAPPER", script)
        .env_remove("CARGO_BUILD_RUSTC_WRAPPER")
        .env(STAND_IN_ENV, stand_in)
        .env(PASS_ENV, SANCOV_PASS)
        .env(
            HASH_ENV,
            format!("{:016x}", xxhash_rust::xxh3::xxh3_64(SCRIPT.as_bytes())),
        );
    match user_wrapper() {
        Some(wrapper) => command.env(USER_WRAPPER_ENV, wrapper),
        None => command.env_remove(USER_WRAPPER_ENV),
    };
    Ok(())
}

/// The wrapper the user's environment gives cargo (`RUSTC_WRAPPER`, else
/// `CARGO_BUILD_RUSTC_WRAPPER`; empty is none). One set in a cargo config
/// file is not run by a coverage build: the environment's wrapper takes
/// its place.
fn user_wrapper() -> Option<OsString> {
    ["RUSTC_WRAPPER", "CARGO_BUILD_RUSTC_WRAPPER"]
        .into_iter()
        .filter_map(std::env::var_os)
        .find(|wrapper| !wrapper.is_empty())
}

/// The wrapper in `build_dir`, written (executable) unless it is there.
fn write_script(build_dir: &Path) -> Result<PathBuf, BuildError> {
    let path = build_dir.join(SCRIPT_NAME);
    if std::fs::read(&path).is_ok_and(|old| old == SCRIPT.as_bytes()) {
        return Ok(path);
    }
    std::fs::create_dir_all(build_dir).map_err(io_error(build_dir))?;
    let staged = build_dir.join(format!("{SCRIPT_NAME}.new"));
    std::fs::write(&staged, SCRIPT).map_err(io_error(&staged))?;
    std::fs::set_permissions(&staged, std::fs::Permissions::from_mode(0o755))
        .map_err(io_error(&staged))?;
    std::fs::rename(&staged, &path).map_err(io_error(&path))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the wrapper runs for `args` (a rustc command line): it is
    /// given `echo` as the user's wrapper, which prints the rest.
    fn wrapped(stand_in: &Path, args: &[&str]) -> String {
        let dir = tempfile::tempdir().unwrap();
        let script = write_script(dir.path()).unwrap();
        let out = Command::new(script)
            .args(args)
            .env(STAND_IN_ENV, stand_in)
            .env(PASS_ENV, SANCOV_PASS)
            .env(USER_WRAPPER_ENV, "echo")
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout)
            .unwrap()
            .trim_end()
            .to_string()
    }

    #[test]
    fn only_the_stand_in_is_compiled_without_the_coverage_pass() {
        let stand_in = Path::new("/t/cargo-reduce/libfuzzer-sys-0.4.9");
        let user = [
            "rustc",
            "--crate-name",
            "parse",
            "/w/fuzz/src/lib.rs",
            SANCOV_PASS,
            "--out-dir",
            "/t/cargo-reduce/libfuzzer-sys-0.4.9-x/deps",
        ];
        assert_eq!(wrapped(stand_in, &user), user.join(" "));
        let ours = [
            "rustc",
            "--crate-name",
            "libfuzzer_sys",
            "/t/cargo-reduce/libfuzzer-sys-0.4.9/src/lib.rs",
            SANCOV_PASS,
            "-Cllvm-args=-sanitizer-coverage-level=4",
            "--cfg",
            "a b",
        ];
        let expected = [&ours[..4], &ours[5..]].concat().join(" ");
        assert_eq!(wrapped(stand_in, &ours), expected);
    }

    #[test]
    fn without_a_user_wrapper_it_runs_the_compiler_it_is_given() {
        let dir = tempfile::tempdir().unwrap();
        let script = write_script(dir.path()).unwrap();
        let out = Command::new(&script)
            .args(["sh", "-c", "echo \"$0\"", "a b"])
            .env(STAND_IN_ENV, "/nowhere")
            .env_remove(USER_WRAPPER_ENV)
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "a b\n");
        // Written once: a second build finds it as it is.
        assert_eq!(write_script(dir.path()).unwrap(), script);
    }
}
