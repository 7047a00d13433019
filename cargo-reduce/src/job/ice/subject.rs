//! The flattened crate as a [`Subject`] of the reduction workflow: checked
//! three times (an ICE that comes and goes is refused as flaky), pruned of
//! what rustc calls unused, reduced by the syntax reducer (`best`) with the
//! ICE's signature as the oracle, and its command line cut to the flags
//! the result needs; then, for each dependency the result still needs,
//! that dependency taken in and all of it again, or, for a cross-crate
//! ICE, built beside it (reduced, the names both spell renamed together)
//! and the MCVE reduced again against it. Last, with `--pretty`, the
//! result is repaired and formatted, and its auxiliaries formatted, where
//! that still crashes rustc the same way; and it ends with a newline where
//! that does.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Duration;

use crate::command::RunStatus;
use crate::engine::{Cancel, OracleError};
use crate::error::{Error, Exit};
use crate::job::ice::deps::artifacts::auxiliaries_in;
use crate::job::ice::deps::auxiliary::{auxiliaries, Auxiliary, AuxiliaryOracle, Built};
use crate::job::ice::deps::shared_names::{fresh, renamed, shared};
use crate::job::ice::deps::take_in::take_in_one;
use crate::job::ice::oracle::{ByText, IceOracle};
use crate::job::ice::rustc::args::RustcArgs;
use crate::job::ice::rustc::run::RustcRun;
use crate::job::ice::steps::flags::{reduce_flags, reduce_invocation};
use crate::job::ice::steps::prune::{hollowed, prune};
use crate::job::ice::steps::readable::{readable, rustfmt};
use crate::job::ice::tester::Tester;
use crate::job::message::{How, Plan};
use crate::job::{Reduced, Run, Subject};
use crate::syntax::{self, Lang, Strategy};

/// Runs of the input before reducing: an ICE must show in every one.
pub(crate) const REPRODUCTIONS: usize = 3;

/// Why nothing is written when Ctrl-C stops the input's checks.
const INTERRUPTED_BEFORE: &str = "interrupted before the reduction started; nothing written";

/// The default per-test timeout is this many times the slowest input run…
const TIMEOUT_FACTOR: u32 = 10;
/// …and at least this long.
const MIN_TIMEOUT: Duration = Duration::from_secs(5);

/// What the reduction of one ICE does besides HDD.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Steps {
    /// Delete the items rustc warns are unused first.
    pub(crate) prune: bool,
    /// Take the source of a dependency the result still needs into it.
    pub(crate) take_in: bool,
    /// Repair and rustfmt the result if it keeps the ICE.
    pub(crate) format: bool,
    /// The syntax reducer's strategy, for the MCVE and its auxiliaries.
    pub(crate) strategy: Strategy,
}

/// The flattened crate and its oracle.
pub(crate) struct IceSubject {
    pub(crate) oracle: IceOracle,
    /// `--timeout`, if given.
    pub(crate) timeout: Option<Duration>,
    pub(crate) steps: Steps,
    /// The rustc command shown in `reduction-started`.
    pub(crate) command: String,
    /// The command lines the build ran before the crash: the sources of
    /// the dependencies an MCVE may take in ([`take_in_one`]).
    pub(crate) compiled: Vec<RustcArgs>,
    /// The run's temporary directory, where the build wrote the files its
    /// build scripts generate.
    pub(crate) temporary: PathBuf,
}

/// What the reduction of an ICE gives back besides the MCVE.
#[derive(Debug, Clone)]
pub(crate) struct IceReduced {
    /// The command line the MCVE crashes rustc with: without the flags it
    /// does not need ([`reduce_flags`]), with a dependency taken in or
    /// built beside it.
    pub(crate) command: RustcArgs,
    /// The auxiliary crates it is compiled against, in the order they are
    /// built.
    pub(crate) auxiliaries: Vec<Auxiliary>,
}

/// The MCVE's code as one step leaves it, and the oracle that tells its
/// ICE (its command line the MCVE's).
struct Stage {
    bytes: Vec<u8>,
    oracle: IceOracle,
}

/// A step's error: the best bytes so far, with the oracle's error.
type StepError = (Vec<u8>, OracleError);

impl Subject for IceSubject {
    type Extra = IceReduced;

    fn how(&self) -> How {
        How::Command {
            command: self.command.clone(),
            plan: Plan::Syntax {
                lang: Lang::Rust.name().to_string(),
                strategy: self.steps.strategy.to_string(),
            },
        }
    }

