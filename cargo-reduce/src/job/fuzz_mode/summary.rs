//! What a fuzz-mode run did: a row per artifact tried, the duplicates,
//! the other failures found, the stale inputs, and the exit status.

use std::path::PathBuf;
use std::time::Duration;

use super::{AlsoFound, Reduction};
use crate::error::{Error, Exit};
use crate::fuzz::project::FuzzProject;
use crate::job::{Events, Message};

/// What became of one artifact.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    /// `target/artifact-name`.
    pub name: String,
    /// The input's path, when the name does not say it (AFL++ inputs, files
    /// outside `artifacts/<target>/`).
    pub from: Option<PathBuf>,
    /// The artifact's size.
    pub original: usize,
    /// Wall time spent on it.
    pub elapsed: Duration,
    /// The result, or why there is none.
    pub result: Result<Reduction, Error>,
}

/// The whole run.
#[derive(Debug)]
pub(crate) struct Summary {
    /// One row per artifact tried, in order.
    pub rows: Vec<Row>,
    /// Inputs not reduced because another input fails the same way:
    /// (`target/name` of the input, of the one reduced for it).
    pub duplicates: Vec<(String, String)>,
    /// Failures the reductions ran into that no input of the run has,
    /// each filed as an artifact.
    pub also_found: Vec<AlsoFound>,
    /// Inputs found (not named) that do not fail any more (their bugs
    /// fixed, or they need another build): information, not an error;
    /// each is an `artifact-skipped` message, and they have no rows.
    pub stale: usize,
    /// Rows of inputs whose target could not be built or started (its
    /// error reported once, before).
    pub not_built: usize,
    /// Inputs to reduce whose reductions Ctrl-C kept from starting (they
    /// have no rows).
    pub not_started: usize,
    /// Artifacts found (also those not tried, being reduced already).
    pub found: usize,
    /// AFL++ instances found (their crashes and hangs are among `found`).
    pub instances: usize,
    /// The exit status: the first error's, or interrupted.
    pub exit: Exit,
}

impl Summary {
    /// Nothing done yet, of the artifacts `projects` have.
    pub(super) fn new(projects: &[FuzzProject]) -> Summary {
        Summary {
            rows: Vec::new(),
            duplicates: Vec::new(),
            also_found: Vec::new(),
            stale: 0,
            not_built: 0,
            not_started: 0,
            found: projects
                .iter()
                .flat_map(|p| &p.targets)
                .map(|t| t.artifacts.len())
                .sum(),
            instances: projects.iter().map(|p| p.instances.len()).sum(),
            exit: Exit::Success,
        }
    }

    /// Adds `row`; a failed one is reported as an `error` message and sets
    /// the exit status if none is set yet.
    pub(super) fn record(&mut self, row: Row, events: &dyn Events) {
        match &row.result {
            // Ctrl-C is no error: the row says the input was interrupted.
            Err(e) if e.exit() == Exit::Interrupted => self.exit = Exit::Interrupted,
            Err(e) => self.fail(e, events),
            Ok(_) => {}
        }
        self.rows.push(row);
    }

    /// Reports `e` as an `error` message; the exit status is its own if
    /// none is set yet.
    pub(super) fn fail(&mut self, e: &Error, events: &dyn Events) {
        events.emit(&Message::Error {
            message: e.line(),
            exit: e.exit(),
        });
        self.exit = self.exit.or(e.exit());
    }
}
