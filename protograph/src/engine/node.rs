//! Node.js as an [`Engine`]: a child process per script.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use super::Engine;
use crate::Error;

/// Runs scripts with the `node` program. The script goes through
/// `vm.runInThisContext` from a small CommonJS host file, so it runs as a
/// classic script whose `this` is the global object and Node's module-local
/// names (`require`, `module`) are not globals it would discover.
#[derive(Debug, Clone)]
pub struct Node {
    /// The program to run, `node` by default.
    pub program: PathBuf,
}

impl Default for Node {
    fn default() -> Self {
        Node {
            program: PathBuf::from("node"),
        }
    }
}

/// Makes temporary file names unique within the process.
static NEXT_FILE: AtomicU64 = AtomicU64::new(0);

impl Engine for Node {
    fn name(&self) -> &str {
        "node"
    }

    fn eval(&self, script: &str) -> Result<String, Error> {
        let n = NEXT_FILE.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("protograph-{}-{n}.js", std::process::id()));
        let literal = serde_json::to_string(script).expect("strings serialize");
        let host = format!(
            "process.stdout.write(String(require('vm').runInThisContext({literal}, {{ filename: 'protograph.js' }})));\n"
        );
        std::fs::write(&path, host).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        let output = Command::new(&self.program).arg(&path).output();
        let _ = std::fs::remove_file(&path);
        let output = output.map_err(|source| Error::Spawn {
            engine: self.program.display().to_string(),
            source,
        })?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            return Err(Error::Engine {
                engine: "node".into(),
                message: first_error_line(&stderr),
            });
        }
        String::from_utf8(output.stdout).map_err(|_| Error::Engine {
            engine: "node".into(),
            message: "output is not UTF-8".into(),
        })
    }
}

/// The line of Node's error report that names the exception, else the first
/// non-empty one.
fn first_error_line(stderr: &str) -> String {
    let lines = || stderr.lines().map(str::trim).filter(|l| !l.is_empty());
    lines()
        .find(|l| {
            l.split_once(": ")
                .is_some_and(|(name, _)| is_error_name(name))
        })
        .or_else(|| lines().next())
        .unwrap_or("exited with an error and no message")
        .to_string()
}

/// `TypeError`, `Error [ERR_X]`: the head of an exception report line.
fn is_error_name(name: &str) -> bool {
    let head = name.split(' ').next().unwrap_or_default();
    head.ends_with("Error") && head.chars().all(|c| c.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_exception_line() {
        let report = "protograph.js:1\nthrow new TypeError('x')\n^\n\nTypeError: x\n    at foo\n";
        assert_eq!(first_error_line(report), "TypeError: x");
        assert_eq!(first_error_line(""), "exited with an error and no message");
    }
}