    fn check(&mut self, input: &[u8], run: &Run<'_>) -> Result<(), Error> {
        let tester = Tester::checks(run);
        let mut slowest = Duration::ZERO;
        for attempt in 0..REPRODUCTIONS {
            let Some(result) = tester.compile(|cancel| self.oracle.rustc.run(input, cancel)) else {
                return Err(Error::new(Exit::Interrupted, INTERRUPTED_BEFORE));
            };
            let result = result.map_err(environment)?;
            slowest = slowest.max(result.elapsed);
            self.check_run(&result, input, attempt)?;
        }
        self.oracle.rustc.set_timeout(
            self.timeout
                .unwrap_or_else(|| (slowest * TIMEOUT_FACTOR).max(MIN_TIMEOUT)),
        );
        Ok(())
    }

    /// The code reduced and its flags cut; its dependencies taken in, or
    /// built beside it; last, made readable.
    fn reduce(&self, input: Vec<u8>, run: &Run<'_>) -> Result<Reduced<IceReduced>, StepError> {
        let bytes = self.reduce_code(&self.oracle, input, run)?;
        let invocation = self.fewer_flags(&bytes, &self.oracle, run)?;
        let alone = self.taken_in(bytes, invocation, run)?;
        let (mut last, mut auxiliaries) = match self.steps.take_in {
            true => self.with_auxiliaries(alone, run)?,
            false => (alone, Vec::new()),
        };
        // Last, so that no later step shrinks it back.
        if self.steps.format && run.limits.stop_reason().is_none() {
            last.bytes = self.readable(last.bytes, &last.oracle, &mut auxiliaries, run)?;
        }
        if run.limits.stop_reason().is_none() {
            last.bytes = with_final_newline(last.bytes, &last.oracle, run)?;
        }
        let extra = IceReduced {
            command: last.oracle.rustc.invocation,
            auxiliaries,
        };
        Ok(Reduced::unchecked(last.bytes, extra))
    }

    fn verify(&self, reduced: &Reduced<IceReduced>, run: &Run<'_>) -> Result<(), Error> {
        let rustc = self
            .oracle
            .rustc
            .with_invocation(reduced.extra.command.clone());
        let result = Tester::checks(run).compile(|cancel| rustc.run(&reduced.bytes, cancel));
        let result = result.transpose().map_err(environment)?;
        let Some(result) = result.filter(|r| r.status != RunStatus::Cancelled) else {
            return Err(Error::new(
                Exit::Interrupted,
                "interrupted during the final check",
            ));
        };
        match result.signature() {
            Some(s) if self.oracle.is_expected(&s, &reduced.bytes) => Ok(()),
            _ => Err(Error::new(
                Exit::Flaky,
                "the ICE is flaky: the reduced file crashed rustc before but not when compiled again; nothing written",
            )),
        }
    }
}

impl IceSubject {
    /// Prunes and reduces with the syntax reducer `input`, which crashes
    /// rustc as `oracle` expects.
    fn reduce_code(
        &self,
        oracle: &IceOracle,
        input: Vec<u8>,
        run: &Run<'_>,
    ) -> Result<Vec<u8>, StepError> {
        let mut current = input;
        if self.steps.prune {
            run.start_pass("rustc's unused items");
            let text = String::from_utf8_lossy(&current).into_owned();
            let pruned =
                prune(&text, oracle, &Tester::cached(run)).map_err(|e| (current.clone(), e))?;
            current = pruned.into_bytes();
        }
        run.start_pass(&format!("rust {}", self.steps.strategy));
        let reduction = syntax::reduce_in(
            &current,
            Lang::Rust,
            &self.steps.strategy,
            &ByText(oracle),
            &run.context(),
        )
        .map_err(|e| (e.best, e.source))?;
        Ok(reduction.atoms)
    }

    /// `oracle`'s command line without the flags `bytes` does not need
    /// (as it is when the limits stopped the reduction).
    fn fewer_flags(
        &self,
        bytes: &[u8],
        oracle: &IceOracle,
        run: &Run<'_>,
    ) -> Result<RustcArgs, StepError> {
        let invocation = oracle.rustc.invocation.clone();
        if run.limits.stop_reason().is_some() {
            return Ok(invocation);
        }
        run.start_pass("rustc's flags");
        let fewer =
            reduce_flags(bytes, oracle, &run.plain_context()).map_err(|e| (bytes.to_vec(), e))?;
        let Some(fewer) = fewer else {
            return Ok(invocation);
        };
        // The cached outcomes were the longer command line's.
        run.oracle_changed();
        Ok(fewer)
    }

