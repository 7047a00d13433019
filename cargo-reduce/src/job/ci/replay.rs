//! `cargo reduce ci replay`: named inputs run once each through one fuzz
//! target, built against its stand-in and run in-process, and what each
//! did. The tests `--emit-tests` writes call it, one input per test, so
//! that `cargo test` replays the ledger with no fuzzer at run time.

use std::path::PathBuf;

use super::super::fuzz_mode::{self, FuzzRequest};
use super::super::{Events, Message, Settings};
use crate::error::{Error, Exit};
use crate::fuzz::pool::WorkerPool;
use crate::fuzz::project::{locate_artifact, FuzzProject};

/// What one input did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Replayed {
    /// The input.
    pub path: PathBuf,
    /// Its failure's id at the `--match` level and its signature, if it
    /// failed.
    pub failure: Option<(String, String)>,
}

/// Runs each of `files` once through `--fuzz-target`'s target, or the
/// one whose folders (artifacts, corpus, ledger) hold them all.
pub(crate) fn replay_files(
    request: &FuzzRequest,
    files: &[PathBuf],
    settings: &Settings,
    events: &dyn Events,
) -> Result<Vec<Replayed>, Error> {
    let projects = fuzz_mode::discover(&request.selection)?;
    let fuzz_target = request.selection.fuzz_target.as_deref();
    let (p, target) = target_of(&projects, files, fuzz_target)?;
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
    let project = &projects[p];
    let target = target.as_str();
    let options = request.options_of(project, target);
    // `auto` replays uninstrumented: `ci` recorded on which build an
    // input fails, and a replay only checks it still does.
    let targets = [((p, target.to_string()), options.sanitizer())];
    let asan = fuzz_mode::address_toolchain([options.sanitizer()].into_iter())?;
    let build = (fuzz_mode::Purpose::Reproduce, asan.as_ref());
    let binaries = fuzz_mode::build_first(&projects, &targets, build, settings, events)?;
    let binary = binaries[&(p, target.to_string())].clone()?;
    let level = options.matching();
    let options = fuzz_mode::pool_options(1, &options, settings.stop_flag());
    let options = fuzz_mode::engine_options(&options, project.engine)?;
    let pool = WorkerPool::start(&binary, options).map_err(|e| {
        Error::caused(
            Exit::Failure,
            format!("cannot start {target} of {}", project.package),
            e,
        )
    })?;
    let mut replayed = Vec::new();
    for (path, bytes) in inputs {
        let outcome = pool
            .run(&bytes)
            .map_err(|e| Error::of_pool(format!("replaying `{}`", path.display()), e))?;
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

/// The project and target `files` are run through: the one `named`
/// names, else the one whose folders hold every file.
fn target_of(
    projects: &[FuzzProject],
    files: &[PathBuf],
    named: Option<&str>,
) -> Result<(usize, String), Error> {
    let mut found: Option<(usize, usize, &PathBuf)> = None;
    for path in files {
        let at = locate_artifact(projects, path, named)?;
        match found {
            Some((p, t, first)) if (p, t) != (at.project, at.target) => {
                return Err(Error::new(
                    Exit::Usage,
                    format!(
                        "`{}` and `{}` are inputs of different fuzz targets (`{}` and `{}`); replay each target's inputs on their own, or name one with --fuzz-target",
                        first.display(),
                        path.display(),
                        projects[p].targets[t].name,
                        projects[at.project].targets[at.target].name,
                    ),
                ))
            }
            Some(_) => {}
            None => found = Some((at.project, at.target, path)),
        }
    }
    let (p, t, _) = found.ok_or_else(|| Error::new(Exit::Usage, "`ci replay` needs an input"))?;
    Ok((p, projects[p].targets[t].name.clone()))
}
