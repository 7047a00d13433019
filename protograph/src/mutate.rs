//! A structure-aware custom mutator for libFuzzer.
//!
//! Inputs are programs in generated form (see [`crate::program`]). Each call
//! parses the input, applies one graph-guided mutation and writes the result
//! back, never past `max_size`. Some calls defer to libFuzzer's own byte-level
//! mutation, passed in as a closure so that this crate does not depend on
//! libfuzzer-sys; lines those mutations break are kept verbatim.
//!
//! ```ignore
//! fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
//!     protograph::mutate(data, size, max_size, seed, generator(), |d, s, m| {
//!         libfuzzer_sys::fuzzer_mutate(d, s, m)
//!     })
//!     .size
//! });
//! ```
//!
//! The AFL++ custom mutator (`protograph-afl`) calls the same function, with
//! a splice of another queue entry as the fallback.

use crate::gen::{Generator, Walk};
use crate::program::{parse_program, Expr, Program, Stmt};
use crate::rng::Rng;

/// Statements in a program made from nothing (an empty or unusable input).
const FRESH_STATEMENTS: usize = 8;

/// What one call of [`mutate`] did. The graph-guided mutations are chosen
/// uniformly; `Fresh` and `Fallback` are the two ways around them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mutation {
    /// A new statement at the end.
    Append,
    /// A new statement at a random position.
    Insert,
    /// A statement replaced by a new one.
    Replace,
    /// A sub-expression replaced by a new value of its type.
    Regenerate,
    /// A statement removed.
    Delete,
    /// Up to four statements copied elsewhere.
    Duplicate,
    /// A statement from a foreign test inserted, its variables filled by
    /// type (only with [`Generator::with_snippets`]).
    Foreign,
    /// A new program: the input held no usable statement.
    Fresh,
    /// The caller's fallback mutation (byte-level, or a splice).
    Fallback,
}

impl Mutation {
    /// A short lowercase name, safe in file names (AFL++ puts it in the
    /// names of the inputs it keeps).
    pub fn name(self) -> &'static str {
        match self {
            Mutation::Append => "append",
            Mutation::Insert => "insert",
            Mutation::Replace => "replace",
            Mutation::Regenerate => "regenerate",
            Mutation::Delete => "delete",
            Mutation::Duplicate => "duplicate",
            Mutation::Foreign => "foreign",
            Mutation::Fresh => "fresh",
            Mutation::Fallback => "fallback",
        }
    }
}

/// The result of [`mutate`]: the new size and the mutation applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mutated {
    /// The size of the mutant, at the start of the buffer.
    pub size: usize,
    /// How it was made.
    pub mutation: Mutation,
}

const MUTATIONS: [Mutation; 6] = [
    Mutation::Append,
    Mutation::Insert,
    Mutation::Replace,
    Mutation::Regenerate,
    Mutation::Delete,
    Mutation::Duplicate,
];

/// Mutates the program in `data[..size]` in place and returns its new size,
/// at most `max_size` (and `data.len()`), with the mutation applied. The
/// result depends only on the input, `seed` and the generator. About one call
/// in ten is handed to `fallback(data, size, max_size)` (libFuzzer's
/// `fuzzer_mutate`), whose answer is returned as is.
pub fn mutate(
    data: &mut [u8],
    size: usize,
    max_size: usize,
    seed: u32,
    generator: &Generator,
    fallback: impl FnOnce(&mut [u8], usize, usize) -> usize,
) -> Mutated {
    mutate_with(data, size, max_size, seed, fallback, |rng, program| {
        edit(generator, rng, program)
    })
}

/// The frame of every mutation: the fallback one call in ten, else parse,
/// `edit` the program (which says what it did), renumber and write back.
pub(crate) fn mutate_with(
    data: &mut [u8],
    size: usize,
    max_size: usize,
    seed: u32,
    fallback: impl FnOnce(&mut [u8], usize, usize) -> usize,
    edit: impl FnOnce(&mut Rng, &mut Program) -> Mutation,
) -> Mutated {
    let max_size = max_size.min(data.len());
    let size = size.min(max_size);
    let mut rng = Rng::new(u64::from(seed));
    if size > 0 && rng.chance(1, 10) {
        let size = fallback(data, size, max_size).min(max_size);
        return Mutated {
            size,
            mutation: Mutation::Fallback,
        };
    }
    let mut program = parse_program(&String::from_utf8_lossy(&data[..size]));
    let mutation = edit(&mut rng, &mut program);
    program.renumber();
    Mutated {
        size: write_within(&mut program, data, max_size),
        mutation,
    }
}

