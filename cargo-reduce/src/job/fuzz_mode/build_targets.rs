//! Building the targets fuzz mode needs: once per crate, against its
//! engine's stand-in, each target's failure its own.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

use crate::error::{Error, Exit};
use crate::fuzz::engines::afl::AFL;
use crate::fuzz::engines::libfuzzer::LIBFUZZER_SYS;
use crate::fuzz::project::{Engine, FuzzProject};
use crate::fuzz::standin::crate_files::StandIn;
use crate::fuzz::standin::{build_workers, BuildError, BuildKind, BuildTarget, WorkerBuildError};
use crate::job::{Events, Message, Settings};

/// The stand-in a crate's targets are built against, and the other
/// engines' (patched in too when the crate depends on them).
fn stand_ins(engine: Engine) -> (&'static StandIn, &'static [&'static StandIn]) {
    match engine {
        Engine::LibFuzzer => (&LIBFUZZER_SYS, &[&AFL]),
        Engine::Afl => (&AFL, &[&LIBFUZZER_SYS]),
    }
}

/// A target: its project's index and its name.
pub(in crate::job) type TargetKey = (usize, String);

/// Each target's binary, or why it cannot be had.
pub(in crate::job) type Binaries = HashMap<TargetKey, Result<PathBuf, Error>>;

/// Builds every target the work needs, one cargo build per project. A
/// target, or a whole crate, that does not compile fails its own artifacts
/// only.
/// Of the `kind` asked (AddressSanitizer: `crate::fuzz::sanitizer`).
pub(in crate::job) fn build(
    projects: &[FuzzProject],
    wanted: &[TargetKey],
    kind: BuildKind<'_>,
    settings: &Settings,
    events: &dyn Events,
) -> Result<Binaries, Error> {
    let mut binaries = HashMap::new();
    for (p, project) in projects.iter().enumerate() {
        let mut targets: Vec<&str> = wanted
            .iter()
            .filter(|(project, _)| *project == p)
            .map(|(_, target)| target.as_str())
            .collect();
        targets.sort_unstable();
        targets.dedup();
        if targets.is_empty() {
            continue;
        }
        let built = build_project(project, &targets, kind, settings, events)?;
        for (target, binary) in targets.iter().zip(built) {
            binaries.insert((p, target.to_string()), binary);
        }
    }
    Ok(binaries)
}

/// Builds `targets` of `project`: each one's binary or error, in order.
/// Only Ctrl-C stops the run.
fn build_project(
    project: &FuzzProject,
    targets: &[&str],
    kind: BuildKind<'_>,
    settings: &Settings,
    events: &dyn Events,
) -> Result<Vec<Result<PathBuf, Error>>, Error> {
    let started = Instant::now();
    events.emit(&Message::BuildStarted {
        package: project.package.clone(),
        targets: owned(targets),
        build: kind.message(),
    });
    let build_targets: Vec<BuildTarget<'_>> = targets
        .iter()
        .filter_map(|name| project.targets.iter().find(|t| t.name == *name))
        .map(|t| BuildTarget {
            name: &t.name,
            kind: t.kind,
            features: &t.features,
        })
        .collect();
    let (stand_in, others) = stand_ins(project.engine);
    let warn = |message: &str| {
        events.emit(&Message::Warning {
            message: message.to_string(),
        })
    };
    if let Some(note) = toolchain_note(kind) {
        warn(&note);
    }
    let interrupt = &settings.interrupt;
    let built = build_workers(
        stand_in,
        others,
        project,
        &build_targets,
        kind,
        interrupt,
        &warn,
    );
    let built = match built {
        Ok(built) => built,
        Err(e) => return whole_build_failed(e, project, targets),
    };
    // The targets built: one that failed to compile has its error.
    let succeeded = targets
        .iter()
        .zip(&built.targets)
        .filter(|(_, binary)| binary.is_ok())
        .map(|(target, _)| target.to_string())
        .collect();
    events.emit(&Message::BuildFinished {
        package: project.package.clone(),
        targets: succeeded,
        build: kind.message(),
        elapsed_s: started.elapsed().as_secs_f64(),
        compiled: built.compiled.clone(),
    });
    Ok(targets
        .iter()
        .zip(built.targets)
        .map(|(target, binary)| binary.map_err(|errors| target_failed(project, target, &errors)))
        .collect())
}

/// Which toolchain a build that needs a nightly takes, when the user chose
/// another (`cargo +stable reduce --sanitizer address`): it is not the one
/// they named.
fn toolchain_note(kind: BuildKind<'_>) -> Option<String> {
    let toolchain = kind.toolchain()?;
    let users = toolchain.replaces_users()?;
    Some(format!(
        "the AddressSanitizer build uses the `{}` toolchain: `{users}`, the one chosen, is not a nightly",
        toolchain.name()
    ))
}

/// A build that gave no binary: Ctrl-C stops the run; any other error
/// fails the crate's own artifacts (each target's), and the other crates
/// still run.
fn whole_build_failed(
    e: WorkerBuildError,
    project: &FuzzProject,
    targets: &[&str],
) -> Result<Vec<Result<PathBuf, Error>>, Error> {
    if let WorkerBuildError::Build(BuildError::Interrupted) = e {
        let message = BuildError::Interrupted.to_string();
        return Err(Error::new(Exit::Interrupted, message));
    }
    // One target that is none: that is why.
    let alone = match targets {
        [target] => not_a_fuzz_target(project, target),
        _ => None,
    };
    let error = match alone {
        Some(why) => Error::new(Exit::BuildFailed, why),
        None => build_error(e, &project.package, targets),
    };
    Ok(vec![Err(error); targets.len()])
}

/// The error of `target`, which the compiler refused with `errors`.
fn target_failed(project: &FuzzProject, target: &str, errors: &str) -> Error {
    let package = &project.package;
    let errors = errors.trim_end();
    let message = match not_a_fuzz_target(project, target) {
        Some(why) => format!("{why}; {}", errors.lines().next().unwrap_or_default()),
        None => format!(
            "cannot build fuzz target `{target}` of `{package}` against the stand-in:\n{errors}"
        ),
    };
    Error::new(Exit::BuildFailed, message)
}

/// Why `target` of `project` failed to build when its source does not use
/// its engine's crate: it is no fuzz target, and its errors (a link
/// error's command line runs to kilobytes) say less than that.
fn not_a_fuzz_target(project: &FuzzProject, target: &str) -> Option<String> {
    let t = project.targets.iter().find(|t| t.name == target)?;
    (!project.source_uses_engine(t)).then(|| {
        format!(
            "cannot build `{target}` of `{}`: its source `{}` does not use {}, so it is no {} fuzz target (another engine's, as honggfuzz's, or a tool): leave it out (--fuzz-target names the others)",
            project.package,
            t.source.display(),
            project.engine.crate_name(),
            project.engine.as_str(),
        )
    })
}

/// How many targets a build error names before "and N more".
const NAMED: usize = 4;

/// Why none of `targets` of crate `package` could be built (cargo
/// stopped, or could not resolve its dependencies): the error names them.
fn build_error(e: WorkerBuildError, package: &str, targets: &[&str]) -> Error {
    let mut names = targets
        .iter()
        .take(NAMED)
        .map(|t| format!("`{t}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if targets.len() > NAMED {
        names.push_str(&format!(" and {} more", targets.len() - NAMED));
    }
    let context = format!("cannot build fuzz target(s) {names} of `{package}`");
    match e {
        WorkerBuildError::Build(e @ BuildError::Resolve { .. }) => {
            Error::caused(Exit::ResolveFailed, context, e)
        }
        e => Error::caused(Exit::BuildFailed, context, e),
    }
}

/// What the row of an artifact whose target `e` stopped says, in a few
/// words: `e` itself is reported once, whole, before the table.
pub(super) fn in_a_few_words(e: &Error) -> &'static str {
    match e.exit() {
        Exit::BuildFailed | Exit::ResolveFailed => "not built (see the error above)",
        Exit::Interrupted => "interrupted",
        _ => "not started (see the error above)",
    }
}

/// The names, owned (as messages hold them).
fn owned(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}
