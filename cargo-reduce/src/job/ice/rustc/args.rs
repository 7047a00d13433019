//! The rustc command line that crashed, as cargo ran it (`cargo build -vv`
//! prints each one, with its environment, and names the failed one after
//! `Caused by:`), and the forms it is rerun in: on a candidate file in a
//! private directory, and reduced to the flags an MCVE needs.

use std::path::{Path, PathBuf};

/// One rustc command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Invocation {
    /// rustc (or a wrapper such as clippy-driver), as cargo called it.
    pub(crate) program: String,
    /// Its arguments; `args[source]` is the crate root.
    pub(crate) args: Vec<String>,
    /// Where `args[source]` is.
    pub(crate) source: usize,
    /// The environment cargo set (`CARGO_PKG_NAME`, `OUT_DIR`…): `env!`
    /// in the crate reads it.
    pub(crate) env: Vec<(String, String)>,
    /// The directory cargo ran it in (relative paths start there).
    pub(crate) cwd: PathBuf,
}

/// Where the outputs go: `--out-dir` (rustc), `-o` (rustdoc's output
/// directory, or rustc's output file). A rerun sends them to its private
/// directory and an MCVE names none, so both forms drop them.
const OUTPUT_FLAGS: &[&str] = &["--out-dir", "-o"];

/// Flags given as `FLAG VALUE` (two arguments) that an MCVE drops.
const DROPPED_PAIRS: &[&str] = &[
    "--out-dir",
    "-o",
    "-L",
    "--extern",
    "--check-cfg",
    "--cap-lints",
    "--error-format",
    "--json",
];

/// `-C` options that only name or place outputs.
const DROPPED_CODEGEN: &[&str] = &[
    "metadata=",
    "extra-filename=",
    "incremental=",
    "embed-bitcode=",
];

