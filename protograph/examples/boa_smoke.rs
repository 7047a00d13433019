//! Runs generated programs in Boa, in-process, and reports throughput and
//! any engine panic with the seed that reproduces it (cargo feature `boa`).
//!
//! `cargo run --release -p protograph --features boa --example boa_smoke -- [PROGRAMS] [STATEMENTS] [GRAPH]`
//! runs PROGRAMS generated programs; `… --example boa_smoke -- --time FILE`
//! runs FILE line by line in one context and prints the lines slower than 50 ms;
//! `… --example boa_smoke -- --errors [--feedback] [PROGRAMS] [STATEMENTS] [GRAPH]`
//! runs each generated statement without its `try` (one context per program)
//! and prints how many throw, by error type and message (with `--feedback`,
//! each program repaired by runtime feedback first, as the guided mutator
//! does);
//! `… --example boa_smoke -- --hunt FIRST COUNT [STATEMENTS] [GRAPH]` runs the
//! programs of seeds FIRST.. and prints `seed S` before each and
//! `panic seed S at LOCATION: MESSAGE` for each panic, unbuffered, so that a
//! driver can resume after the seed that aborted the process (a failed
//! allocation or a stack overflow cannot be caught).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use boa_engine::{Context, Source};
use protograph::{feedback, Config, Generator, Graph, Guided};

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().map(String::as_str) == Some("--time") {
        let path = args.nth(1).expect("--time needs a FILE");
        return time_lines(
            &std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}")),
        );
    }
    if args.peek().map(String::as_str) == Some("--hunt") {
        args.next();
        let mut number = |name: &str, default: u64| {
            args.next().map_or(default, |a| {
                a.parse().unwrap_or_else(|_| panic!("{name} is a number"))
            })
        };
        let (first, count, statements) = (
            number("FIRST", 0),
            number("COUNT", 1000),
            number("STATEMENTS", 12),
        );
        let path = args.next().unwrap_or_else(|| {
            concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/js/boa-learned.json").into()
        });
        return hunt(&load(&path), first, count, statements as usize);
    }
    let errors = args.peek().map(String::as_str) == Some("--errors");
    if errors {
        args.next();
    }
    let feedback = errors && args.peek().map(String::as_str) == Some("--feedback");
    if feedback {
        args.next();
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
    let generator = load(&path);
    if errors {
        let mut guided = feedback.then(|| {
            let graph = Graph::from_json(&std::fs::read_to_string(&path).expect("graph readable"))
                .expect("valid graph");
            Guided::new(&graph, Config::default(), feedback::Boa).expect("graph compiles")
        });
        let program = |seed| match &mut guided {
            Some(guided) => guided.program(seed, statements),
            None => generator.program(seed, statements),
        };
        return count_errors(program, programs);
    }
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

/// Runs every statement of the programs of seeds `0..programs` unwrapped,
/// one context per program, and prints the share that throws, by error.
fn count_errors(mut program: impl FnMut(u64) -> protograph::Program, programs: u64) {
    use std::collections::HashMap;
    let mut by_error: HashMap<String, usize> = HashMap::new();
    let (mut total, mut threw) = (0usize, 0usize);
    for seed in 0..programs {
        let program = program(seed);
        let mut context = limited_context();
        for stmt in program.stmts.iter().filter(|s| s.is_generated()) {
            total += 1;
            let mut source = String::new();
            stmt.write_action(&mut source);
            if let Err(e) = context.eval(Source::from_bytes(&source)) {
                threw += 1;
                let text = e.to_string();
                let digits_out: String = text
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .chars()
                    .map(|c| if c.is_ascii_digit() { 'N' } else { c })
                    .take(70)
                    .collect();
                *by_error.entry(digits_out).or_default() += 1;
            }
        }
    }
    println!(
        "{total} statements, {threw} threw ({:.1} %)",
        100.0 * threw as f64 / total.max(1) as f64
    );
    let mut rows: Vec<_> = by_error.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    for (error, count) in rows.iter().take(30) {
        println!("{count:6} {error}");
    }
}

/// The generator for the graph at `path`.
fn load(path: &str) -> Generator {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read graph {path}: {e}"));
    Generator::new(
        &Graph::from_json(&text).expect("valid graph"),
        Config::default(),
    )
    .expect("graph compiles")
}

/// Runs the programs of seeds `first..first + count` as `boa_eval` would
/// and reports each panic's location as it happens.
fn hunt(generator: &Generator, first: u64, count: u64, statements: usize) {
    use std::io::Write;
    use std::sync::Mutex;
    static LAST: Mutex<String> = Mutex::new(String::new());
    std::panic::set_hook(Box::new(|info| {
        let location = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
            .unwrap_or_default();
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        *LAST.lock().unwrap_or_else(|e| e.into_inner()) = format!("{location}: {message}");
    }));
    let mut out = std::io::stdout().lock();
    for seed in first..first + count {
        let _ = writeln!(out, "seed {seed}");
        let _ = out.flush();
        let source = generator.program(seed, statements).render();
        let run = catch_unwind(AssertUnwindSafe(|| {
            let mut context = limited_context();
            context.runtime_limits_mut().set_stack_size_limit(10 * 1024);
            let _ = context.eval(Source::from_bytes(&source));
            let _ = context.run_jobs();
        }));
        if run.is_err() {
            let last = LAST.lock().unwrap_or_else(|e| e.into_inner()).clone();
            let _ = writeln!(out, "panic seed {seed} at {last}");
        }
    }
}
