//! The rustc command line that crashed, as cargo ran it (`cargo build -vv`
//! prints each one, with its environment, and names the failed one after
//! `Caused by:`), and everything every step does with one: its units (a
//! flag with its value), its `--extern`s (with or without one), the forms
//! it is rerun in (on a candidate file in a private directory), the
//! minimal one an MCVE needs, and the form the report shows (the copies
//! beside the MCVE named relative to it). The flag table is here once.

use std::ops::Range;
use std::path::{Path, PathBuf};

/// One rustc command line: the owner of everything done with one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RustcArgs {
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

/// Flags whose value is the next argument (when not written `--flag=value`
/// or, for one-letter flags, glued on: `-Copt-level=3`).
const VALUED: &[&str] = &[
    "--cfg",
    "--check-cfg",
    "-L",
    "-l",
    "--crate-type",
    "--crate-name",
    "--edition",
    "--emit",
    "--print",
    "-o",
    "--out-dir",
    "--explain",
    "--target",
    "-A",
    "--allow",
    "-W",
    "--warn",
    "--force-warn",
    "-D",
    "--deny",
    "-F",
    "--forbid",
    "--cap-lints",
    "-C",
    "--codegen",
    "-Z",
    "--extern",
    "--sysroot",
    "--error-format",
    "--json",
    "--color",
    "--diagnostic-width",
    "--remap-path-prefix",
    "--env-set",
];

/// Flags every MCVE's command keeps.
const KEPT: &[&str] = &["--crate-name", "--edition", "--crate-type"];

/// `invocation`'s arguments as units (a flag with its value): the ones an
/// MCVE keeps (the crate root among them), and the others.
pub(crate) struct Units {
    pub(crate) kept: Vec<Range<usize>>,
    /// The units a command line may do without, in order.
    pub(crate) optional: Vec<Range<usize>>,
}

impl Units {
    /// `invocation`'s units, in order.
    pub(crate) fn of(invocation: &RustcArgs) -> Units {
        let mut units = Units {
            kept: Vec::new(),
            optional: Vec::new(),
        };
        for range in invocation.unit_ranges() {
            let arg = &invocation.args[range.start];
            let name = arg.split_once('=').map_or(&arg[..], |(n, _)| n);
            match range.start == invocation.source || KEPT.contains(&name) {
                true => units.kept.push(range),
                false => units.optional.push(range),
            }
        }
        units
    }

    /// `invocation` with the kept units and the optional ones `chosen`.
    pub(crate) fn with(
        &self,
        invocation: &RustcArgs,
        chosen: impl IntoIterator<Item = usize>,
    ) -> RustcArgs {
        let mut ranges: Vec<&Range<usize>> = self.kept.iter().collect();
        ranges.extend(chosen.into_iter().map(|i| &self.optional[i]));
        ranges.sort_by_key(|r| r.start);
        let mut args = Vec::new();
        let mut source = 0;
        for range in ranges {
            if range.contains(&invocation.source) {
                source = args.len();
            }
            args.extend_from_slice(&invocation.args[range.clone()]);
        }
        RustcArgs {
            args,
            source,
            ..invocation.clone()
        }
    }
}

/// What a rewrite of a command line does with one unit.
enum Rewrite {
    /// Keeps it as it is.
    Keep,
    /// Drops it.
    Drop,
    /// Puts these words in its place.
    Replace(Vec<String>),
}

