//! `ci` under `--sanitizer auto`: a target with a crash input (an
//! artifact, an AFL++ crash, an OSS-Fuzz testcase, or a ledger entry
//! recorded as an ASan bug) that passes uninstrumented is replayed again
//! on the AddressSanitizer build of the stand-in (nightly; once every
//! target has replayed, such targets' ASan builds are made in one go),
//! and keeps that build when it fails an input the other passed: such
//! inputs fail only under ASan, as in `cargo fuzz`'s default build; so do
//! `leak-*` artifacts, whose pools look for leaks; and so does a libFuzzer
//! `crash-` that runs out of memory uninstrumented, when ASan reports a
//! bug of its own there (`fuzz_mode::crash_may_be_asan_s`: that one was
//! ASan's in the campaign). Corpus inputs, which
//! pass as a rule, do not count. A crash input that passes there too is a
//! fixed bug's, and the target stays where it was.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

use super::report::Source;
use super::{replay, CiRequest, OnBuild, Settings, TargetRun};
use crate::error::{Error, Exit};
use crate::fuzz::pool::{Failure, FailureKind, WorkerPool};
use crate::fuzz::project::{ArtifactKind, Engine, FuzzProject};
use crate::fuzz::sanitizer::{AsanToolchain, Sanitizer};
use crate::fuzz::standin::BuildKind;
use crate::job::fuzz_mode::{self, TargetKey};
use crate::job::{Events, Message};

/// Whether `run` (replayed; its targets' `engine`) has a crash input that
/// passed, or a libFuzzer `crash-` that ran out of memory
/// ([`fuzz_mode::crash_may_be_asan_s`]).
pub(super) fn needs_asan(run: &TargetRun, engine: Engine) -> bool {
    run.inputs
        .iter()
        .zip(&run.outcomes)
        .any(|(input, (failure, _))| {
            let crash = match input.source {
                Source::Artifact | Source::Afl | Source::Clusterfuzz => true,
                Source::Ledger => input
                    .ledger
                    .and_then(|e| run.entries.get(e))
                    .is_some_and(|e| e.sidecar.kind.starts_with("asan-")),
                Source::Corpus => false,
            };
            let asan_s =
                |f: &Failure| fuzz_mode::crash_may_be_asan_s(engine, input.artifact.kind, f);
            crash && failure.as_ref().is_none_or(asan_s)
        })
}

/// Whether the ASan replay (`asan`) tells more than the plain one
/// (`plain`) of an input ([`fuzz_mode::asan_tells_more`]); each the
/// outcomes of the same inputs, in order.
pub(super) fn finds_more(
    plain: &[(Option<Failure>, bool)],
    asan: &[(Option<Failure>, bool)],
) -> bool {
    plain
        .iter()
        .zip(asan)
        .any(|((first, _), (then, _))| fuzz_mode::asan_tells_more(first.as_ref(), then.as_ref()))
}

/// Whether `run` has an input that fails by leaking (a `leak-*` artifact,
/// a ledger entry of a leak): its pools look for leaks, which only the
/// ASan build's LeakSanitizer finds.
pub(super) fn has_leaks(run: &TargetRun) -> bool {
    let leak_artifact = run
        .inputs
        .iter()
        .any(|i| i.artifact.kind == ArtifactKind::Leak);
    let leak_entry = |kind: &str| FailureKind::from_tag(kind).is_some_and(FailureKind::is_leak);
    leak_artifact || run.entries.iter().any(|e| leak_entry(&e.sidecar.kind))
}

/// Whether `run` (replayed) is to be replayed again on its ASan build:
/// under `auto`, with a crash input that [`needs_asan`].
pub(super) fn wants_asan(run: &TargetRun, engine: Engine) -> bool {
    run.options.sanitizer() == Sanitizer::Auto && needs_asan(run, engine)
}

