//! `--emit-tests PATH`: a Rust test file with one `#[test]` per ledger
//! entry, so that `cargo test` reports each regression input by name, on
//! stable, with no libFuzzer or AFL++ at run time. Each test runs `cargo
//! reduce ci replay` (the target built against cargo-reduce's stand-in,
//! run in-process) on its input and checks the outcome: still failing with
//! the recorded failure (known bugs tracked, as rustc's `tests/crashes`),
//! or passing (the bugs are fixed and must stay fixed). The file is written
//! only when its text changes, so a run that changes nothing changes no
//! byte.

use std::io;
use std::path::{Component, Path, PathBuf};

/// What an emitted test expects of its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub(crate) enum Expect {
    /// It still fails, with the failure its entry records.
    #[default]
    Fail,
    /// It passes: the bug is fixed.
    Pass,
}

/// One ledger entry a test is written for.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Case {
    /// The fuzz crate's manifest.
    pub manifest: PathBuf,
    /// The fuzz target.
    pub target: String,
    /// The entry's signature id at the run's `--match` level.
    pub id: String,
    /// The entry's input file.
    pub input: PathBuf,
}

/// Writes the tests of `cases` to `path` (a file in a crate's `tests/`),
/// matching failures at `matching` (`None`: each target's own level, as
/// `ci replay` takes it from the fuzz crate's `Cargo.toml`); returns
/// whether the file changed.
pub(crate) fn write(
    path: &Path,
    matching: Option<&str>,
    expect: Expect,
    cases: &[Case],
) -> io::Result<bool> {
    let root = checked_crate_root(path)?;
    let text = render(&root, matching, expect, cases)?;
    crate::output::write_if_changed(path, text.as_bytes())
}

/// The crate whose tests `path` is, as [`write`] needs it: checked before
/// a run replays anything.
pub(crate) fn checked_crate_root(path: &Path) -> io::Result<PathBuf> {
    crate_root(path).ok_or_else(|| {
        io::Error::other(format!(
            "no Cargo.toml above `{}`: emit the tests into a crate's tests/ folder",
            path.display()
        ))
    })
}

/// The nearest folder above `path` with a `Cargo.toml`.
fn crate_root(path: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(path).ok()?;
    absolute
        .ancestors()
        .skip(1)
        .find(|dir| dir.join("Cargo.toml").is_file())
        .map(Path::to_path_buf)
}

/// `to` relative to `from` (both absolute), with `/` separators.
fn relative(from: &Path, to: &Path) -> io::Result<String> {
    let from = std::path::absolute(from)?;
    let to = std::path::absolute(to)?;
    let common = from
        .components()
        .zip(to.components())
        .take_while(|(a, b)| a == b)
        .count();
    let ups = from.components().count() - common;
    let parts: Vec<String> = std::iter::repeat_n("..".to_string(), ups)
        .chain(to.components().skip(common).map(|c| match c {
            Component::Normal(part) => part.to_string_lossy().into_owned(),
            other => other.as_os_str().to_string_lossy().into_owned(),
        }))
        .collect();
    Ok(parts.join("/"))
}

/// A test function's name: `<target>_<id>`, as an identifier.
fn test_name(case: &Case) -> String {
    let name: String = format!("{}_{}", case.target, case.id)
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    match name.starts_with(|c: char| c.is_ascii_digit()) {
        true => format!("t_{name}"),
        false => name,
    }
}

fn render(
    root: &Path,
    matching: Option<&str>,
    expect: Expect,
    cases: &[Case],
) -> io::Result<String> {
    let mut cases = cases.to_vec();
    cases.sort();
    let mut out = format!(
        "{HEADER}\nconst MATCH: Option<&str> = {matching:?};\nconst EXPECT_FAILURE: bool = {};\n{RUNNER}",
        expect == Expect::Fail
    );
    for case in &cases {
        out.push_str(&format!(
            "\n#[test]\nfn {}() {{\n    replay({:?}, {:?}, {:?}, {:?});\n}}\n",
            test_name(case),
            relative(root, &case.manifest)?,
            case.target,
            relative(root, &case.input)?,
            case.id
        ));
    }
    Ok(out)
}

