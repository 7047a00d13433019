//! The flattened crate as a [`Subject`] of the reduction workflow: checked
//! three times (an ICE that comes and goes is refused as flaky), pruned of
//! what rustc calls unused, reduced by the syntax reducer (`best`) with the
//! ICE's signature as the oracle, (with `--format`) formatted by rustfmt
//! when the formatted text still crashes the same way, and its command
//! line cut to the flags the result needs.

use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use super::flags::reduce_flags;
use super::invocation::Invocation;
use super::oracle::{IceOracle, RustcRun};
use super::prune::prune;
use crate::command::{filter, RunStatus};
use crate::engine::{Cancel, OracleError};
use crate::error::{Error, Exit};
use crate::job::message::{How, Plan};
use crate::job::{Reduced, Run, Subject};
use crate::syntax::{self, Lang, Strategy};

/// Runs of the input before reducing: an ICE must show in every one.
pub(crate) const REPRODUCTIONS: usize = 3;

/// The default per-test timeout is this many times the slowest input run…
const TIMEOUT_FACTOR: u32 = 10;
/// …and at least this long.
const MIN_TIMEOUT: Duration = Duration::from_secs(5);

/// What the reduction of one ICE does besides HDD.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Steps {
    /// Delete the items rustc warns are unused first.
    pub(crate) prune: bool,
    /// rustfmt the result if it keeps the ICE.
    pub(crate) format: bool,
}

/// The flattened crate and its oracle.
pub(crate) struct IceSubject {
    pub(crate) oracle: IceOracle,
    /// `--timeout`, if given.
    pub(crate) timeout: Option<Duration>,
    pub(crate) steps: Steps,
    /// The rustc command shown in `reduction-started`.
    pub(crate) command: String,
    /// The oracle's command line without the flags the reduced code does
    /// not need, when it needs fewer ([`reduce_flags`]).
    pub(crate) fewer_flags: OnceLock<Invocation>,
}

impl Subject for IceSubject {
    fn how(&self) -> How {
        How::Command {
            command: self.command.clone(),
            plan: Plan::Syntax {
                lang: Lang::Rust.name().to_string(),
                strategy: Strategy::Best.to_string(),
            },
        }
    }

    fn check(&mut self, input: &[u8], run: &Run<'_>) -> Result<(), Error> {
        let cancel = Cancel::by_limits(run.interrupt_only);
        let mut slowest = Duration::ZERO;
        for attempt in 0..REPRODUCTIONS {
            let result = self.oracle.rustc.run(input, &cancel).map_err(environment)?;
            run.counters.add_test();
            slowest = slowest.max(result.elapsed);
            self.check_run(&result, input, attempt)?;
        }
        self.oracle.rustc.set_timeout(
            self.timeout
                .unwrap_or_else(|| (slowest * TIMEOUT_FACTOR).max(MIN_TIMEOUT)),
        );
        Ok(())
    }

    fn reduce(&self, input: Vec<u8>, run: &Run<'_>) -> Result<Reduced, (Vec<u8>, OracleError)> {
        let cancel = Cancel::by_limits(run.limits);
        let mut current = input;
        if self.steps.prune {
            run.start_pass("rustc's unused items");
            let text = String::from_utf8_lossy(&current).into_owned();
            let pruned = prune(&text, &self.oracle, &cancel, &|| run.counters.add_test())
                .map_err(|e| (current.clone(), e.into()))?;
            current = pruned.into_bytes();
        }
        run.start_pass("rust best");
        let reduction = syntax::reduce_in(
            &current,
            Lang::Rust,
            &Strategy::Best,
            &self.oracle,
            &run.context(),
        )
        .map_err(|e| (e.best, e.source))?;
        let mut bytes = reduction.atoms;
        if self.steps.format && run.limits.stop_reason().is_none() {
            if let Some(formatted) = rustfmt(&bytes, &self.oracle) {
                let kept = self.oracle.same_ice(&formatted, &cancel);
                run.counters.add_test();
                if matches!(kept, Ok(Some(true))) {
                    bytes = formatted;
                }
            }
        }
        if run.limits.stop_reason().is_none() {
            run.start_pass("rustc's flags");
            let fewer = reduce_flags(&bytes, &self.oracle, &run.plain_context())
                .map_err(|e| (bytes.clone(), e))?;
            if let Some(invocation) = fewer {
                let _ = self.fewer_flags.set(invocation);
            }
        }
        Ok(Reduced::unchecked(bytes))
    }

    fn verify(&self, bytes: &[u8], run: &Run<'_>) -> Result<(), Error> {
        let cancel = Cancel::by_limits(run.interrupt_only);
        let result = self.oracle.rustc.run(bytes, &cancel).map_err(environment)?;
        run.counters.add_test();
        if result.status == RunStatus::Cancelled {
            return Err(Error::new(
                Exit::Interrupted,
                "interrupted during the final check",
            ));
        }
        match result.signature() {
            Some(s) if self.oracle.is_expected(&s, bytes) => Ok(()),
            _ => Err(Error::new(
                Exit::Flaky,
                "the ICE is flaky: the reduced file crashed rustc before but not when compiled again; nothing written",
            )),
        }
    }
}

impl IceSubject {
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
                return Err(Error::new(
                    Exit::Interrupted,
                    "interrupted before the reduction started; nothing written",
                ))
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
            (status, None) => format!("no ICE ({status})"),
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

/// The error when rustc cannot run at all.
fn environment(e: std::io::Error) -> Error {
    Error::caused(Exit::Environment, "cannot run rustc", e)
}

/// `source` as rustfmt formats it for the command's edition, if rustfmt
/// is installed and accepts it.
fn rustfmt(source: &[u8], oracle: &IceOracle) -> Option<Vec<u8>> {
    let edition = oracle.rustc.invocation.edition();
    let mut rustfmt = Command::new("rustfmt");
    rustfmt.args(["--edition", edition, "--quiet"]);
    filter(rustfmt, source)
}
