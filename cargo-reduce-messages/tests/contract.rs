//! The wire format, pinned: a golden JSON per message variant and for the
//! `ci` report (every field set, and every optional one absent), each
//! read back to the same value and valid against the committed schema;
//! and the committed schemas equal to the ones the types generate.
//! `BLESS=1 cargo test -p cargo-reduce-messages` rewrites the files after
//! a deliberate change (review the diff: a renamed or removed field
//! needs a new `FORMAT_VERSION`).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use cargo_reduce_messages::ci::{
    CiReport, FailureRecord, FixedRecord, InputRecord, Reduced, Source, Status, REPORT_VERSION,
};
use cargo_reduce_messages::message::{
    ArtifactFields, ArtifactKind, AuxiliaryCrate, Build, Engine, FileCoverage, Finished, How,
    Improved, Phases, Plan, Severity, SkipCause, Started, StepTests, StopReason,
};
use cargo_reduce_messages::{Exit, Line, Message};
use serde::de::DeserializeOwned;
use serde::Serialize;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn bless() -> bool {
    std::env::var_os("BLESS").is_some()
}

/// `text` equals the committed `path` (or is written there with BLESS).
fn check_file(path: &Path, text: &str) {
    if bless() {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
        return;
    }
    let committed = fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}; run with BLESS=1 to write it", path.display()));
    assert!(
        committed == text,
        "{} differs from what the types give:\n{text}\nrun with BLESS=1 if the change is meant",
        path.display()
    );
}

/// `value` serializes to the golden `name` and reads back to itself.
fn golden<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(
    name: &str,
    value: &T,
    pretty: bool,
) -> PathBuf {
    let text = match pretty {
        true => serde_json::to_string_pretty(value).unwrap(),
        false => serde_json::to_string(value).unwrap(),
    } + "\n";
    let path = root().join("tests/golden").join(format!("{name}.json"));
    check_file(&path, &text);
    let back: T = serde_json::from_str(&text).unwrap();
    assert_eq!(&back, value, "{name} does not read back");
    path
}

