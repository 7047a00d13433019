//! `cargo reduce run ARTIFACT`: one input through the real engine's binary
//! (`cargo fuzz build` / `cargo afl build` as the user runs them: the
//! profile the engine fuzzes with, or with a debugger full debug info),
//! alone or under a debugger. Stages: [`locate`] (the
//! input's target, as fuzz mode finds it, and the tools it needs),
//! [`Located::build`] (the front end's build in the user's tree),
//! [`Located::debug_value`] (a typed target's value, as fuzz mode prints
//! it) and [`launch`] (the command that starts it).

pub(crate) mod launch;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use super::fuzz_mode::{self, FuzzRequest};
use super::{Events, Message, Settings};
use crate::error::{Error, Exit};
use crate::fuzz::engines::front_end::{self, FrontEndBuild, Profile, Tool};
use crate::fuzz::pool::{StopFlag, WorkerPool};
use crate::fuzz::project::{
    self, input_type, ArtifactKind, Engine, FuzzProject, Selection, TargetSettings,
};
use crate::fuzz::sanitizer::Sanitizer;
use crate::fuzz::standin::{self, BuildKind};
use crate::fuzz::toolchain::{Toolchain, INSTALL_NIGHTLY};
pub(crate) use launch::{Debugger, Ended, Launch, Reads};

/// What `cargo reduce run` was asked to do.
#[derive(Debug, Clone)]
pub(crate) struct RunRequest {
    /// The input.
    pub artifact: PathBuf,
    /// `--manifest-path`, `-p`, `--fuzz-target`, `--afl-out`.
    pub selection: Selection,
    /// `--sanitizer`: `auto` builds as the front end does by default
    /// (`None`: the target's `Cargo.toml` setting, else `auto`).
    pub sanitizer: Option<Sanitizer>,
    /// `--timeout`: how long the input may run (by default, a timeout
    /// artifact's own timeout; others, no limit).
    pub timeout: Option<Duration>,
    /// `--debugger`.
    pub debugger: Option<Debugger>,
    /// The words after `--`: the debugger's options.
    pub debugger_args: Vec<OsString>,
}

/// The input, its target and the build that makes the target's binary.
pub(crate) struct Located {
    projects: Vec<FuzzProject>,
    project: usize,
    /// The target's name.
    pub target: String,
    /// The input.
    pub input: PathBuf,
    /// The front end's build.
    pub build: FrontEndBuild,
    /// The toolchain it runs with.
    toolchain: Toolchain,
    /// How long the input may run: `--timeout`, else a timeout artifact's
    /// timeout, as fuzz mode reproduces it.
    timeout: Option<Duration>,
}

/// Finds the input's target (as fuzz mode does: its `artifacts/<target>/`,
/// an AFL++ instance's crashes or hangs, or `--fuzz-target`) and checks
/// that the tools the run needs are installed, before anything is built.
pub(crate) fn locate(request: &RunRequest) -> Result<Located, Error> {
    if request.selection.out_dir.is_some() {
        return Err(Error::new(
            Exit::Usage,
            "`run` takes no --out-dir: it builds with the engine's own front end (`cargo fuzz build`, `cargo afl build`), which builds in the fuzz crate's tree",
        ));
    }
    let projects = fuzz_mode::discover(&request.selection)?;
    let target = request.selection.fuzz_target.as_deref();
    let found = project::locate_artifact(&projects, &request.artifact, target)?;
    readable(&found.artifact.path)?;
    let project = &projects[found.project];
    let target = &project.targets[found.target];
    let tool = Tool::of(project.engine);
    need(tool.program(), tool.install())?;
    if let Some(debugger) = request.debugger {
        need(debugger.program(), &debugger.install())?;
    }
    let host = standin::host_triple(&project.fuzz_dir, &Toolchain::user()).map_err(|e| {
        Error::new(
            Exit::Environment,
            format!("cannot learn the host's target triple: {e}"),
        )
    })?;
    let sanitizer = request.sanitizer.or(target.settings.sanitizer);
    let profile = match request.debugger {
        Some(_) => Profile::Debugging,
        None => Profile::Fuzzing,
    };
    let build = front_end::plan(
        project,
        target,
        sanitizer.unwrap_or_default(),
        &host,
        profile,
    )
    .map_err(|why| Error::new(Exit::Usage, why))?;
    let toolchain = toolchain_for(&build)?;
    let flags = TargetSettings {
        timeout: request.timeout,
        ..TargetSettings::default()
    };
    let options = project.settings_of(&target.name).under(flags);
    let timeout = request.timeout.or_else(|| {
        (found.artifact.kind == ArtifactKind::Timeout)
            .then(|| fuzz_mode::limits::timeout_of(&found.artifact, &options, &flags))
    });
    Ok(Located {
        timeout,
        project: found.project,
        target: target.name.clone(),
        input: found.artifact.path,
        build,
        toolchain,
        projects,
    })
}

/// Checks that the input at `path` can be read, before the build, which
/// may take minutes (the engine's binary would fail on it only then).
fn readable(path: &Path) -> Result<(), Error> {
    std::fs::File::open(path).map(drop).map_err(|e| {
        Error::caused_with_hint(
            Exit::BadInput,
            format!("cannot read `{}`", path.display()),
            e,
            "check its permissions",
        )
    })
}

