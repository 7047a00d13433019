//! The `protograph` binary: subcommands end to end, and one-line errors.
#![cfg(feature = "cli")]

use std::process::Command;

fn protograph(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_protograph"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn committed_graph() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../corpus/js/boa-discovered.json"
    )
    .to_string()
}

#[test]
fn generate_is_deterministic() {
    let graph = committed_graph();
    let run = |seed: &str| protograph(&["generate", "--graph", &graph, "-n", "30", "--seed", seed]);
    let (a, b, c) = (run("3"), run("3"), run("4"));
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert_eq!(a.stdout, b.stdout);
    assert_ne!(a.stdout, c.stdout);
    assert_eq!(String::from_utf8(a.stdout).unwrap().lines().count(), 30);
}

#[test]
fn missing_graph_is_one_line_with_a_fix() {
    let out = protograph(&["generate", "--graph", "/nonexistent/g.json"]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("/nonexistent/g.json") && err.contains("protograph discover"),
        "{err}"
    );
}

#[test]
fn unusable_graph_names_the_file() {
    let path = std::env::temp_dir().join(format!("protograph-bad-{}.json", std::process::id()));
    std::fs::write(
        &path,
        r#"{"root": "nowhere", "types": {}, "signatures": {}, "edges": []}"#,
    )
    .unwrap();
    let out = protograph(&["generate", "--graph", path.to_str().unwrap()]);
    std::fs::remove_file(&path).unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!out.status.success() && err.lines().count() == 1, "{err}");
    assert!(
        err.contains("nowhere") && err.contains(path.to_str().unwrap()),
        "{err}"
    );
}

#[test]
fn snippets_of_a_directory_every_other_file() {
    let dir = std::env::temp_dir().join(format!("protograph-snippets-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    // Sorted: a.js, b.js, sub/c.js; --every 2 takes a.js and sub/c.js.
    std::fs::write(dir.join("a.js"), "var m = new Map();\nm.set(1, 2);\n").unwrap();
    std::fs::write(dir.join("b.js"), "var s = new Set();\ns.add(1);\n").unwrap();
    std::fs::write(dir.join("sub/c.js"), "assert.sameValue(Math.abs(-1), 1);\n").unwrap();
    std::fs::write(dir.join("notes.txt"), "Math.max(1)").unwrap();
    let graph = committed_graph();
    let out = protograph(&[
        "snippets",
        "--graph",
        &graph,
        "--every",
        "2",
        dir.to_str().unwrap(),
    ]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let snippets = protograph::Snippets::from_json(&text).unwrap();
    let exprs: Vec<&str> = text.lines().filter(|l| l.contains("\"expr\"")).collect();
    assert_eq!(snippets.len(), 3, "{text}");
    for want in [
        "new (this.Map)()",
        "v1048576.set(1, 2)",
        "this.Math.abs(-1)",
    ] {
        assert!(exprs.iter().any(|l| l.contains(want)), "{want}: {text}");
    }
    assert!(!text.contains("Set") && !text.contains("max"), "{text}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim(), "3 snippets from 2 files");
}
