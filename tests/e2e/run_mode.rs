//! `cargo reduce run ARTIFACT`: the bundled crates' targets built by their
//! real front ends (`cargo fuzz build`, with `--dev` under a debugger;
//! `cargo afl build`) and run on one input, alone and under GDB. Skipped, with the reason printed, where
//! cargo-fuzz (and a nightly), cargo-afl or gdb is not installed.

use std::fs;
use std::path::{Path, PathBuf};

use crate::fuzz_fixture::{
    artifact, cargo_reduce, command, copy_tree, nightly, repo, shared, target_dir,
};
use crate::recycled::RecycledDir;
use crate::util::Run;

/// Whether `program` is on PATH; prints why `test` is skipped when not.
fn installed(program: &str, test: &str) -> bool {
    let found = which(program).is_some();
    if !found {
        eprintln!("{test}: skipped: `{program}` is not installed");
    }
    found
}

fn which(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// cargo-fuzz and the nightly it needs.
fn cargo_fuzz(test: &str) -> bool {
    installed("cargo-fuzz", test) && nightly(test)
}

/// `cargo reduce run --manifest-path <the shared copy> ARGS…`.
fn run(args: &[&str]) -> Run {
    run_in(shared(), args)
}

fn run_in(crate_dir: &Path, args: &[&str]) -> Run {
    let manifest = crate_dir.to_str().unwrap();
    cargo_reduce(&[&["reduce", "run", "--manifest-path", manifest], args].concat())
}

#[test]
fn run_builds_the_real_libfuzzer_binary_and_exits_with_its_status() {
    if !cargo_fuzz("run_builds_the_real_libfuzzer_binary_and_exits_with_its_status") {
        return;
    }
    let input = artifact(shared(), "byte_parser");
    let run = run(&[input.to_str().unwrap()]);
    let stderr = run.stderr();
    // cargo-fuzz needs a nightly: `cargo +nightly fuzz …` on stable, the
    // user's own toolchain (by whatever name) when it is a nightly.
    let built = stderr
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("Building cargo "))
        .any(|rest| {
            let rest = rest
                .strip_prefix('+')
                .map_or(rest, |r| r.split_once(' ').map_or("", |(_, after)| after));
            rest.starts_with("fuzz build --fuzz-dir")
        });
    assert!(built, "{stderr}");
    // libFuzzer's own run of one input: its banner, the panic, its exit.
    assert!(
        stderr.contains("Running 1 inputs 1 time(s) each."),
        "{stderr}"
    );
    assert!(
        stderr.contains("panicked at fuzz_targets/byte_parser.rs:36:26:\nrange end index 5 out of range for slice of length 2"),
        "{stderr}"
    );
    assert!(stderr.contains("libFuzzer: deadly signal"), "{stderr}");
    assert_eq!(run.code(), 77, "libFuzzer's -error_exitcode: {stderr}");
    // The binary `cargo fuzz run` runs (the release profile), where
    // cargo-fuzz puts it.
    assert!(
        stderr.contains("/release/byte_parser "),
        "the release build runs: {stderr}"
    );
    // A target of raw bytes has no value to show: no stand-in is built.
    assert!(!stderr.contains(STANDIN_BUILT), "{stderr}");
}

/// The status line of a build against the stand-in.
const STANDIN_BUILT: &str = "target(s) of fuzz-targets in";

#[test]
fn run_prints_a_typed_inputs_value_before_running_it() {
    if !cargo_fuzz("run_prints_a_typed_inputs_value_before_running_it") {
        return;
    }
    let input = artifact(shared(), "typed_arbitrary");
    let run = run(&[input.to_str().unwrap()]);
    let stderr = run.stderr();
    let value = format!(
        "{} as the target sees it:\nCommand {{\n    id: 1,\n    op: Scale {{\n        factor: 248,\n        saturate: false,\n    }},\n    repeat: 0,\n}}",
        input.display()
    );
    assert!(
        stderr.contains(STANDIN_BUILT),
        "decoded by the stand-in: {stderr}"
    );
    let shown = stderr.find(&value).expect(&stderr);
    let panicked = stderr.find("unsaturated scale by 248 overflows the register");
    assert!(
        panicked.is_some_and(|p| p > shown),
        "value, then run: {stderr}"
    );
    assert_ne!(run.code(), 0);
}