impl RustcArgs {
    /// `command` (shell words, as cargo quotes them) run in `cwd`, with the
    /// environment of the leading `NAME=value` words. `None` when no
    /// argument is a `.rs` crate root.
    pub(crate) fn parse(command: &str, cwd: &Path) -> Option<RustcArgs> {
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
        Some(RustcArgs {
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

    /// Its arguments as units, in order: a flag of [`VALUED`] with the
    /// next argument (unless it is the last), any other argument alone.
    pub(crate) fn unit_ranges(&self) -> Vec<Range<usize>> {
        let mut ranges = Vec::new();
        let mut i = 0;
        while i < self.args.len() {
            let valued = VALUED.contains(&&self.args[i][..]) && i + 1 < self.args.len();
            let end = i + 1 + usize::from(valued);
            ranges.push(i..end);
            i = end;
        }
        ranges
    }

    /// Its units rewritten by `rule`, with `root` as the crate root; the
    /// new arguments and where the root is among them.
    fn rewritten(&self, root: String, rule: &dyn Fn(&[String]) -> Rewrite) -> (Vec<String>, usize) {
        let mut out = Vec::with_capacity(self.args.len() + 4);
        let mut source = 0;
        for range in self.unit_ranges() {
            if range.start == self.source {
                source = out.len();
                out.push(root.clone());
                out.extend_from_slice(&self.args[range.start + 1..range.end]);
                continue;
            }
            match rule(&self.args[range.clone()]) {
                Rewrite::Keep => out.extend_from_slice(&self.args[range]),
                Rewrite::Drop => {}
                Rewrite::Replace(words) => out.extend(words),
            }
        }
        (out, source)
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
        let (mut out, _) = self.rewritten(source.display().to_string(), &|unit| {
            let flag = unit[0].as_str();
            let plumbing = OUTPUT_FLAGS.contains(&flag)
                || ["--error-format", "--json"].contains(&flag)
                || ["--out-dir=", "--error-format=", "--json="]
                    .iter()
                    .any(|p| flag.starts_with(p))
                || (flag == "-C" && unit.get(1).is_some_and(|v| v.starts_with("incremental=")));
            match plumbing {
                true => Rewrite::Drop,
                false => Rewrite::Keep,
            }
        });
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
    pub(crate) fn minimal(&self) -> RustcArgs {
        let (rewritten, source) = self.rewritten(self.args[self.source].clone(), &|unit| {
            let flag = unit[0].as_str();
            let dropped = DROPPED_PAIRS.contains(&flag)
                || DROPPED_PAIRS
                    .iter()
                    .any(|f| flag.starts_with(&format!("{f}=")))
                || (flag == "-C"
                    && unit
                        .get(1)
                        .is_some_and(|v| DROPPED_CODEGEN.iter().any(|d| v.starts_with(d))));
            match (dropped, flag.strip_prefix("--emit=")) {
                (true, _) => Rewrite::Drop,
                (false, Some(kinds)) => {
                    Rewrite::Replace(emit_without_cargo_s(kinds).into_iter().collect())
                }
                (false, None) => Rewrite::Keep,
            }
        });
        let mut args = Vec::new();
        if self.value("--crate-name").is_none() {
            args.extend(["--crate-name".to_string(), self.crate_name()]);
        }
        let source = source + args.len();
        args.extend(rewritten);
        RustcArgs {
            program: self.program.clone(),
            args,
            source,
            env: Vec::new(),
            cwd: self.cwd.clone(),
        }
    }

    /// Its `--extern NAME=PATH`s (a bare `--extern NAME` names a crate of
    /// the sysroot, which is no source to take in).
    pub(crate) fn externs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.args
            .windows(2)
            .filter(|w| w[0] == "--extern")
            .filter_map(|w| w[1].split_once('='))
    }

    /// This command line without `--extern name=…`.
    pub(crate) fn without_extern(&self, name: &str) -> RustcArgs {
        let units = Units::of(self);
        let ours = |unit: &[String]| {
            unit.len() == 2
                && unit[0] == "--extern"
                && unit[1].split_once('=').is_some_and(|(n, _)| n == name)
        };
        let others =
            (0..units.optional.len()).filter(|&i| !ours(&self.args[units.optional[i].clone()]));
        units.with(self, others)
    }

    /// This command line with `--extern name=library` (in place of any
    /// `--extern name=…` it had), at the end.
    pub(crate) fn with_extern(&self, name: &str, library: &str) -> RustcArgs {
        let mut with = self.without_extern(name);
        with.args
            .extend(["--extern".to_string(), format!("{name}={library}")]);
        with
    }

    /// Its flags among `flags` given as `FLAG VALUE`, each with its value.
    pub(crate) fn flag_pairs<'a>(
        &'a self,
        flags: &'a [&str],
    ) -> impl Iterator<Item = [String; 2]> + 'a {
        self.args
            .windows(2)
            .filter(|w| flags.contains(&w[0].as_str()))
            .map(|w| [w[0].clone(), w[1].clone()])
    }

    /// This command line as the report shows it: `dir` (beside the MCVE)
    /// by its name, as the command runs in the MCVE's directory.
    pub(crate) fn relative_to(&self, dir: &Path) -> RustcArgs {
        let Some(name) = dir.file_name() else {
            return self.clone();
        };
        let absolute = dir.display().to_string();
        let relative = name.to_string_lossy();
        let mut shown = self.clone();
        for arg in shown.args.iter_mut() {
            if arg.contains(&absolute) {
                *arg = arg.replace(&absolute, &relative);
            }
        }
        shown
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
        crate::job::shell::line(words)
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

    fn fixture() -> RustcArgs {
        RustcArgs::parse(CARGO, Path::new("/p")).unwrap()
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
            RustcArgs::parse("rustc --crate-name=a --edition 2018 a.rs", Path::new("/")).unwrap();
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
        let doc = RustcArgs::parse(
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
        let plain = RustcArgs::parse("rustc --edition 2021 src/my-lib.rs", Path::new("/")).unwrap();
        assert_eq!(
            plain.minimal().display("m.rs"),
            "rustc --crate-name my_lib --edition 2021 m.rs"
        );
        let check = CARGO.replace("dep-info,metadata,link", "dep-info,metadata");
        let min = RustcArgs::parse(&check, Path::new("/p")).unwrap().minimal();
        assert!(min.args.contains(&"--emit=metadata".to_string()), "{min:?}");
    }

    #[test]
    fn a_command_without_a_crate_root_is_refused() {
        assert_eq!(RustcArgs::parse("rustc -vV", Path::new("/")), None);
        assert_eq!(RustcArgs::parse("rustc 'unclosed", Path::new("/")), None);
    }

    #[test]
    fn a_valued_flag_at_the_end_is_a_unit_of_its_own() {
        let inv = RustcArgs::parse("rustc a.rs -C", Path::new("/p")).unwrap();
        let units = Units::of(&inv);
        let pairs = |v: &[Range<usize>]| v.iter().map(|r| (r.start, r.end)).collect::<Vec<_>>();
        assert_eq!(pairs(&units.kept), [(0, 1)]);
        assert_eq!(pairs(&units.optional), [(1, 2)]);
    }
}
