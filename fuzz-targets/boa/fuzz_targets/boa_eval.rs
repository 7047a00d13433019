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
//! its type-aware splice as the crossover (see `protograph/README.md`), with two environment variables so
//! that one binary serves every configuration of `bench/protograph/run`:
//!
//! - `PROTOGRAPH_GRAPH=PATH`: the graph JSON to generate from (default: the
//!   learned Boa graph, `corpus/js/boa-learned.json`, compiled in);
//! - `PROTOGRAPH_MUTATOR=0`: libFuzzer's own mutations only (the custom
//!   crossover then declines, so libFuzzer picks its default mutators);
//! - `PROTOGRAPH_FEEDBACK=0`: the graph mutator without runtime feedback
//!   (by default each mutant is run in Boa statement by statement first,
//!   the statements that threw regenerated and the needless `try`s dropped;
//!   see `protograph::feedback`);
//! - `PROTOGRAPH_SNIPPETS=PATH`: statements from foreign tests (test262) to
//!   splice in typed by the graph, as `protograph snippets` writes them;
//! - `PROTOGRAPH_OBSERVING=PATH`: where the feedback writes each program
//!   before it runs it (see below).
//!
//! Runtime feedback runs Boa inside the mutator: a failure it meets there
//! (a panic, a failed allocation) stops libFuzzer during mutation, and the
//! input libFuzzer saves is then the one being mutated, not the mutant
//! (often empty). With `PROTOGRAPH_OBSERVING` the mutant is in that file:
//! `bench/protograph/campaign` takes it as the failure's input. libFuzzer's
//! `-timeout` does not cover the mutator, so a watchdog aborts the process
//! when one feedback run takes longer than `OBSERVE_TIMEOUT` (a builtin
//! looping natively, which no runtime limit stops: `"1".match(1n)` after
//! `RegExp.prototype.global` is made truthy loops for ever, as the spec
//! says), rather than let fuzzing stall.
#![no_main]

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use boa_engine::Context;
use libfuzzer_sys::{fuzz_crossover, fuzz_mutator, fuzz_target, fuzzer_mutate};
use protograph::{
    feedback, Config, Generator, Graph, Guided, Observation, Observe, Program, Snippets,
};

#[path = "../shared/script.rs"]
mod script;

/// The graph used unless `PROTOGRAPH_GRAPH` names another one.
const LEARNED_GRAPH: &str = include_str!("../../../corpus/js/boa-learned.json");

/// protograph's mutator in one of its two forms.
enum Mutator {
    Plain(Generator),
    Guided(Box<Guided<Recording>>),
}

/// Boa as the feedback's observer, writing each program to `path` first
/// (`PROTOGRAPH_OBSERVING`), so that a crash in the mutator leaves its input.
struct Recording {
    path: Option<PathBuf>,
}

impl Observe for Recording {
    fn observe(&mut self, program: &Program) -> Vec<Observation> {
        if let Some(path) = &self.path {
            // Best effort: a failed write loses only a crash's input.
            let _ = std::fs::write(path, program.render());
        }
        start_watchdog();
        OBSERVING_SINCE.store(now_ms(), Ordering::SeqCst);
        let seen = feedback::Boa.observe(program);
        OBSERVING_SINCE.store(0, Ordering::SeqCst);
        seen
    }
}

/// The longest one feedback run may take, as libFuzzer's `-timeout=10` of
/// the benchmarks for the target's own run.
const OBSERVE_TIMEOUT: Duration = Duration::from_secs(10);

/// When the running feedback run started (ms since the epoch), 0 if none.
static OBSERVING_SINCE: AtomicU64 = AtomicU64::new(0);

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// A thread that aborts the process when a feedback run overruns
/// `OBSERVE_TIMEOUT`; started once.
fn start_watchdog() {
    static STARTED: OnceLock<()> = OnceLock::new();
    STARTED.get_or_init(|| {
        std::thread::spawn(|| loop {
            std::thread::sleep(Duration::from_secs(1));
            let since = OBSERVING_SINCE.load(Ordering::SeqCst);
            if since != 0 && now_ms().saturating_sub(since) > OBSERVE_TIMEOUT.as_millis() as u64 {
                eprintln!(
                    "protograph::feedback: timeout: a program ran longer than {} s in the mutator (its input: PROTOGRAPH_OBSERVING)",
                    OBSERVE_TIMEOUT.as_secs()
                );
                std::process::abort();
            }
        });
    });
}

/// The snippets `PROTOGRAPH_SNIPPETS` names, or none.
fn snippets() -> Snippets {
    let Some(path) = std::env::var_os("PROTOGRAPH_SNIPPETS") else {
        return Snippets::default();
    };
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("PROTOGRAPH_SNIPPETS={}: cannot read: {e}", path.display()));
    Snippets::from_json(&text).unwrap_or_else(|e| panic!("PROTOGRAPH_SNIPPETS: {e}"))
}

/// The mutator, or `None` when `PROTOGRAPH_MUTATOR=0`; built on first use.
fn mutator() -> Option<&'static Mutex<Mutator>> {
    static MUTATOR: OnceLock<Option<Mutex<Mutator>>> = OnceLock::new();
    MUTATOR
        .get_or_init(|| {
            let off = |name: &str| std::env::var_os(name).is_some_and(|v| v == "0");
            if off("PROTOGRAPH_MUTATOR") {
                return None;
            }
            let text = match std::env::var("PROTOGRAPH_GRAPH") {
                Ok(path) => std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("PROTOGRAPH_GRAPH={path}: cannot read: {e}")),
                Err(_) => LEARNED_GRAPH.to_string(),
            };
            let graph = Graph::from_json(&text)
                .unwrap_or_else(|e| panic!("PROTOGRAPH_GRAPH: not a protograph graph: {e}"));
            let generator = Generator::new(&graph, Config::default())
                .expect("the graph compiles")
                .with_snippets(snippets());
            let mutator = if off("PROTOGRAPH_FEEDBACK") {
                Mutator::Plain(generator)
            } else {
                let path = std::env::var_os("PROTOGRAPH_OBSERVING").map(PathBuf::from);
                Mutator::Guided(Box::new(Guided::with_generator(
                    generator,
                    &graph,
                    Recording { path },
                )))
            };
            Some(Mutex::new(mutator))
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

fuzz_target!(|data: &[u8]| script::run(&mut new_context(), data));

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    let Some(mutator) = mutator() else {
        return fuzzer_mutate(data, size, max_size);
    };
    match &mut *mutator.lock().unwrap_or_else(|e| e.into_inner()) {
        Mutator::Plain(generator) => {
            protograph::mutate(data, size, max_size, seed, generator, fuzzer_mutate).size
        }
        Mutator::Guided(guided) => {
            guided
                .mutate(data, size, max_size, seed, fuzzer_mutate)
                .size
        }
    }
});

fuzz_crossover!(|a: &[u8], b: &[u8], out: &mut [u8], seed: u32| {
    let Some(mutator) = mutator() else {
        // 0 makes libFuzzer pick another mutator: the custom one, which
        // then runs libFuzzer's default mutations (its CrossOver included).
        return 0;
    };
    match &*mutator.lock().unwrap_or_else(|e| e.into_inner()) {
        Mutator::Plain(generator) => protograph::splice(a, b, out, seed, generator),
        Mutator::Guided(guided) => protograph::splice(a, b, out, seed, guided.generator()),
    }
});
