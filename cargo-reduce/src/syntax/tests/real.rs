//! End-to-end tests of HDD with real oracles: `rustc` and `node` run on
//! every candidate through the `file` mode's command oracle. A test fails,
//! naming the tool, when its tool is not on PATH.

use std::ffi::OsString;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::command::{CommandOracle, TestCommand};
use crate::engine::Reducer;
use crate::syntax::*;

fn repo_file(path: &str) -> String {
    format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"))
}

/// Panics unless `tool` is on PATH, saying how to install it.
fn require_tool(tool: &str, package: &str) {
    if which::which(tool).is_err() {
        panic!("this test needs `{tool}` on PATH: install it ({package})");
    }
}

/// Reduces `input` with `strategy`, the command `sh script` as oracle, at
/// `-j2`; returns the output, the tests run and the time taken.
fn reduce_with_script(
    input: &[u8],
    file_name: &str,
    script: &Path,
    strategy: Strategy,
) -> (Vec<u8>, u64, Duration) {
    let argv: Vec<OsString> = vec!["sh".into(), script.into()];
    let command = TestCommand::new(&argv).unwrap();
    let oracle = CommandOracle::new(command, file_name.as_ref(), 0o644, Duration::from_secs(20));
    let run = Reducer::new().jobs(2);
    let lang = Lang::detect(Some(Path::new(file_name)), input);
    let started = Instant::now();
    let out = reduce(input, lang, &strategy, &oracle, &run).unwrap();
    (out.atoms, run.tests(), started.elapsed())
}

#[test]
fn rust_file_keeps_the_rustc_type_mismatch() {
    require_tool("rustc", "rustup, https://rustup.rs");
    let input = std::fs::read(repo_file("corpus/examples/inventory.rs")).unwrap();
    let script = repo_file("corpus/examples/rustc-e0308.sh");
    let (out, tests, time) =
        reduce_with_script(&input, "inventory.rs", Path::new(&script), Strategy::Best);
    let text = String::from_utf8_lossy(&out);
    eprintln!(
        "best: {} → {} bytes, {tests} tests, {time:?}\n{text}",
        input.len(),
        out.len()
    );
    assert!(out.len() * 4 < input.len(), "{text}");
    assert!(text.contains("u64"));
}

#[test]
fn js_file_keeps_the_node_exception() {
    require_tool("node", "apt-get install nodejs");
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("test.sh");
    std::fs::write(
        &script,
        "node \"$1\" 2>&1 | grep -q \"TypeError: Cannot read properties of undefined (reading 'total')\"\n",
    )
    .unwrap();
    let input = b"'use strict';\n\nconst orders = [\n  { id: 1, lines: [{ price: 3, qty: 2 }] },\n  { id: 2, lines: [{ price: 5, qty: 1 }, { price: 1, qty: 9 }] },\n];\n\nfunction summarize(order) {\n  const sum = order.lines.reduce((acc, l) => acc + l.price * l.qty, 0);\n  return { id: order.id, sum };\n}\n\nfunction report(list) {\n  const byId = {};\n  for (const o of list) {\n    byId[o.id] = summarize(o);\n  }\n  console.log(`order 1: ${byId[1].sum}`);\n  return byId[3].total;\n}\n\nreport(orders);\n";
    let (out, tests, time) = reduce_with_script(input, "input.js", &script, Strategy::Best);
    let text = String::from_utf8_lossy(&out);
    eprintln!(
        "js: {} → {} bytes, {tests} tests, {time:?}\n{text}",
        input.len(),
        out.len()
    );
    assert!(out.len() * 4 < input.len(), "{text}");
    assert!(text.contains("total"));
}