#[test]
fn run_under_gdb_in_batch_mode_shows_the_targets_frames() {
    let test = "run_under_gdb_in_batch_mode_shows_the_targets_frames";
    if !cargo_fuzz(test) || !installed("gdb", test) {
        return;
    }
    let input = artifact(shared(), "byte_parser");
    let crashed = run(&[
        "--debugger",
        "gdb",
        input.to_str().unwrap(),
        "--",
        "-batch",
        "-ex",
        "run",
        "-ex",
        "bt",
    ]);
    let (stdout, stderr) = (crashed.stdout(), crashed.stderr());
    assert!(
        stderr.contains("gdb -batch -ex run -ex bt --args "),
        "{stderr}"
    );
    // GDB stops at the abort of the panic; the backtrace has the target's
    // own frame with its source line.
    assert!(stdout.contains("SIGABRT"), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("byte_parser::parse (data=")
            && stdout.contains("at fuzz_targets/byte_parser.rs:36"),
        "{stdout}\n{stderr}"
    );
    // An input that passes ends normally: the ASan build's LeakSanitizer,
    // which cannot run under ptrace, is off under a debugger.
    let tmp = tempfile::tempdir().unwrap();
    let passing = tmp.path().join("passing");
    fs::write(&passing, b"A").unwrap();
    let args = ["--debugger", "gdb", "--fuzz-target", "byte_parser"];
    let passed = run(&[
        &args[..],
        &[passing.to_str().unwrap(), "--", "-batch", "-ex", "run"],
    ]
    .concat());
    assert!(
        passed.stdout().contains("exited normally]"),
        "{}\n{}",
        passed.stdout(),
        passed.stderr()
    );
}

/// A directory holding only `cargo` and `rustc` (rustup's proxies), for a
/// PATH without the other tools.
fn bare_path(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    fs::create_dir_all(&bin).unwrap();
    for tool in ["cargo", "rustc"] {
        let real = which(tool).expect("cargo and rustc are on PATH");
        std::os::unix::fs::symlink(real, bin.join(tool)).unwrap();
    }
    bin
}

#[test]
fn a_missing_front_end_or_debugger_is_named_with_how_to_install_it() {
    let tmp = tempfile::tempdir().unwrap();
    let input = artifact(shared(), "byte_parser");
    let input = input.to_str().unwrap();
    let manifest = shared().to_str().unwrap();
    let args = ["reduce", "run", "--manifest-path", manifest, input];
    let bare = crate::fuzz_fixture::command(&args, tmp.path())
        .env("PATH", bare_path(tmp.path()))
        .output()
        .unwrap();
    let bare = Run(bare);
    bare.expect_code(15);
    assert_eq!(
        bare.error_line(),
        "error: `cargo-fuzz` is not installed (not found on PATH); cargo install cargo-fuzz"
    );
    if !installed("cargo-fuzz", "a_missing_debugger") {
        return;
    }
    let Some(missing) = ["rr", "lldb"].into_iter().find(|d| which(d).is_none()) else {
        eprintln!("a_missing_debugger: skipped: rr and lldb are both installed");
        return;
    };
    let run = run(&["--debugger", missing, input]);
    run.expect_code(15);
    assert!(
        run.error_line()
            .contains(&format!("`{missing}` is not installed"))
            && run
                .error_line()
                .contains(&format!("apt-get install {missing}")),
        "{}",
        run.error_line()
    );
    // Nothing was built: the tool is checked first.
    assert!(!run.stderr().contains("Building"), "{}", run.stderr());
}

#[test]
fn words_after_the_double_dash_need_a_debugger() {
    let input = artifact(shared(), "byte_parser");
    let run = run(&[input.to_str().unwrap(), "--", "-runs=1"]);
    run.expect_code(2);
    assert!(run.stderr().contains("--debugger"), "{}", run.stderr());
}

/// A timeout artifact runs under the timeout `cargo reduce` reproduces it
/// with (libFuzzer's own is 20 minutes, which `run` waited out before),
/// and exits as libFuzzer does on a timeout.
#[test]
fn a_libfuzzer_timeout_artifact_runs_under_its_timeout() {
    if !cargo_fuzz("a_libfuzzer_timeout_artifact_runs_under_its_timeout") {
        return;
    }
    let input = artifact(shared(), "endless_loop");
    let run = run(&[input.to_str().unwrap()]);
    let stderr = run.stderr();
    assert!(stderr.contains("/endless_loop -timeout=1 "), "{stderr}");
    assert!(stderr.contains("libFuzzer: timeout"), "{stderr}");
    assert_eq!(run.code(), 70, "{stderr}");
}

/// An afl.rs binary has no timeout of its own: `run` ends it at the
/// input's timeout, and exits as libFuzzer does on one. The reduction of an
/// AFL++ hang is a timeout artifact too, and `--timeout` ends any input.
#[test]
fn an_afl_rs_hang_is_ended_at_its_timeout() {
    if !installed("cargo-afl", "an_afl_rs_hang_is_ended_at_its_timeout") {
        return;
    }
    let (_tmp, crate_dir, saved) = afl_crate_with_saved("endless_loop", b"LP\x00", None);
    let hang = saved.with_file_name("minimized-from-afl-main-id_000004-hang");
    fs::copy(&saved, &hang).unwrap();
    let run = run_in(&crate_dir, &[hang.to_str().unwrap()]);
    let stderr = run.stderr();
    if stderr.contains("AFL LLVM runtime") {
        eprintln!("an_afl_rs_hang_is_ended_at_its_timeout: skipped: AFL++'s runtime is not built (`cargo afl config --build`)");
        return;
    }
    assert!(stderr.contains("Timed out"), "{stderr}");
    assert_eq!(run.code(), 70, "{stderr}");
    let run = run_in(&crate_dir, &[saved.to_str().unwrap(), "--timeout", "0.5"]);
    let stderr = run.stderr();
    assert!(stderr.contains("Timed out"), "{stderr}");
    assert_eq!(run.code(), 70, "{stderr}");
}

