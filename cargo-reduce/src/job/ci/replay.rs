//! `cargo reduce ci replay`: named inputs run once each through one fuzz
//! target, built against its stand-in and run in-process, and what each
//! did. The tests `--emit-tests` writes call it, one input per test, so
//! that `cargo test` replays the ledger with no fuzzer at run time.

use std::path::PathBuf;

use super::super::fuzz_mode::{self, FuzzRequest};
use super::super::{Events, Message, Settings};
use crate::error::{Error, Exit};
use crate::fuzz::pool::WorkerPool;

/// What one input did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Replayed {
    /// The input.
    pub path: PathBuf,
    /// Its failure's id at the `--match` level and its signature, if it
    /// failed.
    pub failure: Option<(String, String)>,
}

/// Runs each of `files` once through `request.target`.
pub(crate) fn replay_files(
    request: &FuzzRequest,
    files: &[PathBuf],
    settings: &Settings,
    events: &dyn Events,
) -> Result<Vec<Replayed>, Error> {
    let Some(target) = request.selection.fuzz_target.as_deref() else {
        return Err(Error::new(
            Exit::Usage,
            "`ci replay` needs --fuzz-target NAME: the fuzz target to run the inputs through",
        ));
    };
    let projects = fuzz_mode::discover(&request.selection)?;
    let mut inputs = Vec::new();
    for path in files {
        let bytes = std::fs::read(path).map_err(|e| {
            Error::caused(
                Exit::BadInput,
                format!("cannot read input `{}`", path.display()),
                e,
            )
        })?;
        inputs.push((path.clone(), bytes));
    }
    let project = projects
        .first()
        .ok_or_else(|| Error::new(Exit::BadInput, format!("no fuzz target `{target}` found")))?;
    let options = request.options_of(project, target);
    // `auto` replays uninstrumented: `ci` recorded on which build an
    // input fails, and a replay only checks it still does.
    let targets = [((0, target.to_string()), options.sanitizer())];
    let asan = fuzz_mode::address_toolchain([options.sanitizer()].into_iter())?;
    let build = (fuzz_mode::Purpose::Reproduce, asan.as_ref());
    let binaries = fuzz_mode::build_first(&projects, &targets, build, settings, events)?;
    let binary = binaries[&(0, target.to_string())].clone()?;
    let level = options.matching();
    let options = fuzz_mode::engine_options(&fuzz_mode::pool_options(1, &options), project.engine)?;
    let pool = WorkerPool::start(&binary, options).map_err(|e| {
        Error::caused(
            Exit::Failure,
            format!("cannot start {target} of {}", project.package),
            e,
        )
    })?;
    let mut replayed = Vec::new();
    for (path, bytes) in inputs {
        let outcome = pool.run(&bytes).map_err(|e| {
            Error::caused(Exit::Failure, format!("replaying `{}`", path.display()), e)
        })?;
        let failure = outcome.failure().map(|f| {
            let signature = f.signature();
            (level.key(&signature).id(), signature.to_string())
        });
        events.emit(&Message::CiReplay {
            path: path.clone(),
            target: target.to_string(),
            failure_id: failure.as_ref().map(|f| f.0.clone()),
            failure: failure.as_ref().map(|f| f.1.clone()),
        });
        replayed.push(Replayed { path, failure });
    }
    Ok(replayed)
}
