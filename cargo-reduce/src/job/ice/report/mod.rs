//! The Markdown report beside the MCVE, laid out as rust-lang/rust's ICE
//! issue template asks: the code, the command, `rustc -vV`, the error
//! output and the query stack, so that it can be pasted as it is; with
//! `--bisect`, the releases that crash ([`bisect`]).

pub(crate) mod bisect;
pub(crate) mod duplicates;

use std::fmt::Write;
use std::path::PathBuf;
use std::process::Command;

use crate::engine::StopReason;
use crate::job::ice::rustc::signature::Signature;
use duplicates::Duplicate;

/// What the report says.
pub(crate) struct Report<'a> {
    /// The MCVE's text.
    pub(crate) code: &'a str,
    /// The command that crashes rustc on it, as a user types it.
    pub(crate) command: &'a str,
    /// `-vV` of that compiler (rustc, rustdoc, clippy-driver).
    pub(crate) version: &'a str,
    /// rustc's standard error on the MCVE.
    pub(crate) stderr: &'a str,
    /// The ICE.
    pub(crate) signature: &'a Signature,
    /// What `--bisect` found, if it ran.
    pub(crate) bisect: Option<&'a str>,
    /// The crates the MCVE is compiled against, in build order.
    pub(crate) auxiliaries: &'a [AuxiliaryFile],
    /// With `--rust-src`, the crash tests with the same ICE.
    pub(crate) duplicates: Option<&'a [Duplicate]>,
    /// Why the reduction stopped before its end, if a limit stopped it:
    /// the code is then not 1-minimal.
    pub(crate) stopped: Option<StopReason>,
}

/// An auxiliary crate as the report shows it.
pub(crate) struct AuxiliaryFile {
    /// Where it was written.
    pub(crate) path: PathBuf,
    /// Its file name, as the commands name it.
    pub(crate) file_name: String,
    /// Its source.
    pub(crate) code: String,
    /// The command that builds it.
    pub(crate) command: String,
}

/// Why a reduction that `reason` stopped is not 1-minimal; `None` for a
/// reason that does not stop it early.
fn not_minimal(reason: StopReason) -> Option<&'static str> {
    match reason {
        StopReason::MaxTests => Some("--max-tests stopped the reduction"),
        StopReason::MaxTime => Some("--max-time stopped the reduction"),
        StopReason::Interrupted => Some("the reduction was interrupted"),
        StopReason::OnePass => None,
    }
}

/// Backtrace lines beyond this many are left out of the error output.
const MAX_BACKTRACE_LINES: usize = 20;

