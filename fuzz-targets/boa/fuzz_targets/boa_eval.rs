//! `boa_eval`: runs the input as a classic script in a fresh Boa context.
//!
//! The input is JavaScript source (not UTF-8: ignored). Each run gets a new
//! `Context` with runtime limits (loop iterations, recursion depth, VM stack
//! size), evaluates the script, then runs the promise job queue. A JavaScript
//! exception is no failure; a Rust panic inside Boa is, and so is a failed
//! allocation (`Array(2147483647).join()`: Rust aborts, libFuzzer reports a
//! "deadly signal"). A native stack overflow (a very long `0,0,…,0`) kills
//! the process with SIGSEGV before libFuzzer can report or save the input.
//! Slow inputs that no limit covers (`"x".padStart(2147483647, "y")` takes
//! about 20 s) are left to libFuzzer's `-timeout`. Found crashes:
//! `corpus/js/boa-artifacts/`, listed in `bench/protograph/README.md`.
//!
//! Mutation is structure aware: protograph's Prototype Graph mutator and
//! crossover (see `protograph/README.md`), with two environment variables so
//! that one binary serves every configuration of `bench/protograph/run`:
//!
//! - `PROTOGRAPH_GRAPH=PATH`: the graph JSON to generate from (default: the
//!   learned Boa graph, `corpus/js/boa-learned.json`, compiled in);
//! - `PROTOGRAPH_MUTATOR=0`: libFuzzer's own mutations only (the custom
//!   crossover then declines, so libFuzzer picks its default mutators).
#![no_main]

use std::sync::OnceLock;

use boa_engine::Context;
use libfuzzer_sys::{fuzz_crossover, fuzz_mutator, fuzz_target, fuzzer_mutate};
use protograph::{Config, Generator, Graph};

#[path = "../shared/script.rs"]
mod script;

/// The graph used unless `PROTOGRAPH_GRAPH` names another one.
const LEARNED_GRAPH: &str = include_str!("../../../corpus/js/boa-learned.json");

/// The generator, or `None` when `PROTOGRAPH_MUTATOR=0`; built on first use.
fn generator() -> Option<&'static Generator> {
    static GENERATOR: OnceLock<Option<Generator>> = OnceLock::new();
    GENERATOR
        .get_or_init(|| {
            if std::env::var_os("PROTOGRAPH_MUTATOR").is_some_and(|v| v == "0") {
                return None;
            }
            let text = match std::env::var("PROTOGRAPH_GRAPH") {
                Ok(path) => std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("PROTOGRAPH_GRAPH={path}: cannot read: {e}")),
                Err(_) => LEARNED_GRAPH.to_string(),
            };
            let graph = Graph::from_json(&text)
                .unwrap_or_else(|e| panic!("PROTOGRAPH_GRAPH: not a protograph graph: {e}"));
            Some(Generator::new(&graph, Config::default()).expect("the graph compiles"))
        })
        .as_ref()
}

/// A fresh context. The cargo feature `boa-ast` (for the `boa_ast` target)
/// turns on `boa_engine/fuzz`, whose contexts get an instruction budget of 0
/// unless given one; this target sets no budget then.
fn new_context() -> Context {
    #[cfg(feature = "boa-ast")]
    return Context::builder()
        .instructions_remaining(usize::MAX)
        .build()
        .expect("a default context builds");
    #[cfg(not(feature = "boa-ast"))]
    Context::default()
}

fuzz_target!(|data: &[u8]| script::run(new_context(), data));

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    match generator() {
        Some(generator) => {
            protograph::mutate(data, size, max_size, seed, generator, fuzzer_mutate).size
        }
        None => fuzzer_mutate(data, size, max_size),
    }
});

fuzz_crossover!(|a: &[u8], b: &[u8], out: &mut [u8], seed: u32| {
    match generator() {
        Some(_) => protograph::crossover(a, b, out, seed),
        // 0 makes libFuzzer pick another mutator: the custom one, which
        // then runs libFuzzer's default mutations (its CrossOver included).
        None => 0,
    }
});