impl Invocation {
    /// `command` (shell words, as cargo quotes them) run in `cwd`, with the
    /// environment of the leading `NAME=value` words. `None` when no
    /// argument is a `.rs` crate root.
    pub(crate) fn parse(command: &str, cwd: &Path) -> Option<Invocation> {
        let words = shlex::split(command)?;
        let program_at = words.iter().position(|w| !is_assignment(w))?;
        let env = words[..program_at]
            .iter()
            .filter_map(|w| w.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let args = words[program_at + 1..].to_vec();
        let source = args
            .iter()
            .position(|a| a.ends_with(".rs") && !a.starts_with('-'))?;
        Some(Invocation {
            program: words[program_at].clone(),
            args,
            source,
            env,
            cwd: cwd.to_path_buf(),
        })
    }

    /// The crate root's path.
    pub(crate) fn source_path(&self) -> PathBuf {
        self.cwd.join(&self.args[self.source])
    }

    /// The value of `flag`, given as `FLAG VALUE` or `FLAG=VALUE`.
    pub(crate) fn value(&self, flag: &str) -> Option<&str> {
        let args = &self.args;
        args.iter()
            .enumerate()
            .find_map(|(i, a)| match a.strip_prefix(flag) {
                Some("") => args.get(i + 1).map(String::as_str),
                Some(rest) => rest.strip_prefix('='),
                None => None,
            })
    }

    /// `--crate-name`, or the root file's stem.
    pub(crate) fn crate_name(&self) -> String {
        self.value("--crate-name").map_or_else(
            || {
                let path = PathBuf::from(&self.args[self.source]);
                path.file_stem()
                    .map_or("main".into(), |s| s.to_string_lossy().replace('-', "_"))
            },
            str::to_string,
        )
    }

    /// `--edition`, or rustc's default.
    pub(crate) fn edition(&self) -> &str {
        self.value("--edition").unwrap_or("2015")
    }

    /// The arguments to compile `source` instead, writing into `out_dir`,
    /// with human-readable diagnostics and, when given, incremental
    /// compilation into `incremental`.
    pub(crate) fn args_for(
        &self,
        source: &Path,
        out_dir: &Path,
        incremental: Option<&Path>,
    ) -> Vec<String> {
        let mut out = Vec::with_capacity(self.args.len() + 4);
        let mut i = 0;
        while i < self.args.len() {
            let arg = &self.args[i];
            let next = self.args.get(i + 1);
            if i == self.source {
                out.push(source.display().to_string());
            } else if OUTPUT_FLAGS.contains(&arg.as_str())
                || arg == "--error-format"
                || arg == "--json"
            {
                i += 1;
            } else if arg.starts_with("--out-dir=")
                || arg.starts_with("--error-format=")
                || arg.starts_with("--json=")
            {
            } else if arg == "-C" && next.is_some_and(|n| n.starts_with("incremental=")) {
                i += 1;
            } else {
                out.push(arg.clone());
            }
            i += 1;
        }
        out.push("--out-dir".into());
        out.push(out_dir.display().to_string());
        if let Some(dir) = incremental {
            out.push("-C".into());
            out.push(format!("incremental={}", dir.display()));
        }
        out
    }

    /// This command line with only what an MCVE needs: the crate name,
    /// edition, crate type, `--cfg`, `--test`, `--target`, codegen and `-Z`
    /// options; cargo's paths, dependencies and output plumbing dropped.
    /// The environment is dropped too. `--crate-name` is always there: the
    /// MCVE's file name (`NAME.ice.rs`) is no crate name.
    pub(crate) fn minimal(&self) -> Invocation {
        let mut args = Vec::new();
        if self.value("--crate-name").is_none() {
            args.extend(["--crate-name".to_string(), self.crate_name()]);
        }
        let mut source = 0;
        let mut i = 0;
        while i < self.args.len() {
            let arg = &self.args[i];
            let next = self.args.get(i + 1);
            if i == self.source {
                source = args.len();
                args.push(arg.clone());
            } else if DROPPED_PAIRS.contains(&arg.as_str()) {
                i += 1;
            } else if DROPPED_PAIRS
                .iter()
                .any(|f| arg.starts_with(&format!("{f}=")))
            {
            } else if let Some(kinds) = arg.strip_prefix("--emit=") {
                args.extend(emit_without_cargo_s(kinds));
            } else if arg == "-C"
                && next.is_some_and(|n| DROPPED_CODEGEN.iter().any(|d| n.starts_with(d)))
            {
                i += 1;
            } else {
                args.push(arg.clone());
            }
            i += 1;
        }
        Invocation {
            program: self.program.clone(),
            args,
            source,
            env: Vec::new(),
            cwd: self.cwd.clone(),
        }
    }

    /// The command as a user types it, with `file` as the crate root.
    pub(crate) fn display(&self, file: &str) -> String {
        let program = Path::new(&self.program)
            .file_name()
            .map_or(self.program.clone(), |n| n.to_string_lossy().into_owned());
        let words =
            std::iter::once(program).chain(self.args.iter().enumerate().map(|(i, a)| {
                match i == self.source {
                    true => file.to_string(),
                    false => a.clone(),
                }
            }));
        words.map(|w| quoted(&w)).collect::<Vec<_>>().join(" ")
    }
}

/// `word` as a shell reads it: bare when it can be.
fn quoted(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_=./,:+@%".contains(c);
    match !word.is_empty() && word.chars().all(plain) {
        true => word.to_string(),
        false => shlex::try_quote(word).map_or(word.to_string(), |q| q.into_owned()),
    }
}

/// `--emit=KINDS` without what only cargo reads (`dep-info`); nothing
/// when what remains is rustc's default (`link`, with `metadata`).
fn emit_without_cargo_s(kinds: &str) -> Option<String> {
    let kept: Vec<&str> = kinds.split(',').filter(|k| *k != "dep-info").collect();
    match kept.as_slice() {
        ["link"] | ["metadata", "link"] | ["link", "metadata"] | [] => None,
        _ => Some(format!("--emit={}", kept.join(","))),
    }
}

/// `NAME=value` with a shell variable's name.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `cargo build -vv` printed for the fixture crate (the
    /// environment shortened).
    const CARGO: &str = "CARGO_CRATE_NAME=ice_crate CARGO_PKG_DESCRIPTION='a `crate`'\\''s tests' \
        /root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin/rustc --crate-name ice_crate \
        --edition=2021 src/lib.rs --error-format=json --json=diagnostic-rendered-ansi,artifacts,future-incompat \
        --crate-type lib --emit=dep-info,metadata,link -C embed-bitcode=no -C debuginfo=2 \
        --check-cfg 'cfg(docsrs,test)' --check-cfg 'cfg(feature, values())' -C metadata=a0c4409bc197d816 \
        -C extra-filename=-add5fca18ac3d83f --out-dir /tmp/t/debug/deps -C incremental=/tmp/t/debug/incremental \
        -L dependency=/tmp/t/debug/deps";

