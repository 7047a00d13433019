//! Real output checked against the committed JSON Schemas (`schemas/`,
//! generated from cargo-reduce-messages' types) with python3's
//! `jsonschema`, as the SARIF is: the schemas describe what the binary
//! prints, not only what the types say.

use std::path::{Path, PathBuf};

use crate::util::Run;

fn schema(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../schemas")
        .join(name)
}

/// Validates `file` against `schema` with python3's `jsonschema`; with
/// `lines`, each line is one document, else the file is.
pub fn validate(schema: &Path, file: &Path, lines: bool) {
    let script = "import json, sys, jsonschema\n\
        schema = json.load(open(sys.argv[1]))\n\
        cls = jsonschema.validators.validator_for(schema)\n\
        check = cls(schema)\n\
        text = open(sys.argv[2]).read()\n\
        docs = text.splitlines() if sys.argv[3] == 'lines' else [text]\n\
        assert docs, 'nothing to validate'\n\
        for n, doc in enumerate(docs, 1):\n\
        \x20   for e in check.iter_errors(json.loads(doc)):\n\
        \x20       sys.exit(f'line {n}: {e.message} at {list(e.absolute_path)}: {doc}')\n";
    let out = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(schema)
        .arg(file)
        .arg(if lines { "lines" } else { "whole" })
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{} does not match {}: {}",
        file.display(),
        schema.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every `--message-format json` line `run` printed matches
/// `schemas/message.schema.json`.
pub fn check_messages(run: &Run) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("messages.jsonl");
    std::fs::write(&file, &run.0.stdout).unwrap();
    validate(&schema("message.schema.json"), &file, true);
}

/// The report at `path` (`ci --report`, `ci merge --report`) matches
/// `schemas/ci-report.schema.json`.
pub fn check_report(path: &Path) {
    validate(&schema("ci-report.schema.json"), path, false);
}
