//! Trimming a queue entry statement by statement, for AFL++'s trimming
//! trio. AFL++'s own trimmer cuts byte blocks, which in a program mostly
//! cuts a statement in half: the coverage changes and the cut is undone, at
//! the cost of an execution. Removing whole statements (and renumbering the
//! variables after them) keeps the program valid, so AFL++ can keep every
//! removal that leaves the coverage unchanged.

use protograph::program::parse_program;
use protograph::{Program, Stmt};

/// One trimming run over one queue entry.
pub struct Trim {
    /// The smallest program AFL++ has accepted so far.
    kept: Program,
    /// The index in `kept` of the statement tried next.
    at: usize,
    /// Statements removed so far: `at + removed` is AFL++'s step index.
    removed: usize,
    out: Vec<u8>,
}

impl Trim {
    /// Starts on `input` and returns the number of steps: one per statement
    /// in generated form. Raw lines (hand-written JavaScript) are kept, since
    /// removing one line of a multi-line construct breaks the program.
    pub fn start(input: &[u8]) -> (Trim, usize) {
        let kept = parse_program(&String::from_utf8_lossy(input));
        let trim = Trim {
            kept,
            at: 0,
            removed: 0,
            out: Vec::new(),
        };
        let steps = trim.kept.stmts.iter().filter(|s| is_def(s)).count();
        (trim, steps)
    }

    /// The program without the next statement in generated form.
    pub fn candidate(&mut self) -> &[u8] {
        while self.at < self.kept.stmts.len() && !is_def(&self.kept.stmts[self.at]) {
            self.at += 1;
        }
        let mut candidate = self.kept.clone();
        if self.at < candidate.stmts.len() {
            candidate.stmts.remove(self.at);
        }
        candidate.renumber();
        self.out = candidate.render().into_bytes();
        &self.out
    }

    /// Takes AFL++'s verdict on the last candidate (`kept`: same coverage)
    /// and returns the next step index; the run ends at the step count.
    pub fn answer(&mut self, kept: bool) -> usize {
        if kept && self.at < self.kept.stmts.len() {
            self.kept.stmts.remove(self.at);
            self.kept.renumber();
            self.removed += 1;
        } else {
            self.at += 1;
        }
        let defs_before = self.kept.stmts[..self.at.min(self.kept.stmts.len())]
            .iter()
            .filter(|s| is_def(s))
            .count();
        defs_before + self.removed
    }
}

fn is_def(stmt: &Stmt) -> bool {
    stmt.is_generated()
}
