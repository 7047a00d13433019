//! Minimizing what `cargo reduce ci` found: every new failure, and every
//! known one whose ledger entry a budget cut short, from its smallest
//! input, smallest first, within `--budget` in all. A minimization that
//! finished is kept in the cache (keyed by failure id and input); one the
//! budget cut short is resumed from its partial result on the next run.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::cache::{self, Minimized, OtherInput};
use super::inputs::Input;
use super::report::Status;
use super::{entry_id, key, CiRequest, Group, TargetRun};
use crate::fuzz::pool::WorkerPool;
use crate::fuzz::project::Artifact;
use crate::job::fuzz_mode::{self, Work};
use crate::job::{Events, Message, Settings};

/// Minimizes, smallest input first and within the budget (counted from
/// `started`), every new failure and every known one whose ledger entry is
/// not minimal yet, that no earlier call minimized. What the budget leaves
/// out keeps its smallest input, not minimal.
pub(super) fn minimize(
    runs: &mut [TargetRun],
    pools: &super::Pools,
    request: &CiRequest,
    started: Instant,
    settings: &Settings,
    events: &dyn Events,
) {
    let mut pending: Vec<(usize, usize, usize)> = Vec::new();
    for (r, run) in runs.iter().enumerate() {
        for (g, group) in run.groups.iter().enumerate() {
            if group.reduced.is_none() && needed(run, group) {
                let size = group.smallest(&run.inputs).bytes.len();
                pending.push((size, r, g));
            }
        }
    }
    pending.sort();
    for (_, r, g) in pending {
        let remaining = request.budget.saturating_sub(started.elapsed());
        let run = &runs[r];
        let pool = &pools[&key(run)].1;
        let reduced = minimize_group(
            run,
            &run.groups[g],
            pool,
            remaining,
            request,
            settings,
            events,
        );
        runs[r].groups[g].reduced = Some(reduced);
    }
}

/// New failures, and known ones whose entry a budget cut short.
pub(super) fn needed(run: &TargetRun, group: &Group) -> bool {
    match group.status {
        Status::New => true,
        _ => run
            .entries
            .iter()
            .any(|e| !e.sidecar.minimal && entry_id(run, e) == group.id),
    }
}

/// Whether `bytes` fails in `pool` as `group` does, at the run's match
/// level. A cached minimization is kept by the failure's id, which names
/// its place: after an edit of the source another bug can take that
/// place (and id), and the cached input, which fails the other way, would
/// be filed under it.
fn still_fails(bytes: &[u8], run: &TargetRun, group: &Group, pool: &WorkerPool) -> bool {
    let Ok(outcome) = pool.run(bytes) else {
        return false;
    };
    outcome.failure().is_some_and(|failure| {
        let level = run.options.matching();
        level.matches(&group.failure.signature(), &failure.signature())
    })
}

/// One group's smallest input, minimized in `pool` with `remaining` time
/// (from the cache when that input was minimized before); unreduced, not
/// minimal, when it cannot be.
fn minimize_group(
    run: &TargetRun,
    group: &Group,
    pool: &WorkerPool,
    remaining: Duration,
    request: &CiRequest,
    settings: &Settings,
    events: &dyn Events,
) -> Minimized {
    let input = group.smallest(&run.inputs);
    let unreduced = || Minimized {
        bytes: input.bytes.clone(),
        minimal: false,
        debug: pool.debug_format(&input.bytes).ok().flatten(),
        others: Vec::new(),
    };
    let Some(cache) = CacheDir::of(request) else {
        return unreduced();
    };
    let output = cache::minimized_path(cache.path(), &run.name, &group.id, &input.hash);
    let cached = cache::load_minimized(&output).filter(|m| m.minimal);
    if let Some(kept) = cached.filter(|m| still_fails(&m.bytes, run, group, pool)) {
        return kept;
    }
    if remaining.is_zero()
        || std::fs::create_dir_all(output.parent().expect("in a folder")).is_err()
    {
        return unreduced();
    }
    let work = Work {
        project: run.project,
        target: run.name.clone(),
        artifact: cache_artifact(input, output),
        done: false,
        options: run.options,
    };
    let budgeted = Settings {
        max_time: Some(remaining),
        ..settings.clone()
    };
    let cx = fuzz_mode::Context {
        request: &request.fuzz,
        settings: &budgeted,
        events,
    };
    reduced(&work, pool, group, cx).unwrap_or_else(unreduced)
}

/// Where minimizations are kept: `--cache-dir`'s folder, else a temporary
/// one for this run.
enum CacheDir<'a> {
    Given(&'a Path),
    Temporary(tempfile::TempDir),
}

impl<'a> CacheDir<'a> {
    /// `None` when there is no cache folder and no temporary one can be
    /// made.
    fn of(request: &'a CiRequest) -> Option<CacheDir<'a>> {
        match request.cache_dir() {
            Some(dir) => Some(CacheDir::Given(dir)),
            None => tempfile::tempdir().ok().map(CacheDir::Temporary),
        }
    }

    fn path(&self) -> &Path {
        match self {
            CacheDir::Given(dir) => dir,
            CacheDir::Temporary(dir) => dir.path(),
        }
    }
}

/// `input` as an artifact whose reduction writes to `output` in the cache
/// (its partial result beside it), never to the input's own folder.
fn cache_artifact(input: &Input, output: PathBuf) -> Artifact {
    let mut artifact = input.artifact.clone();
    artifact.partial = output.with_extension("partial");
    artifact.output = output;
    artifact.minimized = None;
    artifact
}

/// `work` reduced in `pool`, as `group` fails; `None` (after a warning)
/// when the reduction failed or its output cannot be read.
fn reduced(
    work: &Work,
    pool: &WorkerPool,
    group: &Group,
    cx: fuzz_mode::Context<'_>,
) -> Option<Minimized> {
    let events = cx.events;
    let row = fuzz_mode::reduce_one(work, pool, Some(group.failure.clone()), cx);
    let done = match row.result {
        Ok(done) => done,
        // Filed as it is, not minimal; the next run tries again.
        Err(e) => {
            let message = format!(
                "failure {} of `{}` was not minimized: {e}",
                group.id, work.target
            );
            events.emit(&Message::Warning { message });
            return None;
        }
    };
    let bytes = std::fs::read(&done.output).ok()?;
    let minimized = Minimized {
        bytes,
        minimal: done.stopped.is_none(),
        debug: done.described.and_then(|d| d.debug),
        others: done.extra.iter().map(OtherInput::of).collect(),
    };
    // A partial result stays where it is: the next run resumes from it.
    if minimized.minimal {
        let _ = cache::save_minimized(&work.artifact.output, &minimized);
    }
    Some(minimized)
}
