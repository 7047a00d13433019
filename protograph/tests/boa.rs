//! Discovery and learning in Boa (cargo feature `boa`), checked against the
//! graphs committed in `corpus/js/`, so those stay what this code produces.
#![cfg(feature = "boa")]

use std::path::{Path, PathBuf};

use protograph::engine::Boa;
use protograph::{discover, learn, Graph, TestFile};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/js")
}

fn committed(file: &str) -> Graph {
    let path = corpus().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Graph::from_json(&text).unwrap()
}

const REGENERATE: &str = "regenerate it as corpus/js/README.md says";

#[test]
fn discovery_matches_the_committed_graph() {
    let graph = discover(&Boa).expect("discovery runs in boa");
    let stats = graph.stats();
    assert!(
        stats.objects > 450 && stats.callables > 400 && stats.properties > 1400,
        "{stats}"
    );
    assert!(
        graph == committed("boa-discovered.json"),
        "boa-discovered.json is stale: {REGENERATE}"
    );
}

#[test]
fn learning_from_the_corpus_matches_the_committed_graph() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus().join("tests"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let tests: Vec<TestFile> = files
        .iter()
        .map(|p| TestFile {
            name: p.display().to_string(),
            source: std::fs::read_to_string(p).unwrap(),
        })
        .collect();
    let learned = learn(&Boa, &tests).expect("learning runs in boa");
    assert_eq!(learned.failures, vec![], "every corpus test passes in boa");
    let mut graph = committed("boa-discovered.json");
    graph.merge(&learned.graph).unwrap();
    assert!(
        graph == committed("boa-learned.json"),
        "boa-learned.json is stale: {REGENERATE}"
    );
}
