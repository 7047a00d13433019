//! Engine overhead with cheap in-memory oracles (`cargo bench --bench engine`).
//!
//! Measures wall time and tests per reduction, and the engine's own cost per
//! test: total time minus the time spent inside the oracle, divided by the
//! tests run. The target is under 20 µs per test, and ddmin of 1 MB of bytes
//! under 1 s. A plain `harness = false` main rather than criterion: the
//! figures wanted are per-reduction totals and a derived per-test overhead,
//! not a statistical micro-benchmark of one call.

use std::cell::Cell;
use std::time::{Duration, Instant};

use cargo_reduce::{Candidate, DdminOptions, Reducer};

/// The unit tests' "keep N marker atoms" oracle, over a candidate's parts.
#[path = "../src/engine/testutil/markers.rs"]
mod markers;

/// Deterministic pseudo-random bytes (xorshift), with no 0x00 and no 0xFF.
fn noise(len: usize, mut seed: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % 254) as u8 + 1
        })
        .collect()
}

struct Task {
    name: &'static str,
    input: Vec<u8>,
    oracle: fn(&Candidate<'_, u8>) -> bool,
}

/// `count` 0xFF markers planted in noise (each task is interesting while
/// the candidate keeps at least so many).
fn planted(len: usize, count: usize) -> Vec<u8> {
    let mut v = noise(len, 0x9e37_79b9_7f4a_7c15);
    for k in 0..count {
        let at = (k * 2 + 1) * len / (count * 2 + 1);
        v[at] = 0xff;
    }
    v
}

/// Whether `c` keeps at least `need` of the planted markers.
fn keeps(c: &Candidate<'_, u8>, need: usize) -> bool {
    markers::holds_markers(&c.parts(), |&b| b == 0xff, need)
}

fn tasks() -> Vec<Task> {
    vec![
        Task {
            name: "1 MB, keep 1 marker",
            input: planted(1 << 20, 1),
            oracle: |c| keeps(c, 1),
        },
        Task {
            name: "1 MB, keep 8 markers",
            input: planted(1 << 20, 8),
            oracle: |c| keeps(c, 8),
        },
        Task {
            name: "1 MB, keep 64 markers",
            input: planted(1 << 20, 64),
            oracle: |c| keeps(c, 64),
        },
        Task {
            name: "64 KB, keep 512 markers",
            input: planted(1 << 16, 512),
            oracle: |c| keeps(c, 512),
        },
    ]
}

fn run(task: &Task, options: &DdminOptions, cache: bool) -> (usize, u64, Duration, Duration) {
    thread_local!(static IN_ORACLE: Cell<Duration> = const { Cell::new(Duration::ZERO) });
    IN_ORACLE.with(|t| t.set(Duration::ZERO));
    let f = task.oracle;
    let timed = move |c: &Candidate<'_, u8>| {
        let t = Instant::now();
        let r = f(c);
        IN_ORACLE.with(|acc| acc.set(acc.get() + t.elapsed()));
        r
    };
    let reducer = Reducer::new().cache(cache).ddmin_options(*options);
    let input = task.input.clone();
    let started = Instant::now();
    let result = reducer.ddmin(input, &timed).expect("in-memory oracle");
    let total = started.elapsed();
    (
        result.atoms.len(),
        reducer.tests(),
        total,
        IN_ORACLE.with(|t| t.get()),
    )
}

fn main() {
    // `cargo test --benches` runs this with `--bench` absent: keep it quick.
    let full = std::env::args().any(|a| a == "--bench");
    let tasks = tasks();
    let tasks = if full { &tasks[..] } else { &tasks[..1] };
    println!("| task | variant | result atoms | tests | wall (ms) | engine µs/test |");
    println!("|---|---|---:|---:|---:|---:|");
    // `DdminOptions` is `#[non_exhaustive]`: start from the default.
    let mut with_subsets = DdminOptions::default();
    with_subsets.subsets = true;
    for task in tasks {
        for (variant, options, cache) in [
            ("default", DdminOptions::default(), true),
            ("no cache", DdminOptions::default(), false),
            ("subsets", with_subsets, true),
        ] {
            let (atoms, tests, total, oracle) = run(task, &options, cache);
            let overhead = (total.saturating_sub(oracle)).as_secs_f64() * 1e6 / tests.max(1) as f64;
            println!(
                "| {} | {variant} | {atoms} | {tests} | {:.1} | {overhead:.2} |",
                task.name,
                total.as_secs_f64() * 1e3
            );
        }
    }
}
