//! `ci` under `--sanitizer auto`: a target with a crash input (an
//! artifact, an AFL++ crash, an OSS-Fuzz testcase, or a ledger entry
//! recorded as an ASan bug) that passes uninstrumented is replayed again
//! on the AddressSanitizer build of the stand-in (nightly), and keeps that
//! build when it fails an input the other passed: such inputs fail only
//! under ASan, as in `cargo fuzz`'s default build; so do `leak-*`
//! artifacts, whose pools look for leaks. Corpus inputs, which pass as a
//! rule, do not count. A crash input that passes there too is a fixed
//! bug's, and the target stays where it was.

use std::path::PathBuf;

use super::report::Source;
use super::{Settings, TargetRun};
use crate::error::{Error, Exit};
use crate::fuzz::pool::{Failure, FailureKind, PoolOptions, WorkerPool};
use crate::fuzz::project::{ArtifactKind, FuzzProject};
use crate::fuzz::sanitizer::AsanToolchain;
use crate::fuzz::standin::BuildKind;
use crate::job::fuzz_mode;
use crate::job::Events;

/// Whether `run` (replayed) has a crash input that passed.
pub(super) fn needs_asan(run: &TargetRun) -> bool {
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
            crash && failure.is_none()
        })
}

/// Whether the ASan replay (`asan`) fails an input the plain one
/// (`plain`) passed; each the outcomes of the same inputs, in order.
pub(super) fn finds_more(
    plain: &[(Option<Failure>, bool)],
    asan: &[(Option<Failure>, bool)],
) -> bool {
    plain
        .iter()
        .zip(asan)
        .any(|((passed, _), (failed, _))| passed.is_none() && failed.is_some())
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

/// The ASan build of `run`'s target and a pool of it; `None` if the
/// target does not build with ASan (a warning says so).
pub(super) fn asan_pool(
    projects: &[FuzzProject],
    run: &TargetRun,
    toolchain: &AsanToolchain,
    options: &PoolOptions,
    settings: &Settings,
    events: &dyn Events,
) -> Result<Option<(PathBuf, WorkerPool)>, Error> {
    let targets = [(run.project, run.name.clone())];
    let binaries = fuzz_mode::build(
        projects,
        &targets,
        BuildKind::Asan(toolchain),
        settings,
        events,
    )?;
    let binary = match binaries[&(run.project, run.name.clone())].clone() {
        Ok(binary) => binary,
        Err(e) => {
            let message = format!("the AddressSanitizer build of `{}` failed, so its inputs replay uninstrumented only: {}", run.name, e.line());
            events.emit(&crate::job::Message::Warning { message });
            return Ok(None);
        }
    };
    let pool = WorkerPool::start(&binary, options.clone())
        .map_err(|e| Error::caused(Exit::Failure, format!("cannot start {}", run.name), e))?;
    Ok(Some((binary, pool)))
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
}