/// The ASan builds of `runs`' targets, made in one go when there is a
/// nightly; a target that does not build with ASan is left out (a
/// warning says so) and replays uninstrumented only.
pub(super) fn build_all(
    projects: &[FuzzProject],
    runs: &[&TargetRun],
    settings: &Settings,
    events: &dyn Events,
) -> Result<HashMap<TargetKey, PathBuf>, Error> {
    if runs.is_empty() {
        return Ok(HashMap::new());
    }
    let Some(toolchain) = AsanToolchain::find() else {
        return Ok(HashMap::new());
    };
    let keys: Vec<TargetKey> = runs.iter().map(|r| (r.project, r.name.clone())).collect();
    let kind = BuildKind::Asan(&toolchain);
    let mut built = fuzz_mode::build(projects, &keys, kind, settings, events)?;
    let mut binaries = HashMap::new();
    for key in keys {
        match built.remove(&key).expect("built every target asked") {
            Ok(binary) => {
                binaries.insert(key, binary);
            }
            Err(e) => {
                let message = format!("the AddressSanitizer build of `{}` failed, so its inputs replay uninstrumented only: {}", key.1, e.line());
                events.emit(&Message::Warning { message });
            }
        }
    }
    Ok(binaries)
}

/// `run` (replayed on its first build, `first`) replayed again on its ASan
/// build (`asan`, if it built), which it keeps when that fails an input
/// the first passed.
pub(super) fn replay_on(
    run: &mut TargetRun,
    first: OnBuild,
    asan: Option<&PathBuf>,
    request: &CiRequest,
) -> Result<OnBuild, Error> {
    let Some(binary) = asan else {
        return Ok(first);
    };
    let pool = WorkerPool::start(binary, first.options.clone())
        .map_err(|e| Error::caused(Exit::Failure, format!("cannot start {}", run.name), e))?;
    let plain = std::mem::take(&mut run.outcomes);
    let started = Instant::now();
    replay(run, &pool, binary, request, &first.options)?;
    let time = first.time + started.elapsed();
    // The crash inputs that passed were a fixed bug's, not an ASan-only
    // one's: the target stays on the plain build, where its other
    // failures were signed (a build's call paths, so ids, are its own).
    if !finds_more(&plain, &run.outcomes) {
        run.outcomes = plain;
        return Ok(OnBuild { time, ..first });
    }
    Ok(OnBuild {
        binary: binary.clone(),
        pool,
        options: first.options,
        time,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only an input the plain build passed and the ASan build fails keeps
    /// the target on ASan; a fixed bug's input passes on both.
    #[test]
    fn only_a_failure_the_plain_build_missed_moves_the_target() {
        let panic = || Some(Failure::new(FailureKind::Panic, "bug B"));
        let overflow = || Some(Failure::new(FailureKind::Signal(11), "SEGV"));
        let plain = [(panic(), false), (None, false)];
        assert!(!finds_more(&plain, &[(panic(), false), (None, false)]));
        assert!(finds_more(&plain, &[(panic(), false), (overflow(), false)]));
        // A failure both see, signed another way, is no new one.
        assert!(!finds_more(&plain, &[(overflow(), false), (None, true)]));
    }

    /// An out-of-memory the ASan build reports as its own bug tells more;
    /// libFuzzer's out-of-memory on both builds does not.
    #[test]
    fn an_asan_bug_where_the_plain_build_ran_out_of_memory_moves_the_target() {
        let oom = || Some(Failure::new(FailureKind::Oom, "out of memory"));
        let too_big = FailureKind::from_tag("asan-allocation-size-too-big").unwrap();
        let asan = || Some(Failure::new(too_big, "too big"));
        let plain = [(oom(), false)];
        assert!(finds_more(&plain, &[(asan(), false)]));
        assert!(!finds_more(&plain, &[(oom(), false)]));
        assert!(!finds_more(&[(asan(), false)], &[(oom(), false)]));
    }
}
