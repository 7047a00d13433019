//! The report as SARIF 2.1.0 (`--sarif PATH`), for code scanning: one
//! result per failure signature, its id as the partial fingerprint (so a
//! failure keeps its alert across runs), one stable rule per failure kind,
//! located at the panic when it is in the user's code, else at the target.

use std::collections::BTreeMap;

use serde_sarif::sarif::{
    ArtifactLocation, Location, Message, MultiformatMessageString, PhysicalLocation, Region,
    ReportingDescriptor, Result as SarifResult, ResultLevel, Run, Sarif, Tool, ToolComponent,
};

use crate::job::ci::report::{CiReport, FailureRecord, Status};

/// The fingerprint key of a failure's signature id.
const FINGERPRINT: &str = "cargoReduceSignature/v1";

/// The rule of a failure kind: signals and exit statuses share one per
/// family (`signal-6` → `signal`).
fn rule_id(kind: &str) -> String {
    let family = kind.split('-').next().unwrap_or(kind);
    match family {
        "stack" => "fuzz/stack-overflow".into(),
        "out" => "fuzz/out-of-memory".into(),
        family => format!("fuzz/{family}"),
    }
}

fn rule(id: &str) -> ReportingDescriptor {
    let text = match id {
        "fuzz/panic" => "A fuzz target panics on a stored input",
        "fuzz/stack-overflow" => "A fuzz target overflows its stack on a stored input",
        "fuzz/out-of-memory" => "A fuzz target runs out of memory on a stored input",
        "fuzz/timeout" => "A fuzz target runs past its timeout on a stored input",
        "fuzz/signal" => "A fuzz target is killed by a signal on a stored input",
        _ => "A fuzz target exits on a stored input",
    };
    ReportingDescriptor::builder()
        .id(id)
        .short_description(MultiformatMessageString::builder().text(text).build())
        .build()
}

fn result(failure: &FailureRecord) -> SarifResult {
    let uri = failure
        .file
        .clone()
        .unwrap_or_else(|| failure.source.clone());
    let region = Region::builder()
        .start_line(i64::from(failure.line.unwrap_or(1)))
        .build();
    let location = Location::builder()
        .physical_location(
            PhysicalLocation::builder()
                .artifact_location(ArtifactLocation::builder().uri(uri).build())
                .region(region)
                .build(),
        )
        .build();
    let reduced = failure.reduced.as_ref().map_or_else(String::new, |r| {
        format!(
            "; minimized to {} bytes{}",
            r.size,
            if r.minimal {
                ""
            } else {
                " (not 1-minimal yet)"
            }
        )
    });
    let text = format!(
        "{} failure {} of fuzz target `{}`: {} ({} input(s), smallest `{}`{reduced})",
        failure.status.as_str(),
        failure.id,
        failure.target,
        failure.signature,
        failure.inputs,
        failure.input
    );
    SarifResult::builder()
        .rule_id(rule_id(&failure.kind))
        .level(match failure.status {
            Status::New => ResultLevel::Error,
            _ => ResultLevel::Warning,
        })
        .message(Message::builder().text(text).build())
        .locations(vec![location])
        .partial_fingerprints(BTreeMap::from([(
            FINGERPRINT.to_string(),
            failure.id.clone(),
        )]))
        .build()
}

/// The SARIF log of `report`.
pub(super) fn render(report: &CiReport) -> String {
    let mut rules: Vec<String> = report.failures.iter().map(|f| rule_id(&f.kind)).collect();
    rules.sort();
    rules.dedup();
    let driver = ToolComponent::builder()
        .name("cargo-reduce")
        .version(env!("CARGO_PKG_VERSION"))
        .information_uri("https://github.com/rust-fuzz/cargo-fuzz")
        .rules(rules.iter().map(|id| rule(id)).collect::<Vec<_>>())
        .build();
    let run = Run::builder()
        .tool(Tool::builder().driver(driver).build())
        .results(report.failures.iter().map(result).collect::<Vec<_>>())
        .build();
    let sarif = Sarif::builder()
        .schema(serde_sarif::sarif::SCHEMA_URL)
        .version(serde_json::json!("2.1.0"))
        .runs(vec![run])
        .build();
    let mut text = serde_json::to_string_pretty(&sarif).expect("SARIF serializes");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_map_to_stable_rules() {
        assert_eq!(rule_id("panic"), "fuzz/panic");
        assert_eq!(rule_id("signal-6"), "fuzz/signal");
        assert_eq!(rule_id("signal-11"), "fuzz/signal");
        assert_eq!(rule_id("stack-overflow"), "fuzz/stack-overflow");
        assert_eq!(rule_id("out-of-memory"), "fuzz/out-of-memory");
        assert_eq!(rule_id("exit-7"), "fuzz/exit");
    }
}