/// One graph-guided mutation of `program`, or a fresh program when it holds
/// no generated statement.
pub(crate) fn edit(generator: &Generator, rng: &mut Rng, program: &mut Program) -> Mutation {
    if !program.stmts.iter().any(Stmt::is_generated) {
        *program = generator.program(rng.next_u64(), FRESH_STATEMENTS);
        return Mutation::Fresh;
    }
    let foreign = !generator.snippets.is_empty() && rng.chance(1, MUTATIONS.len() + 1);
    if foreign && insert_foreign(generator, rng, program) {
        return Mutation::Foreign;
    }
    let mutation = *rng.pick(&MUTATIONS);
    apply(generator, rng, program, mutation);
    mutation
}

/// Inserts a statement spliced from a foreign test at a random position;
/// false when no snippet fits there.
fn insert_foreign(generator: &Generator, rng: &mut Rng, program: &mut Program) -> bool {
    let at = rng.below(program.stmts.len() + 1);
    let mut vars = generator.var_types(program);
    vars.truncate(at);
    match generator.foreign_statement(rng, &mut vars) {
        Some(stmt) => {
            program.stmts.insert(at, stmt);
            true
        }
        None => false,
    }
}

/// Splices two programs for libFuzzer's `fuzz_crossover!`: a prefix of `a`
/// followed by a suffix of `b`, written to `out` (at most `out.len()` bytes).
/// Returns the size written.
pub fn crossover(a: &[u8], b: &[u8], out: &mut [u8], seed: u32) -> usize {
    let mut rng = Rng::new(u64::from(seed));
    let a = parse_program(&String::from_utf8_lossy(a));
    let mut b = parse_program(&String::from_utf8_lossy(b));
    // Move b's variables out of a's way before joining; renumber() then
    // makes the numbering dense again.
    let offset = a.stmts.len() as u32 + 1;
    for stmt in &mut b.stmts {
        stmt.shift_vars(offset);
    }
    let cut_a = rng.below(a.stmts.len() + 1);
    let cut_b = rng.below(b.stmts.len() + 1);
    let mut joined = Program {
        stmts: a.stmts[..cut_a].to_vec(),
    };
    joined.stmts.extend_from_slice(&b.stmts[cut_b..]);
    joined.renumber();
    let max = out.len();
    write_within(&mut joined, out, max)
}

fn apply(generator: &Generator, rng: &mut Rng, program: &mut Program, mutation: Mutation) {
    let n = program.stmts.len();
    let at = rng.below(n.max(1));
    match mutation {
        Mutation::Append => {
            let stmt = new_statement(generator, rng, program, n);
            program.stmts.push(stmt);
        }
        Mutation::Insert => {
            let stmt = new_statement(generator, rng, program, at);
            program.stmts.insert(at, stmt);
        }
        Mutation::Replace => {
            program.stmts[at] = new_statement(generator, rng, program, at);
        }
        Mutation::Regenerate => regenerate(generator, rng, program, at),
        Mutation::Delete => {
            program.stmts.remove(at);
        }
        Mutation::Duplicate => {
            let len = 1 + rng.below((n - at).min(4));
            let copy: Vec<Stmt> = program.stmts[at..at + len].to_vec();
            let to = rng.below(n + 1);
            program.stmts.splice(to..to, copy);
        }
        // Not in MUTATIONS: `mutate` decides these before `apply`.
        Mutation::Fresh | Mutation::Fallback | Mutation::Foreign => {}
    }
}

/// A fresh statement that may use the variables defined before position `at`.
fn new_statement(generator: &Generator, rng: &mut Rng, program: &Program, at: usize) -> Stmt {
    let mut vars = generator.var_types(program);
    vars.truncate(at);
    generator.statement(rng, &mut vars)
}

/// Replaces a random sub-expression of statement `at` by a new value of the
/// same type (any type if the graph cannot tell).
fn regenerate(generator: &Generator, rng: &mut Rng, program: &mut Program, at: usize) {
    let mut vars = generator.var_types(program);
    vars.truncate(at);
    let is_def = matches!(program.stmts[at], Stmt::Def { .. });
    let mut exprs = program.stmts[at].exprs_mut();
    if exprs.is_empty() {
        return;
    }
    let expr = exprs.swap_remove(rng.below(exprs.len()));
    let node = rng.below(expr.size());
    let target = expr.nth_mut(node).expect("node is within size");
    let ty = generator.index.type_of(target, &vars);
    let mut walk = Walk {
        index: &generator.index,
        config: &generator.config,
        rng,
        vars: &vars,
    };
    *target = match ty {
        Some(t) => walk.value(t, generator.config.max_depth),
        None => walk.any(generator.config.max_depth),
    };
    if matches!(target, Expr::This) && node == 0 && is_def {
        // A whole statement reduced to `this` is dull: make a call instead.
        program.stmts[at] = new_statement(generator, rng, program, at);
    }
}

