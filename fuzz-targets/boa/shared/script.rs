//! Running one input as JavaScript in Boa, shared by the libFuzzer target
//! (`fuzz_targets/boa_eval.rs`) and the afl.rs one
//! (`fuzz-targets-afl/boa/src/bin/boa_eval.rs`) through `#[path]`, so that
//! both engines fuzz exactly the same program and their coverage compares.

use boa_engine::{Context, Source};

/// Loop iterations per loop before Boa throws a `RuntimeLimit` error.
const LOOP_ITERATIONS: u64 = 100_000;
/// Nested calls before Boa throws (its default is 512).
const RECURSION: usize = 400;
/// VM value-stack entries before Boa throws (its default is 10 * 1024).
const STACK_SIZE: usize = 10 * 1024;

/// Runs `data` as a classic script in `context`, then the promise job queue.
/// Input that is not UTF-8 is ignored; a JavaScript exception is no failure.
pub fn run(context: &mut Context, data: &[u8]) {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    let limits = context.runtime_limits_mut();
    limits.set_loop_iteration_limit(LOOP_ITERATIONS);
    limits.set_recursion_limit(RECURSION);
    limits.set_stack_size_limit(STACK_SIZE);
    let _ = context.eval(Source::from_bytes(source));
    let _ = context.run_jobs();
}
