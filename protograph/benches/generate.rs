//! Generation and mutation throughput on the committed Boa graph.
//!
//! `cargo bench -p protograph --bench generate` (harness = false: a plain
//! timing loop, so the figure needs no benchmark framework).

use std::time::Instant;

use protograph::{Config, Generator, Graph};

fn main() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/js/boa-learned.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let graph = Graph::from_json(&text).expect("committed graph is valid");
    let generator = Generator::new(&graph, Config::default()).expect("graph compiles");
    let (programs, statements) = (2_000u64, 50usize);
    let start = Instant::now();
    let mut bytes = 0;
    for seed in 0..programs {
        bytes += generator.program(seed, statements).render().len();
    }
    let secs = start.elapsed().as_secs_f64();
    let total = programs as f64 * statements as f64;
    println!(
        "generate: {total} statements in {secs:.3} s = {:.0} statements/s ({:.1} MB/s of source)",
        total / secs,
        bytes as f64 / secs / 1e6
    );

    let mut data = generator.program(1, 20).render().into_bytes();
    let mut size = data.len();
    data.resize(4096, 0);
    let mutations = 20_000u32;
    let start = Instant::now();
    for seed in 0..mutations {
        size = protograph::mutate(&mut data, size, 4096, seed, &generator, |_, s, _| s).size;
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "mutate: {mutations} mutations of <= 4 KiB programs in {secs:.3} s = {:.0} mutations/s",
        f64::from(mutations) / secs
    );
}