    fn fixture() -> Invocation {
        Invocation::parse(CARGO, Path::new("/p")).unwrap()
    }

    #[test]
    fn the_environment_program_and_crate_root_are_found() {
        let inv = fixture();
        assert_eq!(inv.env[0], ("CARGO_CRATE_NAME".into(), "ice_crate".into()));
        assert_eq!(inv.env[1].1, "a `crate`'s tests");
        assert!(inv.program.ends_with("/bin/rustc"));
        assert_eq!(inv.args[inv.source], "src/lib.rs");
        assert_eq!(inv.source_path(), Path::new("/p/src/lib.rs"));
        assert_eq!(inv.crate_name(), "ice_crate");
        assert_eq!(inv.edition(), "2021");
        let spaced =
            Invocation::parse("rustc --crate-name=a --edition 2018 a.rs", Path::new("/")).unwrap();
        assert_eq!(
            (spaced.crate_name(), spaced.edition()),
            ("a".to_string(), "2018")
        );
        assert_eq!(
            spaced
                .minimal()
                .args
                .iter()
                .filter(|a| a.starts_with("--crate-name"))
                .count(),
            1
        );
        assert!(inv.args.contains(&"cfg(feature, values())".to_string()));
    }

    #[test]
    fn a_rerun_takes_the_candidate_and_private_output_without_json() {
        let args = fixture().args_for(Path::new("/t/x.rs"), Path::new("/t/out"), None);
        assert!(args.contains(&"/t/x.rs".to_string()));
        assert!(!args
            .iter()
            .any(|a| a.contains("json") || a.contains("incremental")));
        assert_eq!(args[args.len() - 2..], ["--out-dir", "/t/out"]);
        assert_eq!(args.iter().filter(|a| *a == "--out-dir").count(), 1);
        let inc = fixture().args_for(Path::new("/t/x.rs"), Path::new("/o"), Some(Path::new("/i")));
        assert_eq!(inc[inc.len() - 2..], ["-C", "incremental=/i"]);
    }

    #[test]
    fn rustdoc_s_output_directory_is_replaced_in_a_rerun_and_dropped_from_the_mcve() {
        let doc = Invocation::parse(
            "/bin/rustdoc --edition=2021 --crate-type lib --crate-name a src/lib.rs \
             -o /tmp/t/doc --error-format=json -C metadata=ab -L dependency=/tmp/t/deps \
             --crate-version 1.0.0",
            Path::new("/p"),
        )
        .unwrap();
        let args = doc.args_for(Path::new("x.rs"), Path::new("out"), None);
        assert!(!args.iter().any(|a| a == "-o" || a.contains("/tmp/t/doc")));
        assert_eq!(args[args.len() - 2..], ["--out-dir", "out"]);
        assert_eq!(
            doc.minimal().display("a.ice.rs"),
            "rustdoc --edition=2021 --crate-type lib --crate-name a a.ice.rs --crate-version 1.0.0"
        );
    }

    #[test]
    fn the_minimal_command_keeps_what_changes_compilation() {
        let min = fixture().minimal();
        assert_eq!(
            min.display("ice_crate.ice.rs"),
            "rustc --crate-name ice_crate --edition=2021 ice_crate.ice.rs --crate-type lib -C debuginfo=2"
        );
        assert!(min.env.is_empty());
        assert_eq!(quoted("cfg(a, b)"), "'cfg(a, b)'");
        let plain =
            Invocation::parse("rustc --edition 2021 src/my-lib.rs", Path::new("/")).unwrap();
        assert_eq!(
            plain.minimal().display("m.rs"),
            "rustc --crate-name my_lib --edition 2021 m.rs"
        );
        let check = CARGO.replace("dep-info,metadata,link", "dep-info,metadata");
        let min = Invocation::parse(&check, Path::new("/p"))
            .unwrap()
            .minimal();
        assert!(min.args.contains(&"--emit=metadata".to_string()), "{min:?}");
    }

    #[test]
    fn a_command_without_a_crate_root_is_refused() {
        assert_eq!(Invocation::parse("rustc -vV", Path::new("/")), None);
        assert_eq!(Invocation::parse("rustc 'unclosed", Path::new("/")), None);
    }
}
