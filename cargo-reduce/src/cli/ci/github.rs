//! The report in GitHub Actions' own formats: workflow-command annotations
//! for new failures, at the panic's file and line (GitHub shows at most 10
//! of each type per step and 50 per job; the rest are counted in the
//! summary instead of being dropped silently), and a Markdown job summary
//! for `$GITHUB_STEP_SUMMARY`, kept under its 1 MiB limit.

use crate::job::ci::report::{CiReport, FailureRecord, Status};

/// Error annotations GitHub shows per step.
pub(super) const ANNOTATIONS_PER_STEP: usize = 10;
/// The job summary's size limit.
const SUMMARY_LIMIT: usize = 1024 * 1024;
/// Room kept for the summary's closing lines.
const SUMMARY_RESERVE: usize = 4 * 1024;

/// The annotation lines for `report` (at most [`ANNOTATIONS_PER_STEP`]),
/// and how many new failures did not get one.
pub(super) fn annotations(report: &CiReport) -> (Vec<String>, usize) {
    let new: Vec<&FailureRecord> = report
        .failures
        .iter()
        .filter(|f| f.status == Status::New)
        .collect();
    let lines = new
        .iter()
        .take(ANNOTATIONS_PER_STEP)
        .map(|f| annotation(f))
        .collect();
    (lines, new.len().saturating_sub(ANNOTATIONS_PER_STEP))
}

fn annotation(failure: &FailureRecord) -> String {
    let mut properties = Vec::new();
    if let Some(file) = &failure.file {
        properties.push(format!("file={}", property(file)));
        if let Some(line) = failure.line {
            properties.push(format!("line={line}"));
        }
        if let Some(column) = failure.column {
            properties.push(format!("col={column}"));
        }
    }
    properties.push(format!(
        "title={}",
        property(&format!(
            "New fuzz failure {} in {}",
            failure.id, failure.target
        ))
    ));
    let reduced = failure
        .reduced
        .as_ref()
        .map_or_else(String::new, |r| format!(", minimized to {} bytes", r.size));
    let text = format!(
        "{}\n{} input(s) fail this way; smallest: {}{reduced}",
        failure.signature, failure.inputs, failure.input
    );
    format!("::error {}::{}", properties.join(","), data(&text))
}

/// Escapes a workflow command's message.
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow command's property value.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

/// The Markdown job summary of `report`; `unannotated` new failures had
/// no annotation.
pub(super) fn summary(report: &CiReport, unannotated: usize) -> String {
    let mut out = format!(
        "## cargo reduce ci\n\n{} input(s) replayed: **{} new**, {} known, {} fixed failure(s).\n\n",
        report.inputs.len(),
        report.count(Status::New),
        report.count(Status::Known),
        report.count(Status::Fixed)
    );
    if unannotated > 0 {
        out.push_str(&format!(
            "{unannotated} new failure(s) past GitHub's annotation limit are listed here only.\n\n"
        ));
    }
    if !report.failures.is_empty() {
        out.push_str(
            "| status | target | id | inputs | minimized | severity | failure |\n|---|---|---|---|---|---|---|\n",
        );
    }
    let mut left_out = 0;
    for failure in &report.failures {
        let row = row(failure);
        if out.len() + row.len() > SUMMARY_LIMIT - SUMMARY_RESERVE {
            left_out += 1;
            continue;
        }
        out.push_str(&row);
    }
    for fixed in &report.fixed {
        let row = format!(
            "| fixed | {} | `{}` | | | | {} |\n",
            cell(&fixed.target),
            fixed.id,
            cell(&fixed.signature)
        );
        if out.len() + row.len() > SUMMARY_LIMIT - SUMMARY_RESERVE {
            left_out += 1;
            continue;
        }
        out.push_str(&row);
    }
    if left_out > 0 {
        out.push_str(&format!(
            "\n{left_out} more row(s) left out to stay under GitHub's 1 MiB summary limit; the JSON report has them all.\n"
        ));
    }
    out
}

fn row(failure: &FailureRecord) -> String {
    let minimized = failure.reduced.as_ref().map_or_else(String::new, |r| {
        format!("{} B{}", r.size, if r.minimal { "" } else { " (partial)" })
    });
    format!(
        "| {} | {} | `{}` | {} | {minimized} | {} | {} |\n",
        failure.status.as_str(),
        cell(&failure.target),
        failure.id,
        failure.inputs,
        failure.severity.name(),
        cell(&failure.signature)
    )
}

/// Text for a table cell: pipes escaped, one line, not too long.
fn cell(text: &str) -> String {
    let one_line: String = text.replace('|', "\\|").replace(['\n', '\r'], " ");
    match one_line.char_indices().nth(300) {
        Some((cut, _)) => format!("{}…", &one_line[..cut]),
        None => one_line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::ci::report::REPORT_VERSION;

    fn report(failures: usize) -> CiReport {
        CiReport {
            version: REPORT_VERSION,
            tool: "cargo-reduce test".into(),
            shard: None,
            matching: "stack".into(),
            inputs: Vec::new(),
            failures: (0..failures).map(super::super::sample_failure).collect(),
            fixed: Vec::new(),
            elapsed_s: 0.0,
        }
    }

    #[test]
    fn annotations_are_capped_and_escaped() {
        let (lines, left) = annotations(&report(12));
        assert_eq!((lines.len(), left), (10, 2));
        assert!(lines[0].starts_with("::error file=fuzz/a.rs,line=3,title=New fuzz failure 00000000 in t::panic at a.rs%3A1%3A2"
            .split("::panic").next().unwrap()));
        assert!(lines[0].contains("%0A1 input(s)"), "{}", lines[0]);
    }

    #[test]
    fn the_summary_stays_under_a_mebibyte() {
        let summary = summary(&report(10_000), 9_990);
        assert!(summary.len() < SUMMARY_LIMIT, "{}", summary.len());
        assert!(summary.contains("left out to stay under"));
        assert!(summary.contains("\\|"), "pipes are escaped");
    }
}
