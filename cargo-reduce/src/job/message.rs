//! Every machine-readable message cargo-reduce prints, in one place: the
//! types are `cargo-reduce-messages`' (what a consumer reads them with),
//! re-exported here; this module adds what turns cargo-reduce's own
//! values into them. With `--message-format json` each message is one
//! [`Line`] on stdout; the human renderer reads the same values.

pub(crate) use cargo_reduce_messages::message::{
    ArtifactFields, AuxiliaryCrate, Build, Engine, FileCoverage, Finished, How, Improved, Line,
    Message, Phases, Plan, SkipCause, Started, StepTests, StopReason,
};

use std::path::Path;

use crate::engine::StopReason as EngineStop;
use crate::fuzz::pool::Failure;
use crate::fuzz::project::Engine as FuzzEngine;

/// `duration` in seconds, rounded to `digits` decimals.
pub(crate) fn seconds(duration: std::time::Duration, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (duration.as_secs_f64() * scale).round() / scale
}

/// Whether a reduction tested `how` is syntax-aware (its sizes are
/// counted in tokens too).
pub(crate) fn syntax_aware(how: &How) -> bool {
    let (How::Command { plan, .. } | How::Target { plan, .. }) = how;
    matches!(plan, Plan::Syntax { .. })
}

/// A warning for an input whose failure is a timeout whose stack could
/// not be taken: the failure's message says why (`no stack: …`). Such a
/// timeout is grouped apart from the placed ones, and a reduction of it
/// keeps any timeout (`MatchLevel::matches`).
pub(crate) fn unplaced_timeout_warning(failure: &Failure, path: &Path) -> Option<String> {
    failure.signature().is_unplaced_timeout().then(|| {
        format!(
            "`{}`: {failure}: its stack could not be taken, so it is a failure of its own, \
             and reducing it keeps any timeout of its target",
            path.display()
        )
    })
}

impl From<EngineStop> for StopReason {
    fn from(reason: EngineStop) -> StopReason {
        match reason {
            EngineStop::MaxTests => StopReason::MaxTests,
            EngineStop::MaxTime => StopReason::MaxTime,
            EngineStop::Interrupted => StopReason::Interrupted,
            EngineStop::OnePass => StopReason::OnePass,
        }
    }
}

impl From<FuzzEngine> for Engine {
    fn from(engine: FuzzEngine) -> Engine {
        match engine {
            FuzzEngine::LibFuzzer => Engine::Libfuzzer,
            FuzzEngine::Afl => Engine::Afl,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The wire names are the ones cargo-reduce's own types print in
    /// human output (a renamed variant on either side shows here).
    #[test]
    fn wire_names_match_the_internal_names() {
        for reason in [
            EngineStop::MaxTests,
            EngineStop::MaxTime,
            EngineStop::Interrupted,
            EngineStop::OnePass,
        ] {
            assert_eq!(
                wire(StopReason::from(reason)),
                format!("\"{}\"", reason.name())
            );
        }
        for engine in [FuzzEngine::LibFuzzer, FuzzEngine::Afl] {
            assert_eq!(
                wire(Engine::from(engine)),
                format!("\"{}\"", engine.as_str())
            );
        }
    }

    #[test]
    fn only_a_timeout_without_a_stack_is_warned_of_with_its_reason() {
        use crate::fuzz::pool::FailureKind;
        let message =
            "timeout after 1s (no stack: no answer in 10.0 s, 0 ms of CPU since, runnable)";
        let unplaced = Failure::new(FailureKind::Timeout, message);
        let path = Path::new("t/timeout-1");
        let warning = unplaced_timeout_warning(&unplaced, path).unwrap();
        assert!(
            warning.starts_with(&format!("`t/timeout-1`: {message}: its stack could not")),
            "{warning}"
        );
        let placed = Failure {
            location: Some("t::spin".into()),
            ..unplaced
        };
        assert_eq!(unplaced_timeout_warning(&placed, path), None);
    }

    fn wire(value: impl serde::Serialize) -> String {
        serde_json::to_string(&value).unwrap()
    }
}