const HEADER: &str = "\
//! Regression tests of the fuzz targets' ledger, written by `cargo reduce
//! ci --emit-tests`: do not edit, run it again when the ledger changes.
//!
//! Each test replays one ledger input through its fuzz target with `cargo
//! reduce ci replay` (the target built against cargo-reduce's in-process
//! stand-in: no libFuzzer or AFL++ at run time). cargo-reduce must be
//! installed (`cargo reduce` must run).

use std::path::Path;
use std::process::Command;
";

const RUNNER: &str = r#"
/// Replays `input` through `target` of the fuzz crate of `manifest` and
/// checks that it fails with `id` (or, when the tests expect the bugs
/// fixed, that it passes).
fn replay(manifest: &str, target: &str, input: &str, id: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["reduce", "ci", "replay", "--message-format", "json"])
        .args(MATCH.iter().flat_map(|&level| ["--match", level]))
        .args(["--fuzz-target", target, "--manifest-path"])
        .arg(root.join(manifest))
        .arg(root.join(input))
        .output()
        .expect("cannot run `cargo reduce`: install cargo-reduce");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let failed_with = stdout
        .lines()
        .filter(|l| l.contains("\"reason\":\"ci-replay\""))
        .find_map(|l| {
            let rest = l.split("\"failure_id\":\"").nth(1)?;
            rest.split('"').next().map(str::to_string)
        });
    match (out.status.code(), failed_with) {
        (Some(0), None) if EXPECT_FAILURE => panic!(
            "{input} no longer fails: failure {id} is fixed; move it out of the ledger (cargo reduce ci --prune-fixed)"
        ),
        (Some(0), None) => {}
        (Some(11), Some(got)) if EXPECT_FAILURE && got == id => {}
        (Some(11), Some(got)) => panic!(
            "{input} fails with {got}, not as expected ({}):\n{stdout}",
            if EXPECT_FAILURE { id } else { "passing" }
        ),
        (code, _) => panic!(
            "cargo reduce ci replay ended with {code:?}:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_relative_to_the_crate() {
        assert_eq!(
            relative(Path::new("/p/app"), Path::new("/p/app/fuzz/Cargo.toml")).unwrap(),
            "fuzz/Cargo.toml"
        );
        assert_eq!(
            relative(Path::new("/p/app"), Path::new("/p/fuzz/regressions/t/x")).unwrap(),
            "../fuzz/regressions/t/x"
        );
    }

    #[test]
    fn names_are_identifiers() {
        let case = |target: &str| Case {
            manifest: PathBuf::from("fuzz/Cargo.toml"),
            target: target.into(),
            id: "0badcafe".into(),
            input: PathBuf::from("x"),
        };
        assert_eq!(test_name(&case("parse-json")), "parse_json_0badcafe");
        assert_eq!(test_name(&case("2d")), "t_2d_0badcafe");
    }

    #[test]
    fn the_file_is_rewritten_only_when_it_changes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), "[package]\n").unwrap();
        let path = dir.path().join("tests/fuzz_regressions.rs");
        let manifest = dir.path().join("fuzz/Cargo.toml");
        let cases = [Case {
            manifest: manifest.clone(),
            target: "t".into(),
            id: "0badcafe".into(),
            input: dir.path().join("fuzz/regressions/t/0badcafe-00"),
        }];
        assert!(write(&path, Some("stack"), Expect::Fail, &cases).unwrap());
        assert!(!write(&path, Some("stack"), Expect::Fail, &cases).unwrap());
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains("fn t_0badcafe() {\n    replay(\"fuzz/Cargo.toml\", \"t\", \"fuzz/regressions/t/0badcafe-00\", \"0badcafe\");"),
            "{text}"
        );
        assert!(
            text.contains("const MATCH: Option<&str> = Some(\"stack\");"),
            "{text}"
        );
        assert!(write(&path, None, Expect::Fail, &cases).unwrap());
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("const MATCH: Option<&str> = None;"), "{text}");
    }
}
