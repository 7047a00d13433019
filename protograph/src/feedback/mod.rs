//! Runtime feedback: run each program in the engine, note which statements
//! throw and what type each variable turned out to have, and use it.
//!
//! [`Guided`] wraps a [`Generator`] and an [`Observe`]r (Boa in-process,
//! `feedback::Boa` with the cargo feature `boa`). After each graph-guided mutation
//! it runs the program statement by statement and
//!
//! * regenerates the statements that threw (a receiver that turned out
//!   `undefined`, a wrong argument), for a few rounds, with the variables
//!   typed as observed rather than as the graph guessed;
//! * drops the `try` of every statement that ran without throwing, and keeps
//!   it on those that still throw;
//! * merges the signatures it saw into the graph (a call whose result had a
//!   type the graph did not predict), recompiling the generator now and
//!   then.
//!
//! Fuzzilli does the same by running every sample and reverting mutations
//! that make it throw; here the statements that throw are replaced rather
//! than the mutation reverted, since a statement is a whole graph walk.

#[cfg(feature = "boa")]
mod boa;
mod learn;

#[cfg(feature = "boa")]
pub use boa::Boa;

use crate::gen::Generator;
use crate::index::Ty;
use crate::mutate::{edit, mutate_with, Mutated};
use crate::program::Program;
use crate::rng::Rng;
use crate::{Config, Error, Graph};

/// Rounds of regenerating the statements that threw, after a mutation.
const REPAIR_ROUNDS: usize = 2;

/// What running one statement showed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Observation {
    /// The statement threw (without its `try`).
    pub threw: bool,
    /// The graph type id of the variable it defines, as observed
    /// (`{Map.prototype}`, `number`), when it defines one and did not throw.
    pub ty: Option<String>,
}

/// Runs programs and reports, for each statement in order, what happened.
pub trait Observe {
    /// One observation per statement of `program` (raw lines included),
    /// running each statement without its `try`, in one fresh realm.
    fn observe(&mut self, program: &Program) -> Vec<Observation>;
}

/// Counts of what the feedback saw and did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FeedbackStats {
    /// Programs observed (a mutation observes one to three times).
    pub observed: u64,
    /// Statements run, in the last observation of each mutant.
    pub statements: u64,
    /// Of those, statements that threw.
    pub threw: u64,
    /// Statements regenerated because they threw.
    pub regenerated: u64,
    /// Signatures merged into the graph.
    pub merged: u64,
}

/// A generator steered by runtime feedback (see the module docs).
pub struct Guided<O: Observe> {
    generator: Generator,
    graph: Graph,
    observer: O,
    learned: learn::Pending,
    stats: FeedbackStats,
}

impl<O: Observe> Guided<O> {
    /// A guided generator for `graph` (compiled with `config`) observing
    /// with `observer`.
    pub fn new(graph: &Graph, config: Config, observer: O) -> Result<Self, Error> {
        Ok(Guided::with_generator(
            Generator::new(graph, config)?,
            graph,
            observer,
        ))
    }

    /// A guided generator around `generator` (compiled from `graph`, and
    /// with its snippets) observing with `observer`.
    pub fn with_generator(generator: Generator, graph: &Graph, observer: O) -> Self {
        Guided {
            generator,
            graph: graph.clone(),
            observer,
            learned: learn::Pending::default(),
            stats: FeedbackStats::default(),
        }
    }

    /// The generator, with every signature merged so far.
    pub fn generator(&self) -> &Generator {
        &self.generator
    }

    /// The graph, with every signature merged so far.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// What the feedback has seen and done so far.
    pub fn stats(&self) -> FeedbackStats {
        self.stats
    }

    /// [`crate::mutate`], then repair of the mutant by runtime feedback.
    pub fn mutate(
        &mut self,
        data: &mut [u8],
        size: usize,
        max_size: usize,
        seed: u32,
        fallback: impl FnOnce(&mut [u8], usize, usize) -> usize,
    ) -> Mutated {
        mutate_with(data, size, max_size, seed, fallback, |rng, program| {
            let mutation = edit(&self.generator, rng, program);
            program.renumber();
            self.repair(program, rng);
            mutation
        })
    }

    /// A program of `statements` statements for `seed`, repaired.
    pub fn program(&mut self, seed: u64, statements: usize) -> Program {
        let mut program = self.generator.program(seed, statements);
        self.repair(&mut program, &mut Rng::new(seed ^ 0x5eed));
        program
    }

    /// Observes `program` and regenerates the statements that threw, for
    /// two rounds; then sets each statement's `try` to whether
    /// it threw in the last observation. `program` must be renumbered.
    /// Returns the last observation.
    pub fn repair_program(&mut self, program: &mut Program, seed: u64) -> Vec<Observation> {
        self.repair(program, &mut Rng::new(seed))
    }

    fn repair(&mut self, program: &mut Program, rng: &mut Rng) -> Vec<Observation> {
        let mut round = 0;
        loop {
            let seen = self.observe(program);
            let threw: Vec<usize> = (0..program.stmts.len())
                .filter(|&i| program.stmts[i].is_generated() && seen[i].threw)
                .collect();
            if threw.is_empty() || round == REPAIR_ROUNDS {
                self.count(&seen);
                set_guards(program, &seen);
                return seen;
            }
            for i in threw {
                let mut vars = self.observed_types(program, &seen);
                vars.truncate(i);
                program.stmts[i] = self.generator.statement(rng, &mut vars);
                self.stats.regenerated += 1;
            }
            round += 1;
        }
    }

    fn observe(&mut self, program: &Program) -> Vec<Observation> {
        let mut seen = self.observer.observe(program);
        seen.resize(program.stmts.len(), Observation::default());
        self.stats.observed += 1;
        let vars = self.generator.var_types(program);
        if self
            .learned
            .note(&self.generator.index, program, &vars, &seen)
        {
            self.merge_learned();
        }
        seen
    }

    /// Merges the pending signatures and recompiles the generator.
    fn merge_learned(&mut self) {
        let delta = self.learned.take();
        let mut graph = self.graph.clone();
        if graph.merge(&delta).is_err() {
            return;
        }
        if let Ok(generator) = Generator::new(&graph, self.generator.config.clone()) {
            let generator = Generator {
                snippets: self.generator.snippets.clone(),
                ..generator
            };
            self.stats.merged += (graph.signatures.len() - self.graph.signatures.len()) as u64;
            self.generator = generator;
            self.graph = graph;
        }
    }

    /// The variables' types: as observed where the observation names a type
    /// of the graph, else as the graph tells.
    fn observed_types(&self, program: &Program, seen: &[Observation]) -> Vec<Option<Ty>> {
        let index = &self.generator.index;
        self.generator
            .var_types(program)
            .into_iter()
            .zip(seen)
            .map(|(guess, o)| o.ty.as_deref().and_then(|t| index.ty(t)).or(guess))
            .collect()
    }

    fn count(&mut self, seen: &[Observation]) {
        self.stats.statements += seen.len() as u64;
        self.stats.threw += seen.iter().filter(|o| o.threw).count() as u64;
    }
}

/// Keeps the `try` of the statements that threw and drops the others'.
fn set_guards(program: &mut Program, seen: &[Observation]) {
    for (stmt, o) in program.stmts.iter_mut().zip(seen) {
        if let Some(guarded) = stmt.guarded_mut() {
            *guarded = o.threw;
        }
    }
}
