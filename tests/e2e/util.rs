//! A sandbox directory and a runner for the `cargo-reduce` binary.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `0\n1\n…` up to `n - 1`: an input whose reduction takes many tests.
pub fn numbered_lines(n: usize) -> String {
    (0..n).map(|i| format!("{i}\n")).collect()
}

/// A temporary directory the binary runs in.
pub struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Self {
        Sandbox {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes `name` and returns its path.
    pub fn write(&self, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.join(name);
        fs::write(&path, content).expect("write");
        path
    }

    /// Writes an executable script.
    pub fn script(&self, name: &str, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.write(name, format!("#!/bin/sh\n{body}\n"));
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
        path
    }

    pub fn read(&self, name: &str) -> Vec<u8> {
        fs::read(self.join(name)).unwrap_or_else(|e| panic!("read {name}: {e}"))
    }

    pub fn exists(&self, name: &str) -> bool {
        self.join(name).exists()
    }

    /// `cargo-reduce ARGS…` in the sandbox.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cargo-reduce"));
        cmd.args(args).current_dir(self.path());
        cmd
    }

    /// Runs `cargo-reduce ARGS…` to completion.
    pub fn run(&self, args: &[&str]) -> Run {
        Run(self.cmd(args).output().expect("spawn cargo-reduce"))
    }
}

/// A finished run of the binary.
pub struct Run(pub Output);

impl Run {
    pub fn code(&self) -> i32 {
        self.0.status.code().unwrap_or(-1)
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.0.stderr).into_owned()
    }

    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.0.stdout).into_owned()
    }

    /// The first `error: ` line of stderr (a run that failed must have one).
    pub fn error_line(&self) -> String {
        let stderr = self.stderr();
        stderr
            .lines()
            .find(|l| l.starts_with("error: "))
            .unwrap_or_else(|| panic!("no error line: {stderr}"))
            .to_string()
    }

    /// Asserts the exit code, showing stderr when it differs.
    pub fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(self.code(), code, "stderr:\n{}", self.stderr());
        self
    }

    /// Asserts a failure: the exit code, and `text` on stderr.
    pub fn expect_error(&self, code: i32, text: &str) -> &Self {
        self.expect_code(code);
        let stderr = self.stderr();
        assert!(stderr.contains(text), "no `{text}` in stderr:\n{stderr}");
        self
    }

    /// The JSON lines on stdout.
    pub fn messages(&self) -> Vec<serde_json::Value> {
        self.stdout()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
            .collect()
    }

    /// The one-line warnings of a JSON run.
    pub fn warnings(&self) -> Vec<String> {
        self.messages()
            .into_iter()
            .filter(|m| m["reason"] == "warning")
            .map(|m| m["message"].as_str().unwrap().to_string())
            .collect()
    }
}

/// The `reason` message of a run's JSON lines.
pub fn message<'m>(messages: &'m [serde_json::Value], reason: &str) -> &'m serde_json::Value {
    messages
        .iter()
        .find(|m| m["reason"] == reason)
        .unwrap_or_else(|| panic!("no {reason} in {messages:?}"))
}

/// Checks each reduction's `reduction-progress` messages among
/// `messages` (those naming its input, in order): at least one when the
/// result is smaller than the input; sizes that never grow, tests run and
/// seconds that never go down; tokens counted exactly when the reduction
/// is syntax-aware; and the last at the result's size, within its tests
/// and time. Returns how many reductions it checked.
pub fn check_progress(messages: &[serde_json::Value]) -> usize {
    let finished: Vec<&serde_json::Value> = messages
        .iter()
        .filter(|m| m["reason"] == "reduction-finished")
        .collect();
    for end in &finished {
        let input = &end["input"];
        let of_input = |reason: &'static str| {
            messages
                .iter()
                .filter(move |m| m["reason"] == reason && m["input"] == *input)
        };
        let syntax = of_input("reduction-started").next().unwrap()["lang"].is_string();
        let figures: Vec<(u64, Option<u64>, u64, f64)> = of_input("reduction-progress")
            .map(|m| {
                assert_eq!(m["tokens"].is_u64(), syntax, "{m}");
                let n = |field: &str| m[field].as_u64().unwrap();
                let tokens = m["tokens"].as_u64();
                (
                    n("bytes"),
                    tokens,
                    n("tests_run"),
                    m["elapsed_s"].as_f64().unwrap(),
                )
            })
            .collect();
        if end["reduced_bytes"] == end["original_bytes"] && figures.is_empty() {
            continue;
        }
        let last = figures
            .last()
            .unwrap_or_else(|| panic!("no progress for {input}"));
        assert_eq!(
            last.0,
            end["reduced_bytes"].as_u64().unwrap(),
            "{figures:?}"
        );
        assert!(last.2 <= end["tests_run"].as_u64().unwrap(), "{figures:?}");
        assert!(last.3 <= end["elapsed_s"].as_f64().unwrap(), "{figures:?}");
        for pair in figures.windows(2) {
            let ((bytes, _, tests, time), (next, _, next_tests, next_time)) = (pair[0], pair[1]);
            assert!(
                next <= bytes && next_tests >= tests && next_time >= time,
                "{input}: {figures:?}"
            );
        }
    }
    finished.len()
}
