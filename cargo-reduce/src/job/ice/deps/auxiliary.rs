//! A dependency that the MCVE needs as a crate of its own: a cross-crate
//! ICE (one of metadata, of a foreign trait's items, of an `impl Trait`
//! read from another crate) goes away when the dependency is taken into
//! the MCVE as a module ([`crate::job::ice::deps::take_in`]). Such a dependency
//! becomes an auxiliary crate, as rust-lang/rust's tests have them
//! (`//@ aux-build`): its source, as one file, is compiled first by its
//! own command line (its `--crate-name`, edition, crate type, `--cfg`s and
//! dependencies, none of cargo's paths and outputs), and the MCVE's
//! `--extern` names what that writes. The auxiliary is reduced too: a
//! candidate of its source is kept when it compiles and the MCVE against
//! it still crashes rustc the same way.

use std::io;
use std::path::{Path, PathBuf};

use crate::command::RunStatus;
use crate::engine::Cancel;
use crate::job::ice::deps::take_in::{builds, flattened, is_library};
use crate::job::ice::oracle::{CouldNotRun, IceOracle, TellsIce, Verdict};
use crate::job::ice::rustc::args::RustcArgs;
use crate::job::ice::rustc::run::Rustc;

/// A library the MCVE is compiled against, built from source.
#[derive(Debug, Clone)]
pub(crate) struct Auxiliary {
    /// The MCVE's `--extern` name for it.
    pub(crate) name: String,
    /// Its command line; its crate root is the source.
    pub(crate) invocation: RustcArgs,
    /// Its source, one file.
    pub(crate) text: Vec<u8>,
}

/// How building an auxiliary's source went.
pub(crate) enum Built {
    /// The library rustc wrote.
    Library(PathBuf),
    /// rustc failed on it (or wrote no library).
    Failed,
    /// The run was cancelled.
    Cancelled,
}

impl Auxiliary {
    /// The library file its command writes (`lib{crate name}.rlib`).
    pub(crate) fn library(&self) -> String {
        format!("lib{}.rlib", self.invocation.crate_name())
    }

    /// The rustc that compiles it: `like`'s limits, its command line, its
    /// source named `{crate name}.rs`.
    pub(crate) fn rustc(&self, like: &Rustc) -> Rustc {
        let mut rustc = like.with_invocation(self.invocation.clone());
        rustc.file_name = format!("{}.rs", self.invocation.crate_name());
        // Not an ICE's run: never symbolize a backtrace.
        rustc.backtraces = false;
        rustc.incremental = false;
        rustc
    }

    /// Compiles `text` as this auxiliary in `dir` (empty; it must outlive
    /// the library).
    pub(crate) fn build(
        &self,
        rustc: &Rustc,
        text: &[u8],
        dir: &Path,
        cancel: &Cancel<'_>,
    ) -> io::Result<Built> {
        let run = rustc.run_in(dir, text, &[], cancel)?;
        let library = Rustc::outputs(dir).join(self.library());
        Ok(match run.status {
            RunStatus::Cancelled => Built::Cancelled,
            RunStatus::Exited(0) if library.is_file() => Built::Library(library),
            _ => Built::Failed,
        })
    }
}

/// The libraries `invocation` names with `--extern` that the build
/// (`compiled`, its command lines) made from source, as auxiliaries: their
/// source flattened, their command line cargo's without its paths and
/// outputs ([`RustcArgs::minimal`]) but with its own `--extern`s and
/// `-L`s (the libraries the build made for it: the reduction of its flags
/// drops those its reduced source does not need, and the rest are kept
/// beside the MCVE, [`crate::job::ice::deps::artifacts`]). A procedural macro or a library
/// whose source cannot be read is left out.
pub(crate) fn auxiliaries(
    invocation: &RustcArgs,
    compiled: &[RustcArgs],
    temporary: &Path,
) -> Vec<Auxiliary> {
    invocation
        .externs()
        .filter_map(|(name, path)| {
            let dependency = compiled.iter().find(|c| builds(c, path))?;
            if !is_library(dependency) {
                return None;
            }
            let text = flattened(dependency, temporary)?.into_bytes();
            let mut invocation = dependency.minimal();
            let own = dependency.flag_pairs(&["--extern", "-L"]);
            invocation.args.extend(own.flatten());
            Some(Auxiliary {
                name: name.to_string(),
                invocation,
                text,
            })
        })
        .collect()
}

/// Keeps a candidate of an auxiliary's source when it compiles and the
/// MCVE, compiled against it, crashes rustc as `mcve_oracle` expects.
pub(crate) struct AuxiliaryOracle<'a> {
    /// The auxiliary.
    pub(crate) auxiliary: &'a Auxiliary,
    /// Its rustc ([`Auxiliary::rustc`]).
    pub(crate) rustc: Rustc,
    /// The MCVE.
    pub(crate) mcve: &'a [u8],
    /// The MCVE's oracle.
    pub(crate) mcve_oracle: &'a IceOracle,
}

