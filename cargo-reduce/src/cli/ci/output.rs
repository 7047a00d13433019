//! Where the report of `cargo reduce ci` goes: its files (JSON report,
//! SARIF, JUnit), GitHub's annotations and job summary, or the table; and
//! the exit status it ends with.

use std::path::{Path, PathBuf};

use super::super::render::Reporter;
use super::super::table::{self, Align};
use super::{github, junit, sarif, CiFormat, FailOn, ReportOptions};
use crate::error::{Error, Exit};
use crate::fuzz::project::file_name;
use crate::job::ci;
use crate::job::ci::report::{CiReport, Status};
use crate::job::{Events, Message};
use crate::output::Destination;

/// The report's files (`--report`, `--sarif`, `--junit`), checked before
/// anything runs: never a device, FIFO or folder, `-` for standard output;
/// and with `--format github`, the job summary `$GITHUB_STEP_SUMMARY`.
pub(super) struct Files {
    report: Option<Destination>,
    sarif: Option<Destination>,
    junit: Option<Destination>,
    summary: Option<PathBuf>,
}

impl Files {
    /// Checks the files `output` names.
    pub(super) fn check(output: &ReportOptions) -> Result<Files, Error> {
        let check = |path: &Option<PathBuf>| path.as_deref().map(Destination::check).transpose();
        let summary = match output.format {
            CiFormat::Github => std::env::var_os("GITHUB_STEP_SUMMARY").map(PathBuf::from),
            _ => None,
        };
        if let Some(path) = &summary {
            open_summary(path)?;
        }
        Ok(Files {
            report: check(&output.report)?,
            sarif: check(&output.sarif)?,
            junit: check(&output.junit)?,
            summary,
        })
    }
}

/// The job summary, opened to append (GitHub's runner makes it; a run
/// elsewhere may name one that is not there yet).
fn open_summary(path: &Path) -> Result<std::fs::File, Error> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| {
            Error::caused_with_hint(
                Exit::Usage,
                format!(
                    "cannot write the job summary `{}` ($GITHUB_STEP_SUMMARY)",
                    path.display()
                ),
                e,
                "check the path and its permissions, or unset GITHUB_STEP_SUMMARY",
            )
        })
}

