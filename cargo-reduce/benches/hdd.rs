//! `cargo bench --bench hdd`: time to compute Φ for a grammar and to build
//! the HDD tree (parse, arena, transforms) of a 10,000-line Rust file.
//! The target is under 100 ms for both together.

use std::time::{Duration, Instant};

use cargo_reduce::syntax::{build_tree, flatten, squeeze, Lang, Strategy};

/// A 10,000-line Rust file: the inventory example, repeated.
fn input() -> Vec<u8> {
    let unit = include_str!("../../corpus/examples/inventory.rs");
    let lines = unit.lines().count();
    let mut out = String::new();
    for i in 0..10_000 / lines + 1 {
        out.push_str(
            &unit
                .replace("Inventory", &format!("Inventory{i}"))
                .replace("Item", &format!("Item{i}")),
        );
    }
    out.lines()
        .take(10_000)
        .collect::<Vec<_>>()
        .join("\n")
        .into_bytes()
}

fn time<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let started = Instant::now();
    let value = f();
    (value, started.elapsed())
}

fn main() {
    let input = input();
    for lang in [Lang::Rust, Lang::JavaScript] {
        let (_, phi) = time(|| lang.spec().map(|s| s.phis.len()));
        println!(
            "{lang}: Φ for every node kind: {:.1} ms",
            phi.as_secs_f64() * 1e3
        );
    }
    let mut best = Duration::MAX;
    let mut nodes = 0;
    for _ in 0..5 {
        let (tree, took) = time(|| {
            let mut tree = build_tree(&input, Lang::Rust, &Strategy::Hdd.options());
            flatten(&mut tree);
            squeeze(&mut tree);
            tree
        });
        nodes = tree.len();
        best = best.min(took);
    }
    println!(
        "rust: tree of {} lines ({} bytes, {nodes} nodes) with flatten+squeeze: {:.1} ms (best of 5)",
        input.split(|&b| b == b'\n').count(),
        input.len(),
        best.as_secs_f64() * 1e3
    );
}
