//! Targets that need a nightly toolchain. A `#![feature]` in a fuzz target
//! (or in a crate it builds on) fails on a stable or beta toolchain with
//! rustc's E0554, while `cargo fuzz build` builds it, because cargo-fuzz
//! runs on nightly. Such targets are built once more with an installed
//! nightly ([`Toolchain::find`]), in a build directory of their own
//! (`build-nightly-…`), so that this build and the other targets' stable
//! one never invalidate each other; the other targets keep their build.
//! Without a nightly, their error says how to install one.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use super::{build_patched_with, Build, BuildError, BuildTarget, Built, Dirs};
use crate::fuzz::toolchain::{Toolchain, INSTALL_NIGHTLY};

/// rustc's error code for `#![feature]` on a toolchain that is not nightly.
const FEATURE_ON_STABLE: &str = "error[E0554]";

/// What a target that needs nightly says when none is installed.
fn no_nightly() -> String {
    format!("it uses `#![feature]`, which needs a nightly toolchain (as `cargo fuzz build` uses), and none is installed: run `{INSTALL_NIGHTLY}`")
}

/// A build's fallback to nightly.
pub(super) struct Fallback<'a> {
    /// The build that ran first.
    pub build: &'a Build<'a>,
    /// Where it ran.
    pub dirs: Dirs<'a>,
    /// The nightly build's directory (made only when needed).
    pub nightly_dir: &'a dyn Fn() -> Result<PathBuf, BuildError>,
    /// Told which targets were built with nightly, in one line.
    pub note: &'a dyn Fn(&str),
}

impl Fallback<'_> {
    /// The first build's outcome (`first`, of `targets`), with each target
    /// that failed for want of nightly built again with nightly.
    pub(super) fn rebuild(
        &self,
        targets: &[BuildTarget<'_>],
        interrupt: &AtomicBool,
        first: Result<Built, BuildError>,
    ) -> Result<Built, BuildError> {
        let mut built = per_target(first, targets.len())?;
        let needy: Vec<usize> = (0..targets.len())
            .filter(|&i| matches!(&built.targets[i], Err(e) if e.contains(FEATURE_ON_STABLE)))
            .collect();
        if needy.is_empty() {
            return Ok(built);
        }
        let Some(nightly) = Toolchain::find() else {
            for &i in &needy {
                if let Err(errors) = &mut built.targets[i] {
                    *errors = format!("{}\n{errors}", no_nightly());
                }
            }
            return Ok(built);
        };
        let subset: Vec<BuildTarget<'_>> = needy.iter().map(|&i| targets[i]).collect();
        let mut again = self.on_nightly(&nightly, &subset, interrupt)?;
        built.compiled.append(&mut again.compiled);
        let mut names = Vec::new();
        for (&i, result) in needy.iter().zip(again.targets) {
            if result.is_ok() {
                names.push(format!("`{}`", targets[i].name));
            }
            built.targets[i] = result.map_err(|errors| {
                format!(
                    "it uses `#![feature]`, so it was built again with toolchain `{}`, which fails too:\n{errors}",
                    nightly.name()
                )
            });
        }
        if !names.is_empty() {
            (self.note)(&format!(
                "built {} with toolchain `{}`: `#![feature]` needs a nightly one (`cargo fuzz build` runs on nightly)",
                names.join(", "),
                nightly.name()
            ));
        }
        Ok(built)
    }

    /// `subset` built with `nightly` in the nightly build directory; a
    /// build that fails before any target fails each with the compiler's
    /// errors (not the command line).
    fn on_nightly(
        &self,
        nightly: &Toolchain,
        subset: &[BuildTarget<'_>],
        interrupt: &AtomicBool,
    ) -> Result<Built, BuildError> {
        let target = (self.nightly_dir)()?;
        let build = Build {
            toolchain: nightly,
            ..*self.build
        };
        let dirs = Dirs {
            target: &target,
            ..self.dirs
        };
        let failed = |errors: String| Built {
            targets: vec![Err(errors); subset.len()],
            compiled: Vec::new(),
        };
        match build_patched_with(&build, dirs, subset, interrupt) {
            Err(BuildError::Cargo { stderr, .. }) => Ok(failed(stderr)),
            Err(BuildError::Interrupted) => Err(BuildError::Interrupted),
            Err(e) => Ok(failed(e.to_string())),
            built => built,
        }
    }
}

/// `first` as each target's outcome: a whole build that failed for want of
/// nightly (a `#![feature]` in a crate every target builds on) fails each
/// target alike, so that each is built again; any other error stays whole.
fn per_target(first: Result<Built, BuildError>, targets: usize) -> Result<Built, BuildError> {
    match first {
        Err(BuildError::Cargo { stderr, .. }) if stderr.contains(FEATURE_ON_STABLE) => Ok(Built {
            targets: vec![Err(stderr); targets],
            compiled: Vec::new(),
        }),
        other => other,
    }
}
