//! Which fuzz crates a run works on ([`discover`]) and which of their
//! inputs fuzz mode takes ([`select_work`]): the artifacts named, or every
//! one without a minimized copy, less those it cannot reduce.

use super::{FuzzRequest, Work};
use crate::error::Error;
use crate::fuzz::project::{self, Artifact, ArtifactKind, FuzzProject, Selection};
use crate::fuzz::sanitizer::Sanitizer;
use crate::job::message::SkipCause;
use crate::job::{Events, Message};

/// Why `leak-*` artifacts are not reduced under `--sanitizer none` (or a
/// target's `sanitizer = "none"`).
const LEAK_SKIPPED: &str = "a leak is found by LeakSanitizer, on the AddressSanitizer build, which a sanitizer of `none` (--sanitizer, or sanitizer in Cargo.toml) leaves out; reduce it with --sanitizer auto or address";

/// The fuzz crates `selection` finds, narrowed to its target and engine.
pub(crate) fn discover(selection: &Selection) -> Result<Vec<FuzzProject>, Error> {
    let mut projects = project::discover(selection)?;
    if let Some(target) = &selection.fuzz_target {
        project::select_target(&mut projects, target)?;
    }
    if let Some(engine) = selection.engine {
        project::select_engine(&mut projects, engine)?;
    }
    Ok(projects)
}

/// The work `request` selects, without the artifacts that cannot be
/// reduced with these options (each reported with the reason).
pub(super) fn select_work(
    request: &FuzzRequest,
    projects: &[FuzzProject],
    events: &dyn Events,
) -> Result<Vec<Work>, Error> {
    let mut work = select(request, projects)?;
    work.retain(|w| match skip_reason(w) {
        Some((cause, why)) if !w.done => {
            events.emit(&Message::ArtifactSkipped {
                path: w.artifact.path.clone(),
                target: w.target.clone(),
                why: why.to_string(),
                cause,
            });
            false
        }
        Some(_) => false,
        None => true,
    });
    Ok(work)
}

/// Why `item`'s artifact cannot be reduced with its options.
fn skip_reason(item: &Work) -> Option<(SkipCause, &'static str)> {
    let rss_limit_mb = item.options.rss_limit_mb;
    match item.artifact.kind {
        ArtifactKind::Leak if item.options.sanitizer() == Sanitizer::None => {
            Some((SkipCause::Leak, LEAK_SKIPPED))
        }
        ArtifactKind::Oom if rss_limit_mb == Some(0) => Some((
            SkipCause::NoMemoryLimit,
            "a memory limit of 0 (--rss-limit-mb, or rss-limit-mb in Cargo.toml) turns the limit off, so it cannot fail as out-of-memory; give a limit",
        )),
        _ => None,
    }
}

/// The artifacts to reduce: the named ones, or every one not yet reduced.
fn select(request: &FuzzRequest, projects: &[FuzzProject]) -> Result<Vec<Work>, Error> {
    if !request.artifacts.is_empty() {
        let target = request.selection.fuzz_target.as_deref();
        return request
            .artifacts
            .iter()
            .map(|path| {
                let mut found = project::locate_artifact(projects, path, target)?;
                let project = &projects[found.project];
                let target = &project.targets[found.target];
                // The results of an input from elsewhere (a corpus file, a
                // downloaded testcase) go where its row says and the next
                // run looks, as `cargo fuzz tmin`'s do: never into a corpus.
                let elsewhere = super::artifacts_folder_of(path).as_deref() != Some(&target.name);
                if project.results_root.is_some() || elsewhere {
                    found.artifact.relocate(&project.results_dir(&target.name));
                }
                Ok(Work {
                    target: target.name.clone(),
                    project: found.project,
                    artifact: found.artifact,
                    done: false,
                    options: request.options_of(project, &target.name),
                })
            })
            .collect();
    }
    let mut work = Vec::new();
    for (p, project) in projects.iter().enumerate() {
        for target in &project.targets {
            let pending = |a: &Artifact| request.force || a.minimized.is_none();
            if !target.artifacts.iter().any(pending) {
                // Nothing to reduce: no build, no replay.
                continue;
            }
            for artifact in &target.artifacts {
                work.push(Work {
                    project: p,
                    target: target.name.clone(),
                    artifact: artifact.clone(),
                    done: !pending(artifact),
                    options: request.options_of(project, &target.name),
                });
            }
        }
    }
    Ok(work)
}

/// Says which AFL++ instances ran a binary that no target builds (their
/// inputs are not reduced), and which ran a binary that has been rebuilt
/// since (their inputs may not fail as they did).
pub(super) fn warn_about_instances(projects: &[FuzzProject], events: &dyn Events) {
    let instances = projects
        .iter()
        .flat_map(|p| &p.instances)
        .filter(|(i, _)| !i.inputs.is_empty());
    for (instance, target) in instances {
        let ran = instance.binary.as_ref().map_or_else(
            || "an unknown binary (no cmdline)".into(),
            |b| format!("`{}`", b.display()),
        );
        let message = match (target, instance.rebuilt) {
            (None, _) => format!(
                "AFL++ instance `{}` ran {ran}, which no afl.rs target found here builds: its {} input(s) are skipped; pass --manifest-path of the crate that builds it",
                instance.dir.display(),
                instance.inputs.len()
            ),
            (Some(_), Some(true)) => format!(
                "AFL++ instance `{}` ran {ran}, which has been rebuilt since (its target_hash differs): its inputs are reproduced on the current code, and those that no longer fail are skipped",
                instance.dir.display()
            ),
            _ => continue,
        };
        events.emit(&Message::Warning { message });
    }
}

/// Warns of each folder of `artifacts/` that names no fuzz target (a
/// renamed or removed target's): its files are not reduced, and silence
/// would hide them. Not when `selection` leaves targets out (by name or
/// engine), whose folders would look stray.
pub(crate) fn warn_about_stray_artifacts(
    projects: &[FuzzProject],
    selection: &Selection,
    events: &dyn Events,
) {
    if selection.fuzz_target.is_some() || selection.engine.is_some() {
        return;
    }
    for (dir, files) in crate::fuzz::project::stray_artifact_dirs(projects) {
        events.emit(&Message::Warning {
            message: format!(
                "`{}` names no fuzz target, so its {files} file(s) are skipped; to reduce one as a target's input, name it: `cargo reduce --fuzz-target TARGET FILE`",
                dir.display()
            ),
        });
    }
}
