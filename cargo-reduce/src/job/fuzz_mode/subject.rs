//! One artifact's way through fuzz mode: read, reproduced in its target's
//! pool, reduced while it fails the same way, checked and written.

use std::path::Path;
use std::time::Instant;

use super::limits::LimitsOverride;
use super::{Context, Row, Work};
use crate::engine::OracleError;
use crate::error::{Error, Exit};
use crate::fuzz::oracle::{HarnessOracle, MatchLevel, OtherFailure};
use crate::fuzz::pool::{Failure, FailureKind, PoolError, WorkerPool};
use crate::fuzz::project::TargetSettings;
use crate::fuzz::shrink::{self, Method};
use crate::job::message::{unplaced_timeout_warning, How, Plan};
use crate::job::{
    Described, Done, Job, LangChoice, Message, Partial, Reduced, Run, Settings, Subject,
};
use crate::output::Destination;
use crate::syntax::{Lang, Strategy};

/// Reproduces, reduces, checks and writes one artifact; times it.
/// Reduces `work` in `pool`; `known`: its failure, when replaying it
/// found it already.
pub(in crate::job) fn reduce_one(
    work: &Work,
    pool: &WorkerPool,
    known: Option<Failure>,
    cx: Context<'_>,
) -> Row {
    let started = Instant::now();
    let result = reduce_artifact(work, pool, known, cx);
    work.row(started.elapsed(), result)
}

fn reduce_artifact(
    work: &Work,
    pool: &WorkerPool,
    known: Option<Failure>,
    Context {
        request,
        settings,
        events,
    }: Context<'_>,
) -> Result<Reduction, Error> {
    let path = &work.artifact.path;
    let bytes = std::fs::read(path).map_err(|e| {
        Error::caused(
            Exit::BadInput,
            format!("cannot read artifact `{}`", path.display()),
            e,
        )
    })?;
    if let Some(dir) = work.artifact.output.parent().filter(|d| !d.is_dir()) {
        // `artifacts/<target>/` of an afl.rs crate, or `--out-dir`'s:
        // cargo-reduce's to make.
        std::fs::create_dir_all(dir).map_err(|e| {
            Error::caused_with_hint(
                Exit::BadInput,
                format!("cannot create `{}`", dir.display()),
                e,
                "check its permissions",
            )
        })?;
    }
    let output = Destination::check(&work.artifact.output)?;
    let partial = Destination::check(&work.artifact.partial)?;
    let options = &work.options;
    let limits = work.limits(&request.options);
    let _limits = LimitsOverride::new(pool, limits);
    let mut subject = ArtifactSubject {
        pool,
        target: &work.target,
        manifest_path: request.selection.manifest_path.as_deref(),
        path,
        timeout_artifact: work.is_timeout(),
        matching: options.matching(),
        method: method(options, settings, &bytes),
        failure: known,
        resume: std::fs::read(&work.artifact.partial)
            .ok()
            .filter(|partial| partial.len() < bytes.len()),
    };
    let job = Job {
        input: path,
        label: work.name(),
        bytes,
        output: &output,
        partial: Some(Partial {
            destination: &partial,
            input_stands: true,
        }),
    };
    crate::job::reduce(&mut subject, job, settings, events)
}

/// Bytes, or with `lang` (`--lang` or the target's) syntax-aware (`auto`:
/// by content, since artifacts have no extension).
fn method(options: &TargetSettings, settings: &Settings, bytes: &[u8]) -> Method {
    let lang = match options.lang {
        None => return Method::Bytes(settings.ddmin, options.effort()),
        Some(LangChoice::Auto) => Lang::detect(None, bytes),
        Some(LangChoice::Is(lang)) => lang,
    };
    Method::Syntax(lang, options.strategy.unwrap_or(Strategy::Best))
}

/// One artifact in its target's worker pool.
struct ArtifactSubject<'a> {
    pool: &'a WorkerPool,
    target: &'a str,
    /// `--manifest-path`, for the `cargo reduce run` line.
    manifest_path: Option<&'a Path>,
    path: &'a Path,
    timeout_artifact: bool,
    matching: MatchLevel,
    method: Method,
    /// The artifact's failure, once reproduced.
    failure: Option<Failure>,
    /// An earlier run's partial result, to start from if it still fails
    /// the same way.
    resume: Option<Vec<u8>>,
}

impl ArtifactSubject<'_> {
    fn failure(&self) -> &Failure {
        self.failure.as_ref().expect("checked before use")
    }

    fn oracle(&self) -> HarnessOracle<'_> {
        HarnessOracle::new(self.pool, self.failure(), self.matching)
    }
}

