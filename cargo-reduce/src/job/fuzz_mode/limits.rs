//! The limits one input is reduced under when they are not its pool's: a
//! slow unit's threshold, an AFL++ input's campaign timeout and memory
//! limit.

use std::time::Duration;

use super::{DEFAULT_SLOW_UNIT, DEFAULT_TIMEOUT};
use crate::fuzz::pool::WorkerPool;
use crate::fuzz::project::{Artifact, ArtifactKind, Origin, TargetSettings};

/// The timeout an input fails by, when it is not the pool's: a slow unit's
/// slow-unit threshold (its target's `options`), and an AFL hang's
/// instance's `exec_timeout` (unless the command line's `flags` give a
/// timeout: the campaign's is the input's own, and wins over the target's
/// `Cargo.toml`).
fn special_timeout(
    artifact: &Artifact,
    options: &TargetSettings,
    flags: &TargetSettings,
) -> Option<Duration> {
    match (&artifact.origin, artifact.kind) {
        (_, ArtifactKind::SlowUnit) => Some(options.slow_unit.unwrap_or(DEFAULT_SLOW_UNIT)),
        (Origin::Afl(afl), ArtifactKind::Timeout) if flags.timeout.is_none() => afl.exec_timeout,
        _ => None,
    }
}

/// The timeout `artifact` of a target with `options` (the command line's
/// `flags` over its `Cargo.toml`'s) runs under: its own, else its
/// target's, else the default.
pub(in crate::job) fn timeout_of(
    artifact: &Artifact,
    options: &TargetSettings,
    flags: &TargetSettings,
) -> Duration {
    special_timeout(artifact, options, flags)
        .or(options.timeout)
        .unwrap_or(DEFAULT_TIMEOUT)
}

/// The memory limit an input fails by, when it is not the pool's: an AFL++
/// input's instance's `-m` (unless the command line's `flags` give a limit). afl-fuzz
/// runs the target under `RLIMIT_AS` of that size, where an allocation
/// beyond it fails at once; the pool's RSS and single-allocation limits are
/// the in-process equivalent, and an input that failed under 512 MB may not
/// fail under the default 2 GB at all (or only after filling gigabytes).
/// Without `-m` (or with `-m none`) there was no limit, AFL++'s default:
/// `0`, none, so that a hang filling gigabytes before its timeout stays a
/// hang rather than running out of the pool's default.
fn special_memory_limit(artifact: &Artifact, flags: &TargetSettings) -> Option<u64> {
    match &artifact.origin {
        Origin::Afl(afl) if flags.rss_limit_mb.is_none() => Some(afl.mem_limit_mb.unwrap_or(0)),
        _ => None,
    }
}

/// Whether a test of `artifact` whose memory still grows may run past the
/// timeout (`PoolOptions::memory_grace`): not when its failure is the
/// timeout itself (a timeout artifact, a slow unit, an AFL++ hang), which a
/// test filling memory slowly is too, as the campaign saw it.
fn memory_grace(artifact: &Artifact) -> bool {
    !matches!(
        artifact.kind,
        ArtifactKind::Timeout | ArtifactKind::SlowUnit
    )
}

/// The limits one input runs under where they are not its pool's: a slow
/// unit fails by taking longer than the slow-unit threshold (and is
/// reduced like a timeout, under probes); an AFL++ input by its campaign's
/// timeout and memory limit; a timeout without the memory grace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(in crate::job) struct InputLimits {
    /// Its timeout ([`special_timeout`]), `None`: the pool's.
    pub timeout: Option<Duration>,
    /// Its memory limit ([`special_memory_limit`]), `None`: the pool's.
    pub rss_limit_mb: Option<u64>,
    /// Whether it may have the pool's memory grace ([`memory_grace`]).
    pub memory_grace: bool,
}

impl InputLimits {
    /// The limits of `artifact` of a target whose settings are `options`,
    /// under the command line's `flags`.
    pub(in crate::job) fn of(
        artifact: &Artifact,
        options: &TargetSettings,
        flags: &TargetSettings,
    ) -> Self {
        InputLimits {
            timeout: special_timeout(artifact, options, flags),
            rss_limit_mb: special_memory_limit(artifact, flags),
            memory_grace: memory_grace(artifact),
        }
    }

    /// Whether they are the pool's own.
    pub(in crate::job) fn are_the_pool_s(&self) -> bool {
        self.timeout.is_none() && self.rss_limit_mb.is_none() && self.memory_grace
    }

    /// What a replay cache's key adds for them: nothing for the pool's
    /// own (whose limits name the cache), else `@timeout-memory`, and
    /// `-no-grace` without the memory grace.
    pub(in crate::job) fn key_suffix(&self) -> String {
        if self.are_the_pool_s() {
            return String::new();
        }
        let grace = if self.memory_grace { "" } else { "-no-grace" };
        format!("@{:?}-{:?}{grace}", self.timeout, self.rss_limit_mb)
    }
}

/// An input's [`InputLimits`] set on its pool; the pool's own limits come
/// back on drop.
pub(in crate::job) struct LimitsOverride<'p> {
    pool: &'p WorkerPool,
    saved: (Duration, u64, bool),
}

impl<'p> LimitsOverride<'p> {
    pub(in crate::job) fn new(pool: &'p WorkerPool, limits: InputLimits) -> Self {
        let saved = (pool.timeout(), pool.rss_limit_mb(), pool.memory_grace());
        pool.set_timeout(limits.timeout.unwrap_or(saved.0));
        pool.set_rss_limit_mb(limits.rss_limit_mb.unwrap_or(saved.1));
        pool.set_memory_grace(limits.memory_grace && saved.2);
        LimitsOverride { pool, saved }
    }
}

impl Drop for LimitsOverride<'_> {
    fn drop(&mut self) {
        self.pool.set_timeout(self.saved.0);
        self.pool.set_rss_limit_mb(self.saved.1);
        self.pool.set_memory_grace(self.saved.2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::project::AflOrigin;
    use std::path::PathBuf;

    fn afl_hang(mem_limit_mb: Option<u64>) -> Artifact {
        let mut artifact = Artifact::plain(PathBuf::from("out/default/hangs/id:000000"), 1);
        artifact.kind = ArtifactKind::Timeout;
        artifact.origin = Origin::Afl(AflOrigin {
            instance: "default".into(),
            instance_dir: PathBuf::from("out/default"),
            folder: "hangs".into(),
            sig: None,
            exec_timeout: Some(Duration::from_millis(1000)),
            mem_limit_mb,
            target_hash: None,
        });
        artifact
    }

    #[test]
    fn an_afl_input_keeps_its_campaign_s_memory_limit_or_none() {
        let flags = TargetSettings::default();
        let limit = |m| special_memory_limit(&afl_hang(m), &flags);
        assert_eq!(limit(Some(512)), Some(512));
        assert_eq!(limit(None), Some(0), "no -m: no limit, as afl-fuzz ran it");
        let given = TargetSettings {
            rss_limit_mb: Some(4096),
            ..TargetSettings::default()
        };
        assert_eq!(special_memory_limit(&afl_hang(None), &given), None);
    }
}