impl<'a> AuxiliaryOracle<'a> {
    /// The oracle of `auxiliary`'s source for the MCVE `mcve`.
    pub(crate) fn new(
        auxiliary: &'a Auxiliary,
        mcve: &'a [u8],
        mcve_oracle: &'a IceOracle,
    ) -> Self {
        AuxiliaryOracle {
            auxiliary,
            rustc: auxiliary.rustc(&mcve_oracle.rustc),
            mcve,
            mcve_oracle,
        }
    }

    /// What rustc says of the MCVE against `text` as the auxiliary's
    /// source.
    pub(crate) fn same_ice(&self, text: &[u8], cancel: &Cancel<'_>) -> Verdict {
        let built = tempfile::Builder::new()
            .prefix("cargo-reduce-ice-")
            .tempdir()
            .and_then(|dir| {
                let built = self
                    .auxiliary
                    .build(&self.rustc, text, dir.path(), cancel)?;
                Ok((dir, built))
            });
        let (_dir, library) = match built {
            Ok((dir, Built::Library(library))) => (dir, library),
            Ok((_, Built::Failed)) => return Verdict::Other,
            Ok((_, Built::Cancelled)) => return Verdict::Cancelled,
            Err(e) => return Verdict::CouldNotRun(CouldNotRun(e)),
        };
        let invocation = self
            .mcve_oracle
            .rustc
            .invocation
            .with_extern(&self.auxiliary.name, &library.display().to_string());
        let rustc = self.mcve_oracle.rustc.with_invocation(invocation);
        self.mcve_oracle.same_ice_by(&rustc, self.mcve, cancel)
    }
}

impl TellsIce for AuxiliaryOracle<'_> {
    fn same_ice(&self, text: &[u8], cancel: &Cancel<'_>) -> Verdict {
        AuxiliaryOracle::same_ice(self, text, cancel)
    }
}

/// `invocation` as a user runs it beside the auxiliaries' libraries: each
/// `--extern` of one names the file its command writes into the working
/// directory.
pub(crate) fn as_built_beside(invocation: &RustcArgs, auxiliaries: &[Auxiliary]) -> RustcArgs {
    auxiliaries.iter().fold(invocation.clone(), |shown, a| {
        shown.with_extern(&a.name, &a.library())
    })
}

/// Where `auxiliary`'s source goes beside the MCVE `mcve`
/// (`NAME.ice.rs`): `NAME.ice.{crate name}.rs`.
pub(crate) fn path_beside(mcve: &Path, auxiliary: &Auxiliary) -> PathBuf {
    let stem = mcve.with_extension("");
    let mut name = stem.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.rs", auxiliary.invocation.crate_name()));
    stem.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `requests`, which the MCVE names `req` (a renamed dependency).
    fn requests() -> Auxiliary {
        let command = "rustc --crate-name requests --edition=2021 src/lib.rs --crate-type lib";
        Auxiliary {
            name: "req".into(),
            invocation: RustcArgs::parse(command, Path::new("/p")).unwrap(),
            text: b"pub trait Request {}\n".to_vec(),
        }
    }

    #[test]
    fn the_mcve_s_extern_names_the_library_the_auxiliary_s_command_writes() {
        let mcve = RustcArgs::parse(
            "rustc --crate-name app a.rs --extern req=/t/deps/libreq-1f.rmeta --extern o=/o.rlib",
            Path::new("/p"),
        )
        .unwrap();
        let shown = as_built_beside(&mcve, &[requests()]);
        assert_eq!(
            shown.display("app.ice.rs"),
            "rustc --crate-name app app.ice.rs --extern o=/o.rlib --extern req=librequests.rlib"
        );
        let built = mcve.with_extern("req", "/t/aux/out/librequests.rlib");
        assert_eq!(
            built.args.iter().filter(|a| a.starts_with("req=")).count(),
            1
        );
        assert!(built
            .args
            .contains(&"req=/t/aux/out/librequests.rlib".to_string()));
    }

    #[test]
    fn an_auxiliary_s_source_goes_beside_the_mcve_under_its_crate_name() {
        assert_eq!(
            path_beside(Path::new("/o/app.ice.rs"), &requests()),
            Path::new("/o/app.ice.requests.rs")
        );
        assert_eq!(
            path_beside(Path::new("x.rs"), &requests()),
            Path::new("x.requests.rs")
        );
        assert_eq!(requests().library(), "librequests.rlib");
    }
}