    /// `bytes` (which `invocation` crashes rustc on) with each dependency
    /// it still needs taken in where that keeps the ICE, reduced again
    /// each time ([`take_in_one`]).
    fn taken_in(
        &self,
        mut bytes: Vec<u8>,
        mut invocation: RustcArgs,
        run: &Run<'_>,
    ) -> Result<Stage, StepError> {
        let mut taken_in: Option<IceOracle> = None;
        let mut tried = HashSet::new();
        while self.steps.take_in && run.limits.stop_reason().is_none() {
            let oracle = taken_in.as_ref().unwrap_or(&self.oracle);
            let next = self.next_taken_in(&bytes, &invocation, oracle, &mut tried, run);
            let Some((text, next)) = next.map_err(|e| (bytes.clone(), e))? else {
                break;
            };
            run.oracle_changed();
            bytes = self.reduce_code(&next, text, run)?;
            invocation = self.fewer_flags(&bytes, &next, run)?;
            taken_in = Some(next);
        }
        let oracle = taken_in.as_ref().unwrap_or(&self.oracle);
        Ok(Stage {
            oracle: oracle.for_text(invocation, &[]),
            bytes,
        })
    }

    /// `bytes` with the next dependency of `invocation` not in `tried`
    /// taken in ([`take_in_one`]) where that keeps the ICE `oracle` tells,
    /// and the oracle of that text; `None` when no dependency is left.
    fn next_taken_in(
        &self,
        bytes: &[u8],
        invocation: &RustcArgs,
        oracle: &IceOracle,
        tried: &mut HashSet<String>,
        run: &Run<'_>,
    ) -> Result<Option<(Vec<u8>, IceOracle)>, OracleError> {
        let rustc = oracle.rustc.with_invocation(invocation.clone());
        // Not the cache's oracle yet.
        let tester = Tester::uncached(run);
        let expand = |code: &[u8]| {
            let expanded = tester.compile(|cancel| rustc.expanded(code, cancel));
            expanded.and_then(|e| e.ok().flatten())
        };
        let (compiled, temporary) = (&self.compiled, &self.temporary);
        while !tester.stopped() {
            let Some(taken) = take_in_one(bytes, invocation, compiled, temporary, &expand, tried)
            else {
                break;
            };
            let next = oracle.for_text(taken.invocation, &taken.text);
            let how = if taken.expanded {
                "expanded"
            } else {
                "taken in"
            };
            run.start_pass(&format!("dependency `{}` {how}", taken.name));
            if tester.keeps(&next, &taken.text)? {
                return Ok(Some((taken.text, next)));
            }
        }
        Ok(None)
    }

    /// `alone` compiled against each dependency it still needs that works
    /// as an auxiliary crate: that crate's source and flags reduced
    /// first, then the MCVE and its flags again against it
    /// ([`crate::job::ice::deps::auxiliary`]). The last stage, and the
    /// auxiliaries it is compiled against.
    fn with_auxiliaries(
        &self,
        alone: Stage,
        run: &Run<'_>,
    ) -> Result<(Stage, Vec<Auxiliary>), StepError> {
        let Stage {
            mut bytes,
            oracle: mut current,
        } = alone;
        let mut kept = Vec::new();
        let invocation = current.rustc.invocation.clone();
        for auxiliary in auxiliaries(&invocation, &self.compiled, &self.temporary) {
            if run.limits.stop_reason().is_some() {
                break;
            }
            // Reduced against an earlier auxiliary, the MCVE may need this
            // dependency no more.
            if !current
                .rustc
                .invocation
                .externs()
                .any(|(name, _)| name == auxiliary.name)
            {
                continue;
            }
            run.start_pass(&format!("dependency `{}` beside", auxiliary.name));
            let stage = Stage {
                bytes,
                oracle: current,
            };
            let (next, built) = self.beside(stage, &auxiliary, run)?;
            (bytes, current) = (next.bytes, next.oracle);
            kept.extend(built);
        }
        let last = Stage {
            bytes,
            oracle: current,
        };
        Ok((last, kept))
    }