/// Validates each of `files` (one JSON value each) against `schema` with
/// python3's `jsonschema` (what CI validates the SARIF with).
fn validate(schema: &Path, files: &[PathBuf]) {
    let script = "import json, sys, jsonschema\n\
        schema = json.load(open(sys.argv[1]))\n\
        for f in sys.argv[2:]:\n    jsonschema.validate(json.load(open(f)), schema)\n";
    let out = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(schema)
        .args(files)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "not valid against {}: {}",
        schema.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn schema_path(name: &str) -> PathBuf {
    root().join("../schemas").join(name)
}

#[test]
fn committed_schemas_are_the_generated_ones() {
    let message = serde_json::to_string_pretty(&schemars::schema_for!(Line)).unwrap() + "\n";
    check_file(&schema_path("message.schema.json"), &message);
    let report = serde_json::to_string_pretty(&schemars::schema_for!(CiReport)).unwrap() + "\n";
    check_file(&schema_path("ci-report.schema.json"), &report);
}

fn failure(full: bool) -> FailureRecord {
    FailureRecord {
        package: "fuzz".into(),
        target: "parse".into(),
        id: "3f2a9c1e".into(),
        matching: if full { "location" } else { "stack" }.into(),
        status: if full { Status::Known } else { Status::New },
        signature: "panic at src/lib.rs:12:5: index out of bounds".into(),
        kind: if full { "panic" } else { "asan-SEGV" }.into(),
        severity: if full {
            Severity::Abort
        } else {
            Severity::InvalidAccess
        },
        location: full.then(|| "src/lib.rs:12:5".into()),
        call_path: match full {
            true => vec!["demo::parse".into(), "demo::entry".into()],
            false => Vec::new(),
        },
        message: full.then(|| "index out of bounds: the len is # but the index is #".into()),
        file: full.then(|| "src/lib.rs".into()),
        line: full.then_some(12),
        column: full.then_some(5),
        source: "fuzz/fuzz_targets/parse.rs".into(),
        inputs: 2,
        input: "fuzz/artifacts/parse/crash-01".into(),
        reduced: full.then(|| Reduced {
            hex: "0041ff".into(),
            size: 3,
            minimal: true,
            debug: Some("[0, 65, 255]".into()),
        }),
        ledger: full.then(|| "fuzz/regressions/parse/3f2a9c1e-0041ff".into()),
        replaced: full.then(|| "fuzz/regressions/parse/5b21e0d4-0041ff".into()),
    }
}

fn fixed() -> FixedRecord {
    FixedRecord {
        package: "fuzz".into(),
        target: "parse".into(),
        id: "77aa0b12".into(),
        signature: "panic at src/lib.rs:40:9: unreachable".into(),
        ledger: "fuzz/regressions/parse/fixed/77aa0b12-41".into(),
        pruned_from: Some("fuzz/regressions/parse/77aa0b12-41".into()),
    }
}

fn input(source: Source, failure_id: Option<&str>) -> InputRecord {
    InputRecord {
        package: "fuzz".into(),
        target: "parse".into(),
        path: format!("fuzz/{source:?}/x").to_lowercase(),
        source,
        hash: "0123456789abcdef".into(),
        size: 17,
        failure_id: failure_id.map(str::to_string),
        cached: failure_id.is_none(),
    }
}

fn finished(fuzz: bool) -> Finished {
    Finished {
        input: "crash.js".into(),
        output: "crash.reduced.js".into(),
        original_bytes: 988,
        reduced_bytes: 92,
        tests_run: 506,
        cache_hits: 247,
        elapsed_s: 14.886,
        minimal: !fuzz,
        stopped: fuzz.then_some(StopReason::MaxTime),
        steps: match fuzz {
            true => vec![StepTests {
                step: "ddmin".into(),
                tests: 40,
                elapsed_s: 0.25,
            }],
            false => Vec::new(),
        },
        artifact: fuzz.then(|| ArtifactFields {
            target: "parse".into(),
            failure: "panic at src/lib.rs:12:5".into(),
            failure_id: "3f2a9c1e".into(),
            severity: Severity::Abort,
            debug: Some("Op::Push(3)".into()),
            run: "cargo reduce run --fuzz-target parse 'fuzz/artifacts/parse/partial-from-crash-1 (copy)'"
                .into(),
            phases: Phases {
                reproduce_s: 0.1,
                reduce_s: 2.5,
                verify_s: 0.05,
            },
        }),
    }
}

/// One value of every variant, with its golden's name (its `reason`, and
/// a suffix where a variant has several shapes).
fn messages() -> Vec<(&'static str, Message)> {
    let targets = vec!["parse".to_string(), "decode".to_string()];
    vec![
        (
            "build-started",
            Message::BuildStarted {
                package: "fuzz".into(),
                targets: targets.clone(),
                build: Build::Plain,
            },
        ),
        (
            "build-finished",
            Message::BuildFinished {
                package: "fuzz".into(),
                targets,
                build: Build::CoverageAsan,
                elapsed_s: 12.5,
                compiled: vec!["demo@0.1.0 lib".into()],
            },
        ),
        (
            "reduction-started-file",
            Message::ReductionStarted(Started {
                input: "a.js".into(),
                output: "a.reduced.js".into(),
                original_bytes: 3,
                how: How::Command {
                    command: "sh t.sh".into(),
                    plan: Plan::Syntax {
                        lang: "js".into(),
                        strategy: "best".into(),
                    },
                },
            }),
        ),
        (
            "reduction-started-fuzz",
            Message::ReductionStarted(Started {
                input: "fuzz/artifacts/parse/crash-01".into(),
                output: "fuzz/artifacts/parse/minimized-from-crash-01".into(),
                original_bytes: 64,
                how: How::Target {
                    target: "parse".into(),
                    plan: Plan::Units {
                        unit: "byte".into(),
                    },
                },
            }),
        ),
        (
            "artifact-reproduced",
            Message::ArtifactReproduced {
                path: "fuzz/artifacts/parse/crash-01".into(),
                target: "parse".into(),
                failure: "panic at src/lib.rs:12:5".into(),
                failure_id: "3f2a9c1e".into(),
            },
        ),
        (
            "failures-grouped",
            Message::FailuresGrouped {
                inputs: 5,
                failures: 2,
            },
        ),
        (
            "artifact-duplicate",
            Message::ArtifactDuplicate {
                path: "fuzz/artifacts/parse/crash-02".into(),
                target: "parse".into(),
                failure: "panic at src/lib.rs:12:5".into(),
                failure_id: "3f2a9c1e".into(),
                same_as: "fuzz/artifacts/parse/crash-01".into(),
            },
        ),
        (
            "artifact-also-found",
            Message::ArtifactAlsoFound {
                path: "fuzz/artifacts/parse/crash-5b1d0e9a2c47f3b8-found-reducing-crash-01".into(),
                target: "parse".into(),
                failure: "panic at src/lib.rs:30:9: unreachable".into(),
                failure_id: "5b1d0e9a".into(),
                found_reducing: "fuzz/artifacts/parse/crash-01".into(),
            },
        ),
        (
            "artifact-skipped",
            Message::ArtifactSkipped {
                path: "fuzz/artifacts/parse/leak-01".into(),
                target: "parse".into(),
                why: "a leak needs LeakSanitizer, which does not run in-process".into(),
                cause: SkipCause::Leak,
            },
        ),
        (
            "pass-finished",
            Message::PassFinished {
                unit: "line".into(),
                bytes: 120,
                tests_run: 33,
                cache_hits: 4,
            },
        ),
        (
            "reduction-progress-file",
            Message::ReductionProgress(Improved {
                input: "crash.js".into(),
                bytes: 240,
                tokens: Some(61),
                tests_run: 118,
                elapsed_s: 3.25,
            }),
        ),
        (
            "reduction-progress-fuzz",
            Message::ReductionProgress(Improved {
                input: "fuzz/artifacts/parse/crash-01".into(),
                bytes: 12,
                tokens: None,
                tests_run: 40,
                elapsed_s: 0.5,
            }),
        ),
        (
            "reduction-stopped",
            Message::ReductionStopped {
                input: Some("crash.js".into()),
                why: StopReason::MaxTests,
            },
        ),
        (
            "reduction-finished-file",
            Message::ReductionFinished(finished(false)),
        ),
        (
            "reduction-finished-fuzz",
            Message::ReductionFinished(finished(true)),
        ),
        (
            "fuzz-artifact",
            Message::FuzzArtifact {
                package: "fuzz".into(),
                manifest_path: "fuzz/Cargo.toml".into(),
                target: "parse".into(),
                path: "fuzz/out/default/crashes/id:000000".into(),
                name: "id:000000".into(),
                kind: ArtifactKind::SlowUnit,
                size: 64,
                engine: Engine::Afl,
                instance: Some("default".into()),
                output: "fuzz/out/default/crashes/id:000000.min".into(),
                minimized: Some("fuzz/out/default/crashes/id:000000.min".into()),
                minimized_size: Some(3),
                tmin: None,
                duplicate_of: None,
            },
        ),
        (
            "fuzz-artifact-tmin",
            Message::FuzzArtifact {
                package: "fuzz".into(),
                manifest_path: "fuzz/Cargo.toml".into(),
                target: "parse".into(),
                path: "fuzz/artifacts/parse/crash-3f786850e387550fdab836ed7e6dc881de23001b".into(),
                name: "crash-3f786850e387550fdab836ed7e6dc881de23001b".into(),
                kind: ArtifactKind::Crash,
                size: 2,
                engine: Engine::Libfuzzer,
                instance: None,
                output: "fuzz/artifacts/parse/minimized-from-crash-3f786850e387550fdab836ed7e6dc881de23001b".into(),
                minimized: None,
                minimized_size: None,
                tmin: Some("fuzz/artifacts/parse/minimized-from-3f786850e387550fdab836ed7e6dc881de23001b".into()),
                duplicate_of: Some("fuzz/artifacts/parse/crash-0a1b2c".into()),
            },
        ),
        (
            "afl-instance",
            Message::AflInstance {
                package: "fuzz".into(),
                target: Some("parse".into()),
                dir: "fuzz/out/default".into(),
                name: "default".into(),
                binary: Some("target/debug/parse".into()),
                exec_timeout_ms: Some(1000),
                mem_limit_mb: None,
                rebuilt: Some(false),
                crashes: 3,
                hangs: 1,
            },
        ),
        (
            "fuzz-target",
            Message::FuzzTarget {
                package: "fuzz".into(),
                manifest_path: "fuzz/Cargo.toml".into(),
                target: "parse".into(),
                engine: Engine::Libfuzzer,
                source: "fuzz/fuzz_targets/parse.rs".into(),
                artifacts_dir: "fuzz/artifacts/parse".into(),
            },
        ),
        (
            "ci-replayed",
            Message::CiReplayed {
                package: "fuzz".into(),
                target: "parse".into(),
                inputs: 10,
                failing: 4,
                cached: 6,
                failures: 2,
                elapsed_s: 0.75,
            },
        ),
        (
            "corpus-failure",
            Message::CorpusFailure {
                package: "fuzz".into(),
                target: "parse".into(),
                failure: "panic at src/lib.rs:12:5: index out of bounds".into(),
                failure_id: "3f2a9c1e".into(),
                inputs: vec!["fuzz/corpus/parse/5ba93c9db0cff93f52b521d7420e43f6eda2784f".into()],
                artifact: "fuzz/artifacts/parse/crash-5ba93c9db0cff93f52b521d7420e43f6eda2784f"
                    .into(),
            },
        ),
        (
            "corpus-minimized",
            Message::CorpusMinimized {
                package: "fuzz".into(),
                target: "parse".into(),
                files_before: 936,
                bytes_before: 48_210,
                files_after: 41,
                bytes_after: 1_532,
                features: 388,
                features_lost: 2,
                edges: 97,
                build: Some(Build::Coverage),
                failing: 1,
                rejected: 0,
                shrink_rounds: 2,
                shrink_stopped: Some(StopReason::MaxTime),
                output: "fuzz/corpus-min/parse".into(),
                elapsed_s: 0.31,
            },
        ),
        (
            "coverage-report",
            Message::CoverageReport {
                package: Some("fuzz".into()),
                target: Some("parse".into()),
                inputs: 936,
                failing: 1,
                files: vec![FileCoverage {
                    path: "src/lib.rs".into(),
                    lines_instrumented: 120,
                    lines_covered: 97,
                }],
                lines_instrumented: 120,
                lines_covered: 97,
                lcov: "fuzz/coverage/parse/lcov.info".into(),
                html: "fuzz/coverage/parse/html/index.html".into(),
            },
        ),
        (
            "corpus-shrink-round",
            Message::CorpusShrinkRound {
                package: "fuzz".into(),
                target: "parse".into(),
                round: 1,
                files: 41,
                bytes_before: 1532,
                bytes_after: 988,
                elapsed_s: 2.5,
            },
        ),
        (
            "corpus-recorded",
            Message::CorpusRecorded {
                package: "fuzz".into(),
                target: "parse".into(),
                shard: 2,
                shards: 4,
                files: 234,
                failing: 1,
                features: 311,
                record: "features-2.json".into(),
            },
        ),
        (
            "ci-replay",
            Message::CiReplay {
                path: "fuzz/artifacts/parse/crash-01".into(),
                target: "parse".into(),
                failure_id: None,
                failure: None,
            },
        ),
        ("ci-failure", Message::CiFailure(failure(true))),
        ("ci-fixed", Message::CiFixed(fixed())),
        (
            "ci-finished",
            Message::CiFinished {
                inputs: 10,
                failures: 2,
                new: 1,
                known: 1,
                fixed: 1,
                elapsed_s: 3.5,
                exit: Exit::NewFailures,
            },
        ),
        (
            "ice-found",
            Message::IceFound {
                krate: "ice_crate".into(),
                command: "rustc --crate-name ice_crate --edition=2021 src/lib.rs --crate-type lib"
                    .into(),
                location: "compiler/rustc_middle/src/ty/predicate.rs:491:9".into(),
                message: "`<&'any mut () as From<!>>` has escaping bound vars".into(),
                queries: vec!["typeck".into(), "analysis".into()],
            },
        ),
        (
            "ice-reported",
            Message::IceReported {
                mcve: "/tmp/cargo-reduce-ice/ice_crate.ice.rs".into(),
                report: "/tmp/cargo-reduce-ice/ice_crate.ice.md".into(),
                command:
                    "rustc --crate-name ice_crate --edition=2021 ice_crate.ice.rs --crate-type lib"
                        .into(),
                auxiliaries: Vec::new(),
            },
        ),
        (
            "ice-reported-cross-crate",
            Message::IceReported {
                mcve: "/tmp/cargo-reduce-ice/app.ice.rs".into(),
                report: "/tmp/cargo-reduce-ice/app.ice.md".into(),
                command: "rustc --crate-name app --edition=2021 app.ice.rs --crate-type lib --extern req=libreq.rlib"
                    .into(),
                auxiliaries: vec![AuxiliaryCrate {
                    source: "/tmp/cargo-reduce-ice/app.ice.req.rs".into(),
                    command: "rustc --crate-name req --edition=2021 app.ice.req.rs --crate-type lib"
                        .into(),
                }],
            },
        ),
        (
            "warning",
            Message::Warning {
                message: "-j 8: using 2 workers, one per core".into(),
            },
        ),
        (
            "error",
            Message::Error {
                message: "cannot read `x`".into(),
                exit: Exit::BadInput,
            },
        ),
    ]
}

#[test]
fn every_message_variant_has_its_golden_line() {
    let mut files = Vec::new();
    for (name, message) in messages() {
        let path = golden(&format!("message/{name}"), &Line::new(message), false);
        let text = fs::read_to_string(&path).unwrap();
        let reason = name
            .split_once("-file")
            .or(name.split_once("-fuzz"))
            .or(name.split_once("-cross"))
            .or(name.split_once("-tmin"))
            .map_or(name, |(r, _)| r);
        assert!(
            text.starts_with(&format!("{{\"reason\":\"{reason}\",")),
            "{name}: reason first"
        );
        assert!(
            text.ends_with(",\"format_version\":1}\n"),
            "{name}: version last"
        );
        files.push(path);
    }
    validate(&schema_path("message.schema.json"), &files);
}

/// Every `reason` the schema allows (every variant) has a golden: a new
/// variant fails here until it is given one above.
#[test]
fn the_goldens_cover_every_variant() {
    fn reasons(schema: &serde_json::Value, out: &mut BTreeSet<String>) {
        match schema {
            serde_json::Value::Object(map) => {
                if let Some(reason) = map.get("reason").and_then(|r| r.get("const")) {
                    out.insert(reason.as_str().unwrap().to_string());
                }
                map.values().for_each(|v| reasons(v, out));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| reasons(v, out)),
            _ => {}
        }
    }
    let mut all = BTreeSet::new();
    reasons(&schemars::schema_for!(Line).to_value(), &mut all);
    let golden: BTreeSet<String> = messages()
        .into_iter()
        .map(|(_, m)| {
            serde_json::to_value(m).unwrap()["reason"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(golden, all);
    assert_eq!(all.len(), 29);
}

#[test]
fn the_ci_report_has_its_golden_files() {
    let full = CiReport {
        version: REPORT_VERSION,
        tool: "cargo-reduce 0.1.0".into(),
        shard: Some("1/2".into()),
        matching: "stack".into(),
        inputs: vec![
            input(Source::Artifact, Some("3f2a9c1e")),
            input(Source::Afl, Some("3f2a9c1e")),
            input(Source::Ledger, None),
            input(Source::Clusterfuzz, None),
            input(Source::Corpus, None),
        ],
        failures: vec![failure(true), failure(false)],
        fixed: vec![fixed()],
        elapsed_s: 42.125,
    };
    let empty = CiReport {
        shard: None,
        inputs: Vec::new(),
        failures: Vec::new(),
        fixed: Vec::new(),
        ..full.clone()
    };
    let files = [
        golden("ci-report/full", &full, true),
        golden("ci-report/empty", &empty, true),
    ];
    validate(&schema_path("ci-report.schema.json"), &files);
    let text = fs::read_to_string(&files[0]).unwrap();
    for field in [
        "\"version\": 2",
        "\"match\": \"location\"",
        "\"tool\"",
        "\"shard\": \"1/2\"",
        "\"match\": \"stack\"",
        "\"inputs\"",
        "\"failures\"",
        "\"fixed\"",
        "\"elapsed_s\"",
        "\"failure_id\": null",
        "\"cached\": true",
        "\"status\": \"known\"",
        "\"status\": \"new\"",
        "\"reduced\": null",
        "\"ledger\": null",
        "\"replaced\": \"fuzz/regressions/parse/5b21e0d4-0041ff\"",
        "\"hex\": \"0041ff\"",
        "\"call_path\": []",
        "\"line\": 12",
        "\"column\": 5",
    ] {
        assert!(text.contains(field), "{field} missing from the full report");
    }
}
