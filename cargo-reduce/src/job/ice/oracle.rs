//! The oracle that keeps a candidate when rustc crashes on it the same way
//! as on the input.

use std::io;

use super::rustc::args::RustcArgs;
use super::rustc::run::Rustc;
use super::rustc::signature::{Match, Signature, Spelled};
use crate::command::RunStatus;
use crate::engine::{Cancel, Candidate, Oracle, OracleError, Outcome};
use crate::unit::{concat_into, ByteAtom};

/// Keeps a candidate when rustc crashes on it with the expected ICE.
pub(crate) struct IceOracle {
    /// How rustc runs.
    pub(crate) rustc: Rustc,
    /// The input's ICE.
    pub(crate) expected: Signature,
    /// How closely a candidate's ICE must agree.
    pub(crate) level: Match,
    /// The words of the input the expected ICE came from.
    pub(crate) spelled: Spelled,
}

impl IceOracle {
    /// The oracle for the same ICE in `text`, compiled by `invocation`: a
    /// dependency taken into the MCVE brings its own words.
    pub(crate) fn for_text(&self, invocation: RustcArgs, text: &[u8]) -> IceOracle {
        IceOracle {
            rustc: self.rustc.with_invocation(invocation),
            expected: self.expected.clone(),
            level: self.level,
            spelled: self.spelled.with(text),
        }
    }

    /// Whether `got`, rustc's ICE on `source`, is the expected one: the
    /// names of the message are the words of either source.
    pub(crate) fn is_expected(&self, got: &Signature, source: &[u8]) -> bool {
        let candidate = Spelled::of(source);
        let spelled = |w: &str| self.spelled.contains(w) || candidate.contains(w);
        got.matches(&self.expected, self.level, &spelled)
    }

    /// What rustc says of `source`.
    pub(crate) fn same_ice(&self, source: &[u8], cancel: &Cancel<'_>) -> Verdict {
        self.same_ice_by(&self.rustc, source, cancel)
    }

    /// What rustc says of `source` when `rustc` compiles it.
    pub(crate) fn same_ice_by(&self, rustc: &Rustc, source: &[u8], cancel: &Cancel<'_>) -> Verdict {
        match rustc.run(source, cancel) {
            Err(e) => Verdict::CouldNotRun(CouldNotRun(e)),
            Ok(run) if run.status == RunStatus::Cancelled => Verdict::Cancelled,
            Ok(run) => match run
                .signature()
                .is_some_and(|s| self.is_expected(&s, source))
            {
                true => Verdict::Same,
                false => Verdict::Other,
            },
        }
    }
}

/// What one compilation of a candidate says.
#[derive(Debug)]
pub(crate) enum Verdict {
    /// rustc crashed the expected way: the candidate keeps the ICE.
    Same,
    /// Anything else (no ICE, another ICE, a timeout): it loses the ICE.
    Other,
    /// Ctrl-C or a limit stopped the compilation: no answer.
    Cancelled,
    /// rustc could not run at all: no candidate can be told, so the
    /// reduction stops with this error rather than count it as lost.
    CouldNotRun(CouldNotRun),
}

/// rustc could not run on a candidate (missing, not executable, no room
/// for its files): the error that stops a reduction.
#[derive(Debug, thiserror::Error)]
#[error("rustc could not run on a candidate: {0}")]
pub(crate) struct CouldNotRun(#[source] pub(crate) io::Error);

impl Verdict {
    /// As the engine's outcome: `None` when cancelled.
    pub(crate) fn outcome(self) -> Result<Option<Outcome>, OracleError> {
        match self {
            Verdict::Same => Ok(Some(Outcome::Interesting)),
            Verdict::Other => Ok(Some(Outcome::NotInteresting)),
            Verdict::Cancelled => Ok(None),
            Verdict::CouldNotRun(e) => Err(e.into()),
        }
    }
}

/// What rustc says of a candidate text: [`IceOracle`]'s verdict, or an
/// auxiliary crate's.
pub(crate) trait TellsIce: Sync {
    /// What rustc says of `text`.
    fn same_ice(&self, text: &[u8], cancel: &Cancel<'_>) -> Verdict;
}

impl TellsIce for IceOracle {
    fn same_ice(&self, text: &[u8], cancel: &Cancel<'_>) -> Verdict {
        IceOracle::same_ice(self, text, cancel)
    }
}

/// A [`TellsIce`] as the engine's oracle, over a candidate's text.
pub(crate) struct ByText<'a, T: ?Sized>(pub(crate) &'a T);

impl<A: ByteAtom + Sync, T: TellsIce + ?Sized> Oracle<A> for ByText<'_, T> {
    fn test(
        &self,
        candidate: &Candidate<'_, A>,
        cancel: &Cancel<'_>,
    ) -> Result<Option<Outcome>, OracleError> {
        let mut text = Vec::new();
        concat_into(candidate.iter(), &mut text);
        self.0.same_ice(&text, cancel).outcome()
    }
}

/// Compiles `file` in `dir` with the real rustc as a 2021 library, for
/// the tests that check a rewritten crate still builds: rustc's stderr
/// when it fails.
#[cfg(test)]
pub(crate) fn compile_lib(dir: &std::path::Path, file: &str) -> Result<(), String> {
    let out = std::process::Command::new("rustc")
        .args(["--edition=2021", "--crate-type=lib", file, "--out-dir", "."])
        .current_dir(dir)
        .output()
        .expect("rustc runs");
    match out.status.success() {
        true => Ok(()),
        false => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
    }
}

/// [`compile_lib`] on `source`, as a file of a directory of its own.
#[cfg(test)]
pub(crate) fn compile_lib_source(source: &str) -> Result<(), String> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("one.rs"), source).expect("the file is written");
    compile_lib(dir.path(), "one.rs")
}

#[cfg(test)]
pub(crate) use super::pinned_toolchain::{
    ice_toolchain, pinned as pin_ice_toolchain, ICE_TOOLCHAIN,
};

/// The oracle of the ICE that `command` (rustc's, on a file `x.rs`) gives
/// on `source` under [`ICE_TOOLCHAIN`], for the tests of the steps that use
/// one (after [`ice_toolchain`]).
#[cfg(test)]
pub(crate) fn oracle_for(source: &str, command: &str) -> IceOracle {
    use crate::engine::Limits;
    let mut invocation =
        RustcArgs::parse(command, std::path::Path::new("/")).expect("a rustc command");
    let pin = ("RUSTUP_TOOLCHAIN".to_string(), ICE_TOOLCHAIN.to_string());
    invocation.env.push(pin);
    let rustc = Rustc::new(
        invocation,
        "x.rs".into(),
        std::time::Duration::from_secs(120),
        None,
        false,
    );
    let never = Limits::none();
    let first = rustc
        .run(source.as_bytes(), &Cancel::by_limits(&never))
        .unwrap();
    let Some(expected) = first.signature() else {
        panic!(
            "rustc {ICE_TOOLCHAIN} crashes on this; it did not:\n{}",
            first.stderr
        );
    };
    IceOracle {
        rustc,
        expected,
        level: Match::Message,
        spelled: Spelled::of(source.as_bytes()),
    }
}