/// A copy of the afl.rs demo crate without its artifacts, with `source` as
/// target `target` if given, and `bytes` saved as that target's crash:
/// (the temporary folder, the crate, the saved file).
fn afl_crate_with_saved(
    target: &str,
    bytes: &[u8],
    source: Option<&str>,
) -> (RecycledDir, PathBuf, PathBuf) {
    let tmp = RecycledDir::new("afl-run");
    let crate_dir = tmp.path().join("fuzz-targets-afl");
    copy_tree(&repo().join("fuzz-targets-afl"), &crate_dir);
    let _ = fs::remove_dir_all(crate_dir.join("artifacts"));
    if let Some(source) = source {
        fs::write(crate_dir.join(format!("src/bin/{target}.rs")), source).unwrap();
    }
    let saved = crate_dir.join(format!("artifacts/{target}/crash-saved"));
    fs::create_dir_all(saved.parent().unwrap()).unwrap();
    fs::write(&saved, bytes).unwrap();
    (tmp, crate_dir, saved)
}

#[test]
fn run_feeds_an_afl_rs_binary_its_input_on_stdin() {
    let test = "run_feeds_an_afl_rs_binary_its_input_on_stdin";
    if !installed("cargo-afl", test) {
        return;
    }
    let (_tmp, crate_dir, saved) = afl_crate_with_saved("byte_parser", b"RX\x0100", None);
    let run = run_in(&crate_dir, &[saved.to_str().unwrap()]);
    let stderr = run.stderr();
    if stderr.contains("AFL LLVM runtime") {
        eprintln!("{test}: skipped: AFL++'s runtime is not built (`cargo afl config --build`)");
        return;
    }
    assert!(
        stderr.contains("cargo afl build --manifest-path"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("/debug/byte_parser < {}", saved.display())),
        "{stderr}"
    );
    assert!(
        stderr.contains("panicked at src/bin/byte_parser.rs:31:26"),
        "{stderr}"
    );
    assert_ne!(run.code(), 0, "{stderr}");
    if !installed("gdb", test) {
        return;
    }
    // Under GDB the program's standard input is redirected, not GDB's.
    let args = ["--debugger", "gdb", saved.to_str().unwrap(), "--", "-batch"];
    let gdb = run_in(
        &crate_dir,
        &[&args[..], &["-ex", "run", "-ex", "bt"]].concat(),
    );
    let stdout = gdb.stdout();
    assert!(
        stdout.contains("byte_parser::parse (data=")
            && stdout.contains("at src/bin/byte_parser.rs:31"),
        "{stdout}\n{}",
        gdb.stderr()
    );
}

/// afl.rs's `fuzz!` before 0.17.1, as it runs outside afl-fuzz under AFL++'s
/// runtime: one pass over standard input, then SIGSTOP in the persistent
/// loop (RazrFalcon/xmlparser's afl 0.5 target in the compatibility suite).
/// The `fuzz!` that is never reached makes it a target.
const OLD_LOOP: &str = r#"use std::io::Read;

extern "C" {
    fn __afl_manual_init();
    fn __afl_persistent_loop(counter: usize) -> isize;
}

fn main() {
    let mut input = Vec::new();
    unsafe { __afl_manual_init() };
    while unsafe { __afl_persistent_loop(1000) } != 0 {
        std::io::stdin().read_to_end(&mut input).unwrap();
        input.clear();
    }
    if std::env::args().count() > 99 {
        afl::fuzz!(|_data: &[u8]| {});
    }
}
"#;

#[test]
fn run_ends_an_afl_rs_binary_that_stops_itself_after_the_input() {
    let test = "run_ends_an_afl_rs_binary_that_stops_itself_after_the_input";
    if !installed("cargo-afl", test) {
        return;
    }
    let (tmp, crate_dir, saved) = afl_crate_with_saved("old_loop", b"input", Some(OLD_LOOP));
    let manifest = crate_dir.to_str().unwrap();
    let args = [
        "reduce",
        "run",
        "--manifest-path",
        manifest,
        saved.to_str().unwrap(),
    ];
    // Files, not pipes: a pipe left unread would stop the build.
    let (out, err) = (tmp.path().join("stdout"), tmp.path().join("stderr"));
    let mut child = command(&args, &target_dir())
        .stdout(fs::File::create(&out).unwrap())
        .stderr(fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    // Before the fix the program stayed stopped, and so did the run.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(900);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!(
                "`cargo reduce run` did not end: {}",
                fs::read_to_string(&err).unwrap()
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    let run = Run(std::process::Output {
        status,
        stdout: fs::read(&out).unwrap(),
        stderr: fs::read(&err).unwrap(),
    });
    let stderr = run.stderr();
    if stderr.contains("AFL LLVM runtime") {
        eprintln!("{test}: skipped: AFL++'s runtime is not built (`cargo afl config --build`)");
        return;
    }
    assert!(
        stderr.contains("stopped itself after the input"),
        "{stderr}"
    );
    run.expect_code(0);
}
