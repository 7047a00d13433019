//! Runs generated programs in Boa, in-process, and reports throughput and
//! any engine panic with the seed that reproduces it (cargo feature `boa`).
//!
//! `cargo run --release -p protograph --features boa --example boa_smoke -- [PROGRAMS] [STATEMENTS] [GRAPH]`
//! runs PROGRAMS generated programs; `… --example boa_smoke -- --time FILE`
//! runs FILE line by line in one context and prints the lines slower than 50 ms.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use boa_engine::{Context, Source};
use protograph::{Config, Generator, Graph};

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().map(String::as_str) == Some("--time") {
        let path = args.nth(1).expect("--time needs a FILE");
        return time_lines(
            &std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}")),
        );
    }
    let programs: u64 = args
        .next()
        .map_or(200, |a| a.parse().expect("PROGRAMS is a number"));
    let statements: usize = args
        .next()
        .map_or(50, |a| a.parse().expect("STATEMENTS is a number"));
    let path = args.next().unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/js/boa-learned.json").into()
    });
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read graph {path}: {e}"));
    let generator = Generator::new(
        &Graph::from_json(&text).expect("valid graph"),
        Config::default(),
    )
    .expect("graph compiles");
    std::panic::set_hook(Box::new(|_| {}));
    let (mut completed, mut threw, mut panicked) = (0, 0, Vec::new());
    let mut slowest = (0.0f64, 0u64);
    let start = Instant::now();
    for seed in 0..programs {
        let source = generator.program(seed, statements).render();
        let started = Instant::now();
        let run = catch_unwind(AssertUnwindSafe(|| {
            let mut context = Context::default();
            context
                .runtime_limits_mut()
                .set_loop_iteration_limit(100_000);
            context.runtime_limits_mut().set_recursion_limit(400);
            context.eval(Source::from_bytes(&source)).is_ok()
        }));
        let secs = started.elapsed().as_secs_f64();
        if secs > slowest.0 {
            slowest = (secs, seed);
        }
        match run {
            Ok(true) => completed += 1,
            Ok(false) => threw += 1,
            Err(_) => panicked.push(seed),
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{programs} programs x {statements} statements in {secs:.2} s ({:.0} statements/s): \
         {completed} completed, {threw} threw past try/catch, {} panicked",
        (programs as f64) * (statements as f64) / secs,
        panicked.len()
    );
    println!("slowest: seed {} took {:.0} ms", slowest.1, slowest.0 * 1e3);
    for seed in panicked.iter().take(20) {
        println!("panic: protograph generate --graph {path} -n {statements} --seed {seed}");
    }
}

/// A fresh context with loop and recursion limits, as a fuzz target would use.
fn limited_context() -> Context {
    let mut context = Context::default();
    context
        .runtime_limits_mut()
        .set_loop_iteration_limit(100_000);
    context.runtime_limits_mut().set_recursion_limit(400);
    context
}

fn time_lines(source: &str) {
    let mut context = limited_context();
    for (n, line) in source.lines().enumerate() {
        let started = Instant::now();
        let _ = context.eval(Source::from_bytes(line));
        let ms = started.elapsed().as_secs_f64() * 1e3;
        if ms > 50.0 {
            println!("line {}: {ms:.0} ms: {line}", n + 1);
        }
    }
}