/// The toolchain `build` runs with: the user's, or for cargo-fuzz a
/// nightly (the user's if it is one), as cargo-fuzz needs.
fn toolchain_for(build: &FrontEndBuild) -> Result<Toolchain, Error> {
    if !build.nightly {
        return Ok(Toolchain::user());
    }
    Toolchain::find().ok_or_else(|| {
        Error::new(
            Exit::ToolMissing,
            format!("`cargo fuzz build` needs a nightly toolchain, and none is installed; install one: `{INSTALL_NIGHTLY}`"),
        )
    })
}

/// Checks that `program` is on `PATH`; the error names it and how to
/// install it.
fn need(program: &str, install: &str) -> Result<(), Error> {
    match which::which(program) {
        Ok(_) => Ok(()),
        Err(_) => Err(Error::new(
            Exit::ToolMissing,
            format!("`{program}` is not installed (not found on PATH); {install}"),
        )),
    }
}

impl Located {
    /// The build's command line, as a user types it.
    pub(crate) fn build_line(&self) -> String {
        let mut words = vec!["cargo".to_string()];
        if let Some(toolchain) = &self.toolchain.rustup_toolchain {
            words.push(format!("+{toolchain}"));
        }
        words.extend(
            self.build
                .args
                .iter()
                .map(|a| a.to_string_lossy().into_owned()),
        );
        super::shell::line(words)
    }

    /// Runs the front end's build in the user's tree, its output shown
    /// (captured with `quiet`, and shown only if it fails). The binary.
    pub(crate) fn build(&self, quiet: bool) -> Result<PathBuf, Error> {
        let mut command = Command::new("cargo");
        command.args(&self.build.args).current_dir(&self.build.cwd);
        self.toolchain.apply(&mut command);
        let failed = |detail: String| {
            Error::new(
                Exit::BuildFailed,
                format!("`{}` failed{detail}", self.build_line()),
            )
        };
        let output = match quiet {
            true => command.stdin(Stdio::null()).output(),
            false => command.status().map(|status| std::process::Output {
                status,
                stdout: Vec::new(),
                stderr: Vec::new(),
            }),
        }
        .map_err(|e| failed(format!(": {e}")))?;
        if !output.status.success() {
            let shown = String::from_utf8_lossy(&output.stderr);
            let shown = shown.trim_end();
            return Err(failed(match shown.is_empty() {
                true => " (its errors are above)".into(),
                false => format!(":\n{shown}"),
            }));
        }
        if !self.build.binary.is_file() {
            return Err(failed(format!(
                ": it wrote no `{}`",
                self.build.binary.display()
            )));
        }
        Ok(self.build.binary.clone())
    }

    /// A typed target's value of the input, as fuzz mode prints a
    /// minimized one: decoded in the target's stand-in build (fuzz mode's,
    /// unchanged since a reduction). `None` for a target of raw bytes,
    /// told from its source before anything is built; a stand-in that
    /// does not build or start is a warning, not an error (the real binary
    /// is what runs).
    pub(crate) fn debug_value(
        &self,
        settings: &Settings,
        events: &dyn Events,
    ) -> Result<Option<String>, Error> {
        let project = &self.projects[self.project];
        let source = project.targets.iter().find(|t| t.name == self.target);
        if source.is_some_and(|t| input_type::takes_bytes(&t.source)) {
            return Ok(None);
        }
        let bytes = std::fs::read(&self.input).map_err(|e| {
            Error::caused(
                Exit::BadInput,
                format!("cannot read `{}`", self.input.display()),
                e,
            )
        })?;
        let work = [(self.project, self.target.clone())];
        let warn = |what: String| {
            events.emit(&Message::Warning {
                message: format!("the input's value is not shown: {what}"),
            });
            Ok(None)
        };
        let binaries = fuzz_mode::build(&self.projects, &work, BuildKind::Plain, settings, events)?;
        let binary = match &binaries[&(self.project, self.target.clone())] {
            Ok(binary) => binary,
            Err(e) => return warn(e.line()),
        };
        let options = FuzzRequest::default().options_of(project, &self.target);
        let options = fuzz_mode::pool_options(1, &options, StopFlag::default());
        let options = fuzz_mode::engine_options(&options, project.engine)?;
        match WorkerPool::start(binary, options) {
            Ok(pool) => Ok(pool.debug_format(&bytes).ok().flatten()),
            Err(e) => warn(e.to_string()),
        }
    }

    /// How the target's binary reads its input.
    pub(crate) fn reads(&self) -> Reads {
        match self.projects[self.project].engine {
            Engine::LibFuzzer => Reads::Argument,
            Engine::Afl => Reads::Stdin,
        }
    }
}

/// The command that runs `binary` on the located input, as `request` asks.
pub(crate) fn launch(located: &Located, binary: &Path, request: &RunRequest) -> Launch {
    launch::launch(
        binary,
        &located.input,
        located.reads(),
        located.timeout,
        request.debugger,
        &request.debugger_args,
        std::env::var_os("ASAN_OPTIONS"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_that_cannot_be_opened_is_a_bad_input_that_says_which_and_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crash-gone");
        let error = readable(&path).unwrap_err();
        assert_eq!(error.exit(), Exit::BadInput);
        let line = error.line();
        assert!(
            line.starts_with(&format!("cannot read `{}`: ", path.display())),
            "{line}"
        );
        assert!(line.ends_with("; check its permissions"), "{line}");
        std::fs::write(&path, b"x").unwrap();
        assert!(readable(&path).is_ok());
    }
}
