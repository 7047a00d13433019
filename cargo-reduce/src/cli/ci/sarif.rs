//! The report as SARIF 2.1.0 (`--sarif PATH`), for code scanning: one
//! result per failure signature, its id as the partial fingerprint (so a
//! failure keeps its alert across runs), one stable rule per failure kind
//! and severity class (its `security-severity`, by which GitHub ranks
//! alerts), located at the panic when it is in the user's code, else at
//! the target, and in the innermost function of its call path.

use std::collections::BTreeMap;

use serde_sarif::sarif::{
    ArtifactLocation, Location, LogicalLocation, Message, MultiformatMessageString,
    PhysicalLocation, PropertyBag, Region, ReportingDescriptor, Result as SarifResult, ResultLevel,
    Run, Sarif, Tool, ToolComponent,
};

use crate::fuzz::pool::Severity;
use crate::job::ci::report::{CiReport, FailureRecord, Status};

/// The fingerprint key of a failure's signature id.
const FINGERPRINT: &str = "cargoReduceSignature/v1";

/// The rule of a failure: one per kind family (`signal-6` → `signal`),
/// and within the families of several severity classes (signals,
/// AddressSanitizer's bugs) one per class, since a rule has one
/// `security-severity`.
fn rule_id(kind: &str, severity: Severity) -> String {
    let family = kind.split('-').next().unwrap_or(kind);
    match family {
        "stack" => "fuzz/stack-overflow".into(),
        "out" => "fuzz/out-of-memory".into(),
        "signal" | "asan" => format!("fuzz/{family}/{}", severity.name()),
        family => format!("fuzz/{family}"),
    }
}

fn rule(id: &str, severity: Severity) -> ReportingDescriptor {
    let family = id.split('/').nth(1).unwrap_or_default();
    let text = match family {
        "panic" => "A fuzz target panics on a stored input",
        "stack-overflow" => "A fuzz target overflows its stack on a stored input",
        "out-of-memory" => "A fuzz target runs out of memory on a stored input",
        "timeout" => "A fuzz target runs past its timeout on a stored input",
        "signal" => "A fuzz target is killed by a signal on a stored input",
        "asan" => "AddressSanitizer reports a bug of a fuzz target on a stored input",
        _ => "A fuzz target exits on a stored input",
    };
    let properties = PropertyBag::builder()
        .additional_properties(BTreeMap::from([
            (
                "security-severity".to_string(),
                serde_json::json!(severity.security_severity()),
            ),
            (
                "tags".to_string(),
                serde_json::json!(["security", severity.name()]),
            ),
        ]))
        .build();
    ReportingDescriptor::builder()
        .id(id)
        .short_description(MultiformatMessageString::builder().text(text).build())
        .properties(properties)
        .build()
}

fn result(failure: &FailureRecord) -> SarifResult {
    let uri = failure
        .file
        .clone()
        .unwrap_or_else(|| failure.source.clone());
    let mut region = Region::builder()
        .start_line(i64::from(failure.line.unwrap_or(1)))
        .build();
    region.start_column = failure.column.map(i64::from);
    let mut location = Location::builder()
        .physical_location(
            PhysicalLocation::builder()
                .artifact_location(ArtifactLocation::builder().uri(uri).build())
                .region(region)
                .build(),
        )
        .build();
    location.logical_locations = function(failure).map(|f| vec![f]);
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
        .rule_id(rule_id(&failure.kind, failure.severity))
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

/// The function a failure happened in, the innermost of its call path: a
/// hang, which is placed by function, has no line of its own (its
/// physical location is its target's).
fn function(failure: &FailureRecord) -> Option<LogicalLocation> {
    let name = failure.call_path.first()?;
    Some(
        LogicalLocation::builder()
            .fully_qualified_name(name.as_str())
            .kind("function")
            .build(),
    )
}

/// The SARIF log of `report`.
pub(super) fn render(report: &CiReport) -> String {
    let mut rules: Vec<(String, Severity)> = report
        .failures
        .iter()
        .map(|f| (rule_id(&f.kind, f.severity), f.severity))
        .collect();
    rules.sort();
    rules.dedup();
    let driver = ToolComponent::builder()
        .name("cargo-reduce")
        .version(env!("CARGO_PKG_VERSION"))
        .information_uri(env!("CARGO_PKG_REPOSITORY"))
        .rules(
            rules
                .iter()
                .map(|(id, severity)| rule(id, *severity))
                .collect::<Vec<_>>(),
        )
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
        let rule = |kind: &str, message: Option<&str>| {
            let failure = crate::fuzz::pool::Failure {
                kind: crate::fuzz::pool::FailureKind::from_tag(kind).unwrap(),
                message: message.map(String::from),
                location: None,
                call_path: Vec::new(),
                overflow_depth: None,
                alloc_request: None,
            };
            rule_id(kind, failure.signature().severity())
        };
        assert_eq!(rule("panic", None), "fuzz/panic");
        assert_eq!(rule("signal-6", None), "fuzz/signal/abort");
        assert_eq!(rule("signal-11", None), "fuzz/signal/invalid-access");
        assert_eq!(rule("stack-overflow", None), "fuzz/stack-overflow");
        assert_eq!(rule("out-of-memory", None), "fuzz/out-of-memory");
        assert_eq!(rule("exit-7", None), "fuzz/exit");
        let write = rule("asan-heap-buffer-overflow", Some("WRITE 1"));
        assert_eq!(write, "fuzz/asan/memory-write");
    }

    /// A failure with a call path names its innermost function as its
    /// logical location; one without has none.
    #[test]
    fn a_failure_is_placed_in_its_function_too() {
        let mut hang = super::super::sample_failure(1);
        hang.kind = "timeout".into();
        hang.call_path = vec!["planted::spin".into(), "planted::run".into()];
        let logical = |failure: &FailureRecord| {
            let location = &result(failure).locations.unwrap()[0];
            serde_json::to_value(&location.logical_locations).unwrap()
        };
        let expected =
            serde_json::json!([{"fullyQualifiedName": "planted::spin", "kind": "function"}]);
        assert_eq!(logical(&hang), expected);
        assert_eq!(
            logical(&super::super::sample_failure(2)),
            serde_json::Value::Null
        );
    }

    /// Each rule carries its class's `security-severity`.
    #[test]
    fn rules_carry_their_security_severity() {
        let rule = rule("fuzz/asan/memory-write", Severity::MemoryWrite);
        let properties = serde_json::to_value(rule.properties.unwrap()).unwrap();
        assert_eq!(properties["security-severity"], "9.3");
    }
}
