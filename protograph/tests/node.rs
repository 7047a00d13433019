//! End-to-end checks against a real engine: discovery and learning in Node,
//! and generated programs accepted by Node's parser. Each test fails, saying
//! how to install it, when `node` is not on PATH: a missing engine must not
//! pass as a green run.

use std::path::Path;
use std::process::Command;

use protograph::engine::Node;
use protograph::{discover, learn, Config, Generator, Graph, TestFile};

/// Panics, naming the tool and how to install it, unless `node --version`
/// runs and succeeds.
fn require_node() {
    let found = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "this test needs node on PATH: apt-get install nodejs"
    );
}

fn corpus(file: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/js")
        .join(file)
}

#[test]
fn discovery_in_node_finds_the_builtins() {
    require_node();
    let graph = discover(&Node::default()).expect("discovery runs in node");
    let stats = graph.stats();
    assert!(
        stats.objects > 400 && stats.callables > 300 && stats.properties > 1000,
        "{stats}"
    );
    for id in [
        "Object.prototype",
        "Array.prototype.map",
        "{Array.prototype}",
    ] {
        assert!(graph.types.contains_key(id), "no {id}");
    }
    // %TypedArray% is reachable only as a prototype, so it is named as one.
    assert!(graph
        .types
        .keys()
        .any(|id| id.starts_with("Object.getPrototypeOf(") && id.ends_with("Array)")));
    let has = |e: &protograph::Edge| graph.edges.contains(e);
    assert!(has(&protograph::Edge::Proto {
        from: "number".into(),
        to: "Number.prototype".into()
    }));
    assert!(has(&protograph::Edge::Property {
        from: "Array.prototype".into(),
        to: "Array.prototype.values".into(), // the same function object
        name: "@@iterator".into()
    }));
    assert!(
        !graph.types.keys().any(|id| id.contains("__pg")),
        "protograph's own globals leaked"
    );
    assert!(graph.types["Map.prototype"].accessors.contains("size"));
}

#[test]
fn learning_in_node_records_signatures() {
    require_node();
    let tests = [
        TestFile {
            name: "ok".into(),
            source: "Math.max(1, 2); [1].map(function (x) { return x; }); new Map().size;".into(),
        },
        TestFile {
            name: "bad".into(),
            source: "JSON.parse('{');".into(),
        },
    ];
    let learned = learn(&Node::default(), &tests).expect("learning runs in node");
    assert_eq!(learned.failures.len(), 1);
    assert!(
        learned.failures[0].error.starts_with("SyntaxError"),
        "{:?}",
        learned.failures
    );
    let g = &learned.graph;
    assert!(
        g.signatures
            .contains_key("call(Math; number, number) -> number"),
        "{:?}",
        g.signatures.keys().collect::<Vec<_>>()
    );
    assert!(g
        .signatures
        .contains_key("call({Array.prototype}; {Function.prototype}) -> {Array.prototype}"));
    assert!(g.edges.contains(&protograph::Edge::Property {
        from: "{Map.prototype}".into(),
        to: "number".into(),
        name: "size".into()
    }));
}

#[test]
fn generated_programs_pass_node_check() {
    require_node();
    let text = std::fs::read_to_string(corpus("boa-learned.json")).expect("committed graph");
    let generator = Generator::new(&Graph::from_json(&text).unwrap(), Config::default()).unwrap();
    let dir = std::env::temp_dir().join(format!("protograph-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for seed in 0..20 {
        let path = dir.join(format!("p{seed}.js"));
        std::fs::write(&path, generator.program(seed, 100).render()).unwrap();
        let out = Command::new("node")
            .arg("--check")
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "seed {seed}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