    /// `stage` against `auxiliary` reduced and built beside it, when the
    /// MCVE still crashes rustc that way: the MCVE and its flags reduced
    /// again, and the auxiliary kept. Else `stage` as it was.
    fn beside(
        &self,
        stage: Stage,
        auxiliary: &Auxiliary,
        run: &Run<'_>,
    ) -> Result<(Stage, Option<Auxiliary>), StepError> {
        let invocation = stage.oracle.rustc.invocation.clone();
        let mcve_oracle = stage.oracle.for_text(invocation.clone(), &auxiliary.text);
        let reduced = self
            .reduce_auxiliary(auxiliary, &stage.bytes, &mcve_oracle, run)
            .map_err(|e| (stage.bytes.clone(), e))?;
        let Some(reduced) = reduced else {
            return Ok((stage, None));
        };
        let (reduced, bytes) = rename_shared(reduced, stage.bytes, &mcve_oracle, run)?;
        let dir = auxiliaries_in(&self.temporary).join(&auxiliary.name);
        let built = std::fs::create_dir_all(&dir).and_then(|()| {
            let rustc = reduced.rustc(&mcve_oracle.rustc);
            reduced.build(&rustc, &reduced.text, &dir, &Cancel::by_limits(run.limits))
        });
        let library = match built {
            Ok(Built::Library(library)) => library,
            Ok(_) => {
                return Ok((
                    Stage {
                        bytes,
                        oracle: stage.oracle,
                    },
                    None,
                ))
            }
            Err(e) => return Err((bytes, e.into())),
        };
        let invocation = invocation.with_extern(&reduced.name, &library.to_string_lossy());
        let current = mcve_oracle.for_text(invocation, &reduced.text);
        run.oracle_changed();
        let bytes = self.reduce_code(&current, bytes, run)?;
        // The flags the whole dependency needed (its own `-L`) may go.
        let invocation = self.fewer_flags(&bytes, &current, run)?;
        let oracle = current.for_text(invocation, &[]);
        Ok((Stage { bytes, oracle }, Some(reduced)))
    }

    /// `auxiliary` with its source reduced, if the MCVE `bytes` crashes
    /// rustc as `mcve_oracle` expects when compiled against it.
    fn reduce_auxiliary(
        &self,
        auxiliary: &Auxiliary,
        bytes: &[u8],
        mcve_oracle: &IceOracle,
        run: &Run<'_>,
    ) -> Result<Option<Auxiliary>, OracleError> {
        if !crashes_against(auxiliary, bytes, mcve_oracle, &Tester::uncached(run))? {
            return Ok(None);
        }
        let oracle = AuxiliaryOracle::new(auxiliary, bytes, mcve_oracle);
        run.oracle_changed();
        // Its bodies first, as the MCVE's (prune): a cross-crate ICE is
        // most often in what the MCVE sees of it, its signatures.
        let source = String::from_utf8_lossy(&auxiliary.text);
        let text = hollowed(&source, &oracle, &Tester::cached(run))?.into_bytes();
        let context = run.side_context();
        let reduction = syntax::reduce_in(
            &text,
            Lang::Rust,
            &self.steps.strategy,
            &ByText(&oracle),
            &context,
        )
        .map_err(|e| e.source)?;
        let reduced = Auxiliary {
            text: reduction.atoms,
            ..auxiliary.clone()
        };
        fewer_auxiliary_flags(reduced, bytes, mcve_oracle, run).map(Some)
    }

    /// `bytes` repaired and rustfmt'd where that keeps the ICE `last`
    /// expects ([`readable`]); then each auxiliary crate rustfmt'd where the
    /// MCVE still crashes rustc that way against it (the formatted pair is
    /// what is tested).
    fn readable(
        &self,
        bytes: Vec<u8>,
        last: &IceOracle,
        auxiliaries: &mut [Auxiliary],
        run: &Run<'_>,
    ) -> Result<Vec<u8>, StepError> {
        let bytes = readable(&bytes, last, &Tester::cached(run)).map_err(|e| (bytes.clone(), e))?;
        // An auxiliary's outcome is the pair's, not its text's.
        let tester = Tester::uncached(run);
        for auxiliary in auxiliaries.iter_mut() {
            let edition = auxiliary.invocation.edition();
            let Some(pretty) = rustfmt(&auxiliary.text, edition).filter(|p| *p != auxiliary.text)
            else {
                continue;
            };
            let candidate = Auxiliary {
                text: pretty,
                ..auxiliary.clone()
            };
            let kept = crashes_against(&candidate, &bytes, last, &tester);
            if kept.map_err(|e| (bytes.clone(), e))? {
                *auxiliary = candidate;
            }
        }
        Ok(bytes)
    }

