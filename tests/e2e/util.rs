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