/// Writes `program` into `data[..max_size]`, dropping statements from the end
/// until it fits. Returns the size written.
pub(crate) fn write_within(program: &mut Program, data: &mut [u8], max_size: usize) -> usize {
    let mut text = program.render();
    while text.len() > max_size && !program.stmts.is_empty() {
        program.stmts.pop();
        text = program.render();
    }
    let len = text.len().min(max_size);
    data[..len].copy_from_slice(&text.as_bytes()[..len]);
    len
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::figure1;
    use crate::gen::Config;
    use proptest::prelude::*;

    fn generator() -> Generator {
        Generator::new(&figure1(), Config::default()).unwrap()
    }

    fn run(input: &[u8], max_size: usize, seed: u32) -> Vec<u8> {
        let mut data = input.to_vec();
        data.resize(max_size.max(input.len()), 0);
        let n = mutate(
            &mut data,
            input.len(),
            max_size,
            seed,
            &generator(),
            |_, size, _| size,
        )
        .size;
        assert!(n <= max_size);
        data.truncate(n);
        data
    }

    #[test]
    fn empty_input_grows_a_program() {
        let out = run(b"", 4096, 1);
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("try { var v0 = "), "{text}");
        assert_eq!(parse_program(&text).render(), text);
    }

    #[test]
    fn reports_the_mutation_applied() {
        let g = generator();
        let input = g.program(5, 6).render().into_bytes();
        let mut seen = std::collections::HashSet::new();
        for seed in 0..200 {
            let mut data = input.clone();
            data.resize(4096, 0);
            let out = mutate(&mut data, input.len(), 4096, seed, &g, |_, _, _| 7);
            if out.mutation == Mutation::Fallback {
                assert_eq!(out.size, 7);
            }
            seen.insert(out.mutation);
        }
        assert_eq!(seen.len(), MUTATIONS.len() + 1, "{seen:?}");
        let mut empty = vec![0; 4096];
        let fresh = mutate(&mut empty, 0, 4096, 1, &g, |_, s, _| s);
        assert_eq!(fresh.mutation, Mutation::Fresh);
    }

    #[test]
    fn same_seed_same_mutant() {
        let input = generator().program(5, 6).render().into_bytes();
        for seed in 0..50 {
            assert_eq!(run(&input, 4096, seed), run(&input, 4096, seed));
        }
    }

    #[test]
    fn mutants_stay_in_generated_form() {
        let mut input = generator().program(9, 6).render().into_bytes();
        for seed in 0..300 {
            input = run(&input, 2048, seed);
            let text = String::from_utf8(input.clone()).unwrap();
            assert!(
                parse_program(&text).stmts.iter().all(Stmt::is_generated),
                "{text}"
            );
        }
    }

    #[test]
    fn foreign_statements_are_spliced_typed_when_there_are_snippets() {
        let snippet = crate::Snippet {
            expr: "v1048576.set(v1048577, 1)".into(),
            holes: vec![vec!["set".into()], vec![]],
            file: "t.js".into(),
        };
        let g = Generator::new(&crate::fixtures::learned(), Config::default())
            .unwrap()
            .with_snippets(crate::Snippets::new(vec![snippet]).unwrap());
        let input = "try { var v0 = new (this.Map)(); } catch (e) {}\n";
        let mut foreign = 0;
        for seed in 0..300 {
            let mut data = input.as_bytes().to_vec();
            data.resize(4096, 0);
            let out = mutate(&mut data, input.len(), 4096, seed, &g, |_, s, _| s);
            let text = std::str::from_utf8(&data[..out.size]).unwrap();
            let p = parse_program(text);
            assert!(p.stmts.iter().all(Stmt::is_generated), "{text}");
            assert!(!text.contains("v1048576"), "{text}");
            foreign += usize::from(out.mutation == Mutation::Foreign);
            if out.mutation == Mutation::Foreign {
                assert!(text.contains(".set("), "{text}");
            }
        }
        assert!(foreign > 0);
        // Without snippets the mutation never comes up.
        let plain = generator();
        let input = plain.program(5, 6).render().into_bytes();
        for seed in 0..100 {
            let mut data = input.clone();
            data.resize(4096, 0);
            let out = mutate(&mut data, input.len(), 4096, seed, &plain, |_, s, _| s);
            assert_ne!(out.mutation, Mutation::Foreign);
        }
    }

    #[test]
    fn crossover_joins_and_renumbers() {
        let g = generator();
        let (a, b) = (g.program(1, 5).render(), g.program(2, 5).render());
        let mut out = vec![0; 4096];
        let n = crossover(a.as_bytes(), b.as_bytes(), &mut out, 3);
        let text = std::str::from_utf8(&out[..n]).unwrap();
        let p = parse_program(text);
        for (i, s) in p.stmts.iter().enumerate() {
            assert!(s.defines().is_none_or(|var| var == i as u32), "{text}");
        }
    }

    proptest! {
        #[test]
        fn never_exceeds_max_size(input in proptest::collection::vec(any::<u8>(), 0..300), max in 0usize..400, seed: u32) {
            let mut data = input.clone();
            data.resize(input.len().max(max), 0);
            let size = input.len().min(max);
            let n = mutate(&mut data, size, max, seed, &generator(), |_, s, _| s).size;
            prop_assert!(n <= max);
        }
    }
}
