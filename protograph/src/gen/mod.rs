//! Test generation: random walks on a Prototype Graph turned into programs.

pub(crate) mod literal;
mod reentry;
mod snippet;
mod stmt;
mod walk;

use std::sync::Arc;

use crate::foreign::Snippets;
use crate::index::{Index, Ty};
use crate::program::{Program, Stmt};
use crate::rng::Rng;
use crate::{Error, Graph};

pub(crate) use stmt::def;
pub(crate) use walk::Walk;

/// Bounds of the random walks. The defaults keep statements short enough to
/// read in a bug report, deep enough to chain calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Most forward steps (property reads, prototype steps, calls) from the
    /// start of a statement to the call it makes.
    pub max_forward: u32,
    /// Deepest nesting of a backward-built argument.
    pub max_depth: u32,
    /// Most arguments passed to one call (longer signatures are cut).
    pub max_args: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_forward: 6,
            max_depth: 3,
            max_args: 6,
        }
    }
}

/// Generates JavaScript programs from a Prototype Graph. Building one
/// compiles the graph once; generation is then deterministic for a seed.
#[derive(Debug, Clone)]
pub struct Generator {
    pub(crate) index: Index,
    pub(crate) config: Config,
    /// Statements from foreign tests to splice in (none unless given).
    pub(crate) snippets: Arc<Snippets>,
}

impl Generator {
    /// Compiles `graph` for generation with the bounds in `config`.
    pub fn new(graph: &Graph, config: Config) -> Result<Generator, Error> {
        Ok(Generator {
            index: Index::new(graph)?,
            config,
            snippets: Arc::default(),
        })
    }

    /// The generator with `snippets` (from foreign tests) for the mutator's
    /// [`crate::Mutation::Foreign`] splices.
    pub fn with_snippets(self, snippets: Snippets) -> Generator {
        Generator {
            snippets: Arc::new(snippets),
            ..self
        }
    }

    /// A statement defining `v{vars.len()}` spliced from a foreign test,
    /// its holes filled by type; `None` when there is no snippet to fit.
    pub(crate) fn foreign_statement(
        &self,
        rng: &mut Rng,
        vars: &mut Vec<Option<Ty>>,
    ) -> Option<Stmt> {
        let expr = Walk {
            index: &self.index,
            config: &self.config,
            rng,
            vars,
        }
        .snippet(&self.snippets)?;
        vars.push(self.index.type_of(&expr, vars));
        Some(def(vars.len() as u32 - 1, expr))
    }

    /// A program of `statements` statements, determined by `seed`.
    pub fn program(&self, seed: u64, statements: usize) -> Program {
        let mut rng = Rng::new(seed);
        let mut program = Program::default();
        let mut vars = Vec::with_capacity(statements);
        for _ in 0..statements {
            program.stmts.push(self.statement(&mut rng, &mut vars));
        }
        program
    }

    /// One new statement defining `v{vars.len()}`; its type is pushed on
    /// `vars`.
    pub(crate) fn statement(&self, rng: &mut Rng, vars: &mut Vec<Option<Ty>>) -> Stmt {
        let var = vars.len() as u32;
        let (stmt, ty) = Walk {
            index: &self.index,
            config: &self.config,
            rng,
            vars,
        }
        .any_statement(var);
        vars.push(ty);
        stmt
    }

    /// The types of the variables each statement of `program` defines, as
    /// far as the graph tells (`None` for raw lines and unknown types).
    pub(crate) fn var_types(&self, program: &Program) -> Vec<Option<Ty>> {
        let mut vars: Vec<Option<Ty>> = Vec::with_capacity(program.stmts.len());
        for stmt in &program.stmts {
            let ty = match stmt {
                Stmt::Def { expr, .. } => self.index.type_of(expr, &vars),
                Stmt::Store { value, .. } => self.index.type_of(value, &vars),
                Stmt::ForOf { .. } | Stmt::Raw(_) => None,
            };
            vars.push(ty);
        }
        vars
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::figure1;
    use crate::program::parse_program;

    #[test]
    fn same_seed_same_program() {
        let g = Generator::new(&figure1(), Config::default()).unwrap();
        let a = g.program(42, 30).render();
        assert_eq!(a, g.program(42, 30).render());
        assert_ne!(a, g.program(43, 30).render());
    }

    #[test]
    fn finds_the_thesis_examples() {
        let g = Generator::new(&figure1(), Config::default()).unwrap();
        let text: String = (0..200).map(|seed| g.program(seed, 5).render()).collect();
        assert!(text.contains("this.Object.getPrototypeOf(this"), "{text}");
        assert!(text.contains("new (this.Object)("), "{text}");
    }

    #[test]
    fn generated_programs_parse_back() {
        let g = Generator::new(&figure1(), Config::default()).unwrap();
        for seed in 0..100 {
            let p = g.program(seed, 10);
            assert_eq!(parse_program(&p.render()), p);
        }
    }
}