/// Writes the report's files and prints it; returns how the run ends by
/// what it found.
pub(super) fn finish(
    report: &CiReport,
    output: &ReportOptions,
    files: &Files,
    reporter: &Reporter,
) -> Result<Exit, Error> {
    let fail_on_known = output.fail_on == FailOn::Known;
    if let Some(file) = &files.report {
        let mut text = serde_json::to_string_pretty(report).expect("reports serialize");
        text.push('\n');
        write_file(file, text.as_bytes())?;
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    let in_repository = from_repository_root(report, &cwd);
    if let Some(file) = &files.sarif {
        write_file(file, sarif::render(&in_repository).as_bytes())?;
    }
    if let Some(file) = &files.junit {
        write_file(file, junit::render(report, fail_on_known).as_bytes())?;
    }
    let exit = ci::exit_of(report, fail_on_known);
    if output.format == CiFormat::Github {
        github_output(&in_repository, files.summary.as_deref(), reporter);
    } else if !reporter.is_json() && !reporter.is_quiet() {
        print!("{}", table(report));
    }
    Ok(exit)
}

/// `report` with each failure's file and fuzz target source relative to
/// the root of the git repository that holds it (the nearest folder above
/// with a `.git`), as GitHub's code scanning and annotations read a path:
/// the report's own paths are relative to the current directory, which
/// need not be the checkout's root. A path in no repository stays as it is.
fn from_repository_root(report: &CiReport, cwd: &Path) -> CiReport {
    let mut report = report.clone();
    for failure in &mut report.failures {
        failure.file = failure.file.as_deref().map(|f| repository_path(f, cwd));
        failure.source = repository_path(&failure.source, cwd);
    }
    report
}

/// `path` (relative to `cwd`, or absolute) from its repository's root.
fn repository_path(path: &str, cwd: &Path) -> String {
    let absolute = cwd.join(path);
    let root = absolute
        .ancestors()
        .skip(1)
        .find(|dir| dir.join(".git").exists());
    match root.and_then(|root| absolute.strip_prefix(root).ok()) {
        Some(relative) => crate::output::shown(relative),
        None => path.to_string(),
    }
}

/// The run's last message: its counts and `exit`, the status it ends
/// with.
pub(super) fn finished(report: &CiReport, exit: Exit, reporter: &Reporter) {
    reporter.emit(&Message::CiFinished {
        inputs: report.inputs.len(),
        failures: report.failures.len(),
        new: report.count(Status::New),
        known: report.count(Status::Known),
        fixed: report.count(Status::Fixed),
        elapsed_s: report.elapsed_s,
        exit,
    });
}

/// Annotations on stdout, the job summary appended to
/// `$GITHUB_STEP_SUMMARY` (on stdout when it is not set, unless stdout
/// carries JSON lines). A summary that cannot be written after the run
/// (its file was checked before) is a warning: the run's exit status says
/// what it found.
fn github_output(report: &CiReport, summary_file: Option<&Path>, reporter: &Reporter) {
    use std::io::Write;
    let (lines, unannotated) = github::annotations(report);
    for line in lines {
        println!("{line}");
    }
    let summary = github::summary(report, unannotated);
    let Some(path) = summary_file else {
        if !reporter.is_json() {
            print!("{summary}");
        }
        return;
    };
    let written = open_summary(path).and_then(|mut file| {
        file.write_all(summary.as_bytes())
            .map_err(|e| write_error(path, e))
    });
    if let Err(e) = written {
        reporter.emit(&Message::Warning {
            message: format!("the job summary was not written: {e}"),
        });
    }
}

fn write_file(file: &Destination, bytes: &[u8]) -> Result<(), Error> {
    file.write(bytes, None)
        .map_err(|e| write_error(file.path(), e))
}

fn write_error(path: &Path, e: std::io::Error) -> Error {
    Error::caused_with_hint(
        Exit::Usage,
        format!("cannot write `{}`", path.display()),
        e,
        "check the path and its permissions",
    )
}

/// The human table: one row per failure and per fixed entry, then the
/// counts and what the run filed.
fn table(report: &CiReport) -> String {
    let rows = rows(report);
    let mut out = String::new();
    if rows.len() > 1 {
        let align = [
            Align::Left,
            Align::Left,
            Align::Left,
            Align::Right,
            Align::Right,
        ];
        out.push_str(&table::render(&rows, &align, ""));
    }
    out.push_str(&counts(report));
    out.push_str(&filing(report));
    out
}

/// The table's header, then a row per failure and per fixed entry.
fn rows(report: &CiReport) -> Vec<Vec<String>> {
    let header = ["STATUS", "TARGET", "ID", "INPUTS", "BYTES", "FAILURE"];
    let mut rows: Vec<Vec<String>> = vec![header.map(String::from).to_vec()];
    rows.extend(report.failures.iter().map(|f| {
        let reduced = f.reduced.as_ref().map_or_else(String::new, |r| {
            format!("{}{}", r.size, if r.minimal { "" } else { "+" })
        });
        vec![
            f.status.as_str().to_uppercase(),
            f.target.clone(),
            f.id.clone(),
            f.inputs.to_string(),
            reduced,
            f.signature.clone(),
        ]
    }));
    rows.extend(report.fixed.iter().map(|f| {
        vec![
            "FIXED".into(),
            f.target.clone(),
            f.id.clone(),
            String::new(),
            String::new(),
            f.signature.clone(),
        ]
    }));
    rows
}

/// The inputs replayed, the failures by status, and the minimizations
/// not finished.
fn counts(report: &CiReport) -> String {
    let cached = report.inputs.iter().filter(|i| i.cached).count();
    let mut out = format!(
        "{} input(s) replayed ({cached} from the cache): {} new, {} known, {} fixed failure(s)\n",
        report.inputs.len(),
        report.count(Status::New),
        report.count(Status::Known),
        report.count(Status::Fixed)
    );
    let cut = report
        .failures
        .iter()
        .filter(|f| f.reduced.as_ref().is_some_and(|r| !r.minimal))
        .count();
    if cut > 0 {
        out.push_str(&format!(
            "{cut} minimization(s) not finished (--budget, Ctrl-C, an error, or tests that ran out of time, whose verdict depends on the machine's speed, stopped them), their BYTES marked +: not 1-minimal yet; the next run goes on\n"
        ));
    }
    out
}

/// What the run filed in the ledger, moved in it, or left unfiled.
fn filing(report: &CiReport) -> String {
    let mut out = String::new();
    let new = report.failures.iter().filter(|f| f.status == Status::New);
    let (filed, unfiled): (Vec<_>, Vec<_>) = new.partition(|f| f.ledger.is_some());
    for failure in filed {
        let ledger = failure.ledger.as_deref().unwrap_or_default();
        out.push_str(&format!("filed {} as {ledger}\n", failure.id));
    }
    for failure in &report.failures {
        if let (Some(ledger), Some(replaced)) = (&failure.ledger, &failure.replaced) {
            out.push_str(&format!(
                "filed {} again as {ledger}, in place of {replaced}\n",
                failure.id
            ));
        }
    }
    for failure in report.failures.iter().filter(|f| f.status == Status::Known) {
        let entry = failure.ledger.as_deref().unwrap_or_default();
        let name = file_name(Path::new(entry));
        if !entry.is_empty() && !name.starts_with(&failure.id) {
            out.push_str(&format!(
                "known {} by {entry}, filed under its id before the failure moved (--update files it again as {})\n",
                failure.id, failure.id
            ));
        }
    }
    for fixed in &report.fixed {
        if let Some(from) = &fixed.pruned_from {
            out.push_str(&format!(
                "moved fixed {} from {from} to {}\n",
                fixed.id, fixed.ledger
            ));
        }
    }
    if !unfiled.is_empty() {
        out.push_str(&format!(
            "{} new failure(s) not filed: the same command with --update adds them to the regression ledger\n",
            unfiled.len()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path is given from the root of its repository, wherever the run
    /// was (helper-39: run in a member's folder, the SARIF named
    /// `src/decoding/frame.rs` for `ruzstd/src/decoding/frame.rs`).
    #[test]
    fn paths_are_given_from_the_repository_root() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("member/src")).unwrap();
        let member = repo.join("member");
        assert_eq!(repository_path("src/a.rs", &member), "member/src/a.rs");
        assert_eq!(repository_path("member/src/a.rs", &repo), "member/src/a.rs");
        let absolute = member.join("src/a.rs");
        assert_eq!(
            repository_path(absolute.to_str().unwrap(), dir.path()),
            "member/src/a.rs"
        );
        assert_eq!(
            repository_path("src/a.rs", dir.path()),
            "src/a.rs",
            "in no repository"
        );
    }
}