impl Report<'_> {
    /// The report as Markdown.
    pub(crate) fn markdown(&self) -> String {
        let mut md = String::new();
        let _ = writeln!(md, "<!-- made by `cargo reduce ice` -->\n");
        if let Some(why) = self.stopped.and_then(not_minimal) {
            let _ = writeln!(
                md,
                "> **Not minimal yet:** {why}; `cargo reduce ice` on this code goes on.\n"
            );
        }
        let _ = writeln!(md, "### Code\n");
        for auxiliary in self.auxiliaries {
            let _ = writeln!(
                md,
                "`{}` (a crate of its own: the ICE needs it so):\n\n```rust\n{}\n```\n",
                auxiliary.file_name,
                auxiliary.code.trim_end()
            );
        }
        if !self.auxiliaries.is_empty() {
            let _ = writeln!(md, "The crate that crashes rustc:\n");
        }
        let _ = writeln!(md, "```rust\n{}\n```\n", self.code.trim_end());
        let commands = self.auxiliaries.iter().map(|a| a.command.as_str());
        let commands: Vec<&str> = commands.chain([self.command]).collect();
        let _ = writeln!(md, "### Command\n\n```sh\n{}\n```\n", commands.join("\n"));
        // The template asks for `rustc --version --verbose`; a rustdoc or
        // clippy ICE shows that tool's.
        let program = self.command.split_whitespace().next().unwrap_or("rustc");
        let _ = writeln!(
            md,
            "### Meta\n\n`{program} --version --verbose`:\n```\n{}\n```\n",
            self.version.trim_end()
        );
        let _ = writeln!(
            md,
            "### Error output\n\n```\n{}\n```\n",
            shortened(self.stderr).trim_end()
        );
        let _ = writeln!(md, "### ICE\n");
        let _ = writeln!(md, "- location: `{}`", self.signature.location);
        let _ = writeln!(md, "- message: {}", self.signature.message);
        if !self.signature.queries.is_empty() {
            let _ = writeln!(
                md,
                "- query stack (innermost first): {}",
                self.signature
                    .queries
                    .iter()
                    .map(|q| format!("`{q}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        if let Some(bisect) = self.bisect {
            let _ = writeln!(md, "\n### Bisection\n\n```\n{}\n```", bisect.trim_end());
        }
        md.push_str(&self.duplicates_section());
        md
    }

    /// Where to look for a report of the same ICE before filing this one.
    fn duplicates_section(&self) -> String {
        let mut md = String::from("\n### Duplicates\n\nIssues labelled I-ICE that quote\n");
        for search in duplicates::searches(self.signature) {
            let _ = writeln!(md, "- [{}]({})", search.what, search.url);
        }
        let Some(found) = self.duplicates else {
            return md;
        };
        let none = if found.is_empty() { " none" } else { "" };
        let _ = writeln!(
            md,
            "\nFiles of `tests/crashes/` that crash this compiler the same way:{none}"
        );
        for duplicate in found {
            let issue = duplicate
                .known_bug
                .as_deref()
                .map_or(String::new(), |bug| format!(" (known bug {bug})"));
            let _ = writeln!(md, "- `{}`{issue}", duplicate.path.display());
        }
        md
    }
}

/// rustc's output without its warnings, the backtrace cut to its first
/// lines, and without the note that asks to attach its ICE file: rustc
/// wrote that file in a directory of the run, gone with it.
fn shortened(stderr: &str) -> String {
    let mut out = String::new();
    let mut in_backtrace = 0usize;
    let mut in_warning = false;
    for line in stderr.lines() {
        if line.starts_with("note: please attach the file at ") {
            continue;
        }
        if line.starts_with("warning: ") {
            in_warning = true;
        }
        if in_warning {
            in_warning = !line.is_empty();
            continue;
        }
        if line == "stack backtrace:" {
            in_backtrace = 1;
        } else if in_backtrace > 0 {
            let frame = line.starts_with(' ');
            if !frame {
                in_backtrace = 0;
            } else {
                in_backtrace += 1;
                if in_backtrace == MAX_BACKTRACE_LINES + 2 {
                    out.push_str("   [… more frames left out]\n");
                }
                if in_backtrace > MAX_BACKTRACE_LINES + 1 {
                    continue;
                }
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// `program -vV`, or a note saying why it is missing.
pub(crate) fn version(program: &str) -> String {
    match Command::new(program).arg("-vV").output() {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).into_owned(),
        Ok(o) => String::from_utf8_lossy(&o.stderr).into_owned(),
        Err(e) => format!("(`{program} -vV` failed: {e})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_has_every_section_of_the_ice_template() {
        let stderr = include_str!("../testdata/panic-nightly.txt");
        let signature = Signature::parse(stderr).unwrap();
        let report = Report {
            code: "fn b() {}\n",
            command: "rustc --edition=2021 x.ice.rs",
            version: "rustc 1.95.0 (59807616e 2026-04-14)\n",
            stderr,
            signature: &signature,
            bisect: None,
            auxiliaries: &[],
            duplicates: None,
            stopped: None,
        }
        .markdown();
        for section in [
            "### Code\n\n```rust\nfn b() {}\n```",
            "### Command\n\n```sh\nrustc --edition=2021 x.ice.rs\n```",
            "### Meta\n\n`rustc --version --verbose`:\n```\nrustc 1.95.0",
            "### Error output",
            "- query stack (innermost first): `typeck_root`, `analysis`",
        ] {
            assert!(report.contains(section), "{section} missing:\n{report}");
        }
        assert!(report.contains("[… more frames left out]"), "{report}");
        assert!(!report.contains("Bisection"));
        assert!(!report.contains("upper camel case"), "{report}");
        assert!(!report.contains("please attach the file"), "{report}");
        assert!(
            report.contains("### Duplicates\n\nIssues labelled I-ICE that quote\n- [the panic's place: `compiler/"),
            "{report}"
        );
        assert!(!report.contains("tests/crashes"), "no --rust-src: {report}");
        assert!(!report.contains("Not minimal"), "{report}");
    }

    #[test]
    fn a_cross_crate_ice_s_report_shows_the_auxiliary_first_and_builds_it_first() {
        let stderr = include_str!("../testdata/panic-nightly.txt");
        let signature = Signature::parse(stderr).unwrap();
        let auxiliary = AuxiliaryFile {
            path: PathBuf::from("/o/x.ice.dep.rs"),
            file_name: "x.ice.dep.rs".into(),
            code: "pub trait T {}\n".into(),
            command: "rustc --crate-name dep x.ice.dep.rs --crate-type lib".into(),
        };
        let report = Report {
            code: "impl dep::T for () {}\n",
            command: "rustc x.ice.rs --extern dep=libdep.rlib",
            version: "rustc 1.95.0 (59807616e 2026-04-14)\n",
            stderr,
            signature: &signature,
            bisect: None,
            auxiliaries: &[auxiliary],
            duplicates: Some(&[]),
            stopped: Some(StopReason::Interrupted),
        }
        .markdown();
        assert!(
            report.contains("> **Not minimal yet:** the reduction was interrupted;"),
            "{report}"
        );
        let code = report.find("pub trait T {}").unwrap();
        assert!(
            code < report.find("impl dep::T for () {}").unwrap(),
            "{report}"
        );
        assert!(
            report.contains("```sh\nrustc --crate-name dep x.ice.dep.rs --crate-type lib\nrustc x.ice.rs --extern dep=libdep.rlib\n```"),
            "{report}"
        );
        assert!(
            report.contains("`tests/crashes/` that crash this compiler the same way: none"),
            "{report}"
        );
    }
}
