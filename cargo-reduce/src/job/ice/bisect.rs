//! `--bisect`: cargo-bisect-rustc on the MCVE, in a scratch crate, to find
//! the nightly that brought the ICE in. Only where it is installed; its
//! output's end goes into the report.

use std::path::Path;
use std::process::{Command, Stdio};

/// The lines of cargo-bisect-rustc's output the report keeps.
const KEPT_LINES: usize = 30;

/// Why no bisection ran.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BisectError {
    /// cargo-bisect-rustc is not on `PATH`.
    #[error("--bisect needs cargo-bisect-rustc, which is not installed: `cargo install cargo-bisect-rustc`, then run again (the MCVE and report were written)")]
    NotInstalled,
    /// It could not run, or the scratch crate could not be made.
    #[error("cargo-bisect-rustc could not run: {0}")]
    Io(#[from] std::io::Error),
}

/// Runs cargo-bisect-rustc on `code` (an MCVE of crate type `lib` unless
/// it has a `main`) with `edition`; the end of its output.
pub(crate) fn bisect(code: &str, name: &str, edition: &str) -> Result<String, BisectError> {
    let program = which::which("cargo-bisect-rustc").map_err(|_| BisectError::NotInstalled)?;
    let dir = tempfile::Builder::new()
        .prefix("cargo-reduce-bisect-")
        .tempdir()?;
    write_crate(dir.path(), code, name, edition)?;
    let output = Command::new(program)
        .args(["bisect-rustc", "--regress", "ice", "--preserve"])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .output()?;
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = text.lines().collect();
    Ok(lines[lines.len().saturating_sub(KEPT_LINES)..].join("\n"))
}

/// A crate in `dir` around `code`.
fn write_crate(dir: &Path, code: &str, name: &str, edition: &str) -> std::io::Result<()> {
    std::fs::create_dir(dir.join("src"))?;
    let root = match code.contains("fn main(") {
        true => "src/main.rs",
        false => "src/lib.rs",
    };
    std::fs::write(dir.join(root), code)?;
    std::fs::write(
        dir.join("Cargo.toml"),
        format!("[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"{edition}\"\n\n[workspace]\n"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scratch_crate_is_a_lib_or_a_bin_as_the_code_is() {
        let dir = tempfile::tempdir().unwrap();
        write_crate(dir.path(), "fn main() {}\n", "m", "2021").unwrap();
        assert!(dir.path().join("src/main.rs").is_file());
        let toml = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
        assert!(toml.contains("edition = \"2021\""), "{toml}");
    }
}
