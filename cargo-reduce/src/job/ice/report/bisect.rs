//! `--bisect`: cargo-bisect-rustc on the MCVE, in a scratch crate (its
//! auxiliary crates path dependencies of it), to find the nightly that
//! brought the ICE in. Only where it is installed; its output's end goes
//! into the report.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::job::ice::deps::auxiliary::Auxiliary;

/// The lines of cargo-bisect-rustc's output the report keeps.
const KEPT_LINES: usize = 30;

/// Why no bisection ran.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BisectError {
    /// cargo-bisect-rustc is not on `PATH`.
    #[error("--bisect needs cargo-bisect-rustc, which is not installed (not found on PATH): `cargo install cargo-bisect-rustc`, or run without --bisect")]
    NotInstalled,
    /// It could not run, or the scratch crate could not be made.
    #[error("cargo-bisect-rustc could not run: {0}")]
    Io(#[from] std::io::Error),
}

/// What is bisected: the MCVE and the crates it is compiled against.
pub(crate) struct Scratch<'a> {
    /// The MCVE (crate type `lib` unless it has a `main`).
    pub(crate) code: &'a str,
    /// Its crate name.
    pub(crate) name: &'a str,
    /// Its edition.
    pub(crate) edition: &'a str,
    /// Its auxiliary crates, built first.
    pub(crate) auxiliaries: &'a [Auxiliary],
}

/// cargo-bisect-rustc's path; checked before the reduction, which may
/// take minutes, so that a missing one is said before it.
pub(crate) fn installed() -> Result<std::path::PathBuf, BisectError> {
    which::which("cargo-bisect-rustc").map_err(|_| BisectError::NotInstalled)
}

/// Runs cargo-bisect-rustc on `scratch`; the end of its output.
pub(crate) fn bisect(scratch: &Scratch<'_>) -> Result<String, BisectError> {
    let program = installed()?;
    let dir = tempfile::Builder::new()
        .prefix("cargo-reduce-bisect-")
        .tempdir()?;
    write_workspace(dir.path(), scratch)?;
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

/// The scratch crate in `dir`, and each auxiliary crate as a path
/// dependency of it in `dir/auxiliary/NAME`, under the name the MCVE
/// gives it.
fn write_workspace(dir: &Path, scratch: &Scratch<'_>) -> std::io::Result<()> {
    let mut dependencies = String::new();
    for auxiliary in scratch.auxiliaries {
        let krate = auxiliary.invocation.crate_name();
        let text = String::from_utf8_lossy(&auxiliary.text);
        let path = dir.join("auxiliary").join(&krate);
        write_crate(&path, &text, &krate, auxiliary.invocation.edition(), "")?;
        dependencies.push_str(&format!(
            "{} = {{ path = \"auxiliary/{krate}\", package = \"{krate}\" }}\n",
            auxiliary.name
        ));
    }
    let Scratch {
        code,
        name,
        edition,
        ..
    } = scratch;
    // The scratch crate is a workspace's root of its own: no enclosing
    // workspace claims it.
    write_crate(
        dir,
        code,
        name,
        edition,
        &(dependencies + "\n[workspace]\n"),
    )
}

/// A crate in `dir` around `code`, with `dependencies` (lines of a
/// `[dependencies]` table, then any other table of its manifest).
fn write_crate(
    dir: &Path,
    code: &str,
    name: &str,
    edition: &str,
    dependencies: &str,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join("src"))?;
    let root = match code.contains("fn main(") {
        true => "src/main.rs",
        false => "src/lib.rs",
    };
    std::fs::write(dir.join(root), code)?;
    std::fs::write(
        dir.join("Cargo.toml"),
        format!("[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"{edition}\"\n\n[dependencies]\n{dependencies}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scratch_crate_is_a_lib_or_a_bin_as_the_code_is() {
        let dir = tempfile::tempdir().unwrap();
        let scratch = Scratch {
            code: "fn main() {}\n",
            name: "m",
            edition: "2021",
            auxiliaries: &[],
        };
        write_workspace(dir.path(), &scratch).unwrap();
        assert!(dir.path().join("src/main.rs").is_file());
        let toml = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
        assert!(toml.contains("edition = \"2021\""), "{toml}");
    }

    /// A cross-crate ICE's scratch workspace: cargo builds the auxiliary
    /// crate first, under the name the MCVE gives it, and the MCVE against
    /// it crashes rustc (rust-lang/rust#153375, as the ice-cross-crate
    /// fixture's MCVE and its auxiliary crate end).
    #[test]
    fn an_auxiliary_crate_is_a_path_dependency_and_cargo_reproduces_the_ice() {
        use crate::job::ice::oracle::{ice_toolchain, pin_ice_toolchain};
        if !ice_toolchain("an_auxiliary_crate_is_a_path_dependency_and_cargo_reproduces_the_ice") {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let command = "rustc --crate-name requests --edition=2021 src/lib.rs --crate-type lib";
        let auxiliary = Auxiliary {
            name: "req".into(),
            invocation: crate::job::ice::rustc::args::RustcArgs::parse(command, Path::new("/"))
                .unwrap(),
            text: b"pub trait Request{type A<'a>where Self:'a;fn f(_:Self::A<'_>)->impl Sized;}"
                .to_vec(),
        };
        let scratch = Scratch {
            code: "use req::Request;struct c<'a>(&'a ());\n\
                   impl<'a>Request for c<'a>{type A<'a>=u8 where Self:'a;fn f(_:Self::A<'_>)->impl Sized{}}",
            name: "app",
            edition: "2021",
            auxiliaries: &[auxiliary],
        };
        write_workspace(dir.path(), &scratch).unwrap();
        let out = pin_ice_toolchain(&mut Command::new("cargo"))
            .args(["build", "--offline", "--quiet"])
            .current_dir(dir.path())
            .env_remove("RUST_BACKTRACE")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("isn't local"), "{stderr}");
    }
}
