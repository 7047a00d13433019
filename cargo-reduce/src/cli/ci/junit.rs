//! The report as JUnit XML (`--junit PATH`), written with cargo-nextest's
//! `quick-junit`: one test suite per target, one test case per input. An
//! input that passes is a success; one with a new failure is a failure;
//! one with a known failure is skipped (expected to fail), or a failure
//! with `--fail-on known`.

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::job::ci::report::{CiReport, FailureRecord, Status};

/// The JUnit XML of `report`.
pub(super) fn render(report: &CiReport, fail_on_known: bool) -> String {
    let mut junit = Report::new("cargo-reduce ci");
    let mut suites: Vec<TestSuite> = Vec::new();
    for input in &report.inputs {
        let suite_name = format!("{}/{}", input.package, input.target);
        if suites.last().is_none_or(|s| s.name.as_str() != suite_name) {
            suites.push(TestSuite::new(suite_name));
        }
        let failure = input.failure_id.as_ref().and_then(|id| {
            report
                .failures
                .iter()
                .find(|f| f.target == input.target && &f.id == id)
        });
        let status = match failure {
            None => TestCaseStatus::success(),
            Some(f) if f.status == Status::Known && !fail_on_known => {
                let mut status = TestCaseStatus::skipped();
                status.set_message(format!("known failure {}: {}", f.id, f.signature));
                status
            }
            Some(f) => {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                status
                    .set_message(format!(
                        "{} failure {}: {}",
                        f.status.as_str(),
                        f.id,
                        f.signature
                    ))
                    .set_type(f.kind.clone())
                    .set_description(details(f, &input.path));
                status
            }
        };
        let mut case = TestCase::new(input.path.clone(), status);
        case.set_classname(format!("{}.{}", input.package, input.target));
        suites.last_mut().expect("pushed above").add_test_case(case);
    }
    junit.add_test_suites(suites);
    junit.to_string().expect("JUnit serializes")
}

/// A failure's body: where it fails, its minimized input, and the command
/// that runs the input again.
fn details(failure: &FailureRecord, input: &str) -> String {
    let mut text = failure.signature.clone();
    if let (Some(file), Some(line)) = (&failure.file, failure.line) {
        text.push_str(&format!("\n  at {file}:{line}"));
    }
    if let Some(reduced) = &failure.reduced {
        let not_minimal = if reduced.minimal {
            ""
        } else {
            " (not 1-minimal yet)"
        };
        text.push_str(&format!(
            "\nminimized to {} bytes{not_minimal}",
            reduced.size
        ));
        if let Some(ledger) = &failure.ledger {
            text.push_str(&format!(": {ledger}"));
        }
    }
    text.push_str(&format!(
        "\nrun it again: cargo reduce ci replay --fuzz-target {} {input}",
        failure.target
    ));
    text
}