    /// The error for the `attempt`-th run of `input`, if it did not ICE
    /// the expected way.
    fn check_run(&self, result: &RustcRun, input: &[u8], attempt: usize) -> Result<(), Error> {
        let expected = &self.oracle.expected;
        let got = result.signature();
        if got
            .as_ref()
            .is_some_and(|s| self.oracle.is_expected(s, input))
        {
            return Ok(());
        }
        let what = match (&result.status, &got) {
            (RunStatus::Cancelled, _) => {
                return Err(Error::new(Exit::Interrupted, INTERRUPTED_BEFORE))
            }
            (RunStatus::TimedOut, _) => {
                return Err(Error::new(
                    Exit::TimedOut,
                    format!(
                        "rustc timed out after {:.1} s on the single-file crate: raise --timeout",
                        result.elapsed.as_secs_f64()
                    ),
                ))
            }
            (_, Some(other)) => format!("another ICE ({other})"),
            (status, None) => match result.first_error() {
                Some(error) => format!("no ICE ({status}: {error})"),
                None => format!("no ICE ({status})"),
            },
        };
        let level = self.oracle.level;
        Err(match attempt {
            0 => Error::new(
                Exit::NotInteresting,
                format!(
                    "the crate as one file gives {what}, not the build's ICE ({}): try --match location, or report the crate as it is",
                    expected.describe(level)
                ),
            ),
            _ => Error::new(
                Exit::Flaky,
                format!(
                    "the ICE is flaky: run {} of {REPRODUCTIONS} gave {what}; an ICE that needs incremental compilation wants --incremental",
                    attempt + 1
                ),
            ),
        })
    }
}

/// `auxiliary` and the MCVE `bytes` with each name the one declares and
/// the other spells renamed in both to a fresh letter, where the MCVE
/// still crashes rustc as `mcve_oracle` expects against it
/// ([`crate::job::ice::deps::shared_names`]).
fn rename_shared(
    mut auxiliary: Auxiliary,
    mut bytes: Vec<u8>,
    mcve_oracle: &IceOracle,
    run: &Run<'_>,
) -> Result<(Auxiliary, Vec<u8>), StepError> {
    let tester = Tester::uncached(run);
    for name in shared(&auxiliary.text, &bytes, &auxiliary.name) {
        let Some(to) = fresh(&auxiliary.text, &bytes).into_iter().next() else {
            break;
        };
        if tester.stopped() {
            break;
        }
        let candidate = Auxiliary {
            text: renamed(&auxiliary.text, &name, &to),
            ..auxiliary.clone()
        };
        let mcve = renamed(&bytes, &name, &to);
        let kept = crashes_against(&candidate, &mcve, mcve_oracle, &tester);
        if kept.map_err(|e| (bytes.clone(), e))? {
            (auxiliary, bytes) = (candidate, mcve);
        }
    }
    Ok((auxiliary, bytes))
}

/// `auxiliary` without the flags its command line does not need for the
/// MCVE `bytes` to crash rustc as `mcve_oracle` expects against it
/// ([`reduce_invocation`]).
fn fewer_auxiliary_flags(
    auxiliary: Auxiliary,
    bytes: &[u8],
    mcve_oracle: &IceOracle,
    run: &Run<'_>,
) -> Result<Auxiliary, OracleError> {
    let same_ice = |invocation, cancel: &Cancel<'_>| {
        let candidate = Auxiliary {
            invocation,
            ..auxiliary.clone()
        };
        AuxiliaryOracle::new(&candidate, bytes, mcve_oracle).same_ice(&candidate.text, cancel)
    };
    let fewer = reduce_invocation(&auxiliary.invocation, &same_ice, &run.plain_context())?;
    Ok(match fewer {
        Some(invocation) => Auxiliary {
            invocation,
            ..auxiliary
        },
        None => auxiliary,
    })
}

/// Whether the MCVE `mcve`, compiled against `auxiliary` built from its
/// text, crashes rustc as `mcve_oracle` expects; one test of `tester`'s.
fn crashes_against(
    auxiliary: &Auxiliary,
    mcve: &[u8],
    mcve_oracle: &IceOracle,
    tester: &Tester<'_>,
) -> Result<bool, OracleError> {
    let oracle = AuxiliaryOracle::new(auxiliary, mcve, mcve_oracle);
    tester.keeps(&oracle, &auxiliary.text)
}

/// `bytes` ending with a newline, as a source file does, if it still
/// crashes rustc as `oracle` expects (the reducer removes the newline as
/// any other byte).
fn with_final_newline(
    bytes: Vec<u8>,
    oracle: &IceOracle,
    run: &Run<'_>,
) -> Result<Vec<u8>, StepError> {
    if bytes.is_empty() || bytes.ends_with(b"\n") {
        return Ok(bytes);
    }
    let ended = [bytes.as_slice(), b"\n"].concat();
    match Tester::cached(run).keeps(oracle, &ended) {
        Ok(true) => Ok(ended),
        Ok(false) => Ok(bytes),
        Err(e) => Err((bytes, e)),
    }
}

/// The error when rustc cannot run at all.
fn environment(e: std::io::Error) -> Error {
    Error::caused(Exit::Environment, "cannot run rustc", e)
}