/// A finished reduction of an artifact, with the other failures its
/// candidates ran into.
pub(crate) type Reduction = Done<Vec<OtherFailure>>;

impl Subject for ArtifactSubject<'_> {
    type Extra = Vec<OtherFailure>;

    fn how(&self) -> How {
        How::Target {
            target: self.target.to_string(),
            plan: match &self.method {
                Method::Bytes(..) => Plan::Units {
                    unit: "byte".into(),
                },
                Method::Syntax(lang, strategy) => Plan::Syntax {
                    lang: lang.name().to_string(),
                    strategy: strategy.to_string(),
                },
            },
        }
    }

    fn check(&mut self, input: &[u8], run: &Run<'_>) -> Result<(), Error> {
        let failure = match self.failure.take() {
            // Replayed before grouping: already reproduced.
            Some(failure) => failure,
            None => {
                let timeout = self.timeout_artifact;
                shrink::reproduce(self.pool, self.path, input, timeout, self.matching)
                    .map_err(Error::from)?
            }
        };
        for _ in 0..shrink::REPRODUCE_RUNS {
            run.counters.add_test();
        }
        let (text, id) = named(&failure, self.matching);
        run.emit(&Message::ArtifactReproduced {
            path: self.path.to_path_buf(),
            target: self.target.to_string(),
            failure: text,
            failure_id: id,
        });
        if let Some(message) = unplaced_timeout_warning(&failure, self.path) {
            run.emit(&Message::Warning { message });
        }
        self.failure = Some(failure);
        Ok(())
    }

    fn reduce(
        &self,
        input: Vec<u8>,
        run: &Run<'_>,
    ) -> Result<Reduced<Self::Extra>, (Vec<u8>, OracleError)> {
        let oracle = self.oracle();
        let ctx = run.context();
        let input = match &self.resume {
            Some(partial) => {
                run.counters.add_test();
                // Ctrl-C before the partial result ran: the reduction
                // stops at once on the same flag, from the earlier run's
                // result, which its run checked.
                let resumes = match self.pool.run(partial) {
                    Err(PoolError::Interrupted) => true,
                    outcome => oracle.matches(&outcome.map_err(|e| (input.clone(), e.into()))?),
                };
                match resumes {
                    true => partial.clone(),
                    false => input,
                }
            }
            None => input,
        };
        let minimized = if self.failure().kind == FailureKind::Timeout {
            shrink::minimize_hang(input, &oracle, &self.method, &ctx)?
        } else {
            shrink::minimize(input, &oracle, &self.method, &ctx)?
        };
        Ok(Reduced {
            bytes: minimized.bytes,
            checked: minimized.checked,
            extra: oracle.others(),
        })
    }

    fn verify(&self, reduced: &Reduced<Self::Extra>, run: &Run<'_>) -> Result<(), Error> {
        run.counters.add_test();
        shrink::verify(self.pool, &self.oracle(), self.path, &reduced.bytes).map_err(Error::from)
    }

    fn describe(&self, reduced: &[u8], output: &Path) -> Option<Described> {
        let shown = self.failure_of_result(reduced);
        let (failure, failure_id) = named(&shown, self.matching);
        Some(Described {
            target: self.target.to_string(),
            failure,
            failure_id,
            severity: shown.signature().severity(),
            debug: self.pool.debug_format(reduced).ok().flatten(),
            run: crate::job::shell::run_command(self.manifest_path, self.target, output),
        })
    }
}

impl ArtifactSubject<'_> {
    /// The failure `reduced` shows when the user runs it: a panic's own
    /// message, which may quote the input (`found "abc"`), from
    /// one more run; the original's failure if that run fails otherwise or
    /// cannot run. Other failures' texts do not depend on the input's
    /// content, and a hang would wait out its timeout again: the
    /// original's.
    fn failure_of_result(&self, reduced: &[u8]) -> Failure {
        let original = self.failure();
        if original.kind != FailureKind::Panic {
            return original.clone();
        }
        let oracle = self.oracle();
        match self.pool.run(reduced) {
            Ok(outcome) if oracle.matches(&outcome) => outcome.failure().cloned(),
            _ => None,
        }
        .unwrap_or_else(|| original.clone())
    }
}

/// A failure as reports name it: its signature, and the short id of what
/// `matching` compares of it (the same for every input of its group).
pub(in crate::job) fn named(failure: &Failure, matching: MatchLevel) -> (String, String) {
    let signature = failure.signature();
    (signature.to_string(), matching.key(&signature).id())
}
