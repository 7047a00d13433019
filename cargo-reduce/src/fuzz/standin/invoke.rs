//! Running cargo and rustc for a build, with their failures as
//! [`BuildError`]s that name the command.

use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus, Stdio};

use super::error::BuildError;

/// The command line of `command`, for messages.
pub(super) fn command_line(command: &Command) -> String {
    let args = command.get_args().map(|a| a.to_string_lossy().into_owned());
    std::iter::once(command.get_program().to_string_lossy().into_owned())
        .chain(args)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a command ended by SIGINT or SIGTERM: the signal went to the
/// whole process group (Ctrl-C), and the run is interrupted, not broken,
/// even before cargo-reduce's own handler has seen it.
pub(super) fn interrupted(status: ExitStatus) -> bool {
    matches!(status.signal(), Some(2 | 15))
}

/// Runs `command` to its end; its stdout, or an error with its stderr.
pub(super) fn run_for_output(command: &mut Command) -> Result<String, BuildError> {
    let line = command_line(command);
    let output = command
        .stderr(Stdio::piped())
        .output()
        .map_err(|source| BuildError::Spawn {
            command: line.clone(),
            source,
        })?;
    if interrupted(output.status) {
        return Err(BuildError::Interrupted);
    }
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        return Err(BuildError::Cargo {
            command: line,
            status: output.status,
            stderr,
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_ended_by_sigterm_is_an_interruption() {
        // SIGTERM, not SIGINT: a test run in the background (nohup, `&`)
        // passes SIGINT on ignored, and the shell would not die of it.
        let mut sigterm = Command::new("sh");
        sigterm.args(["-c", "kill -TERM $$"]);
        assert!(matches!(
            run_for_output(&mut sigterm),
            Err(BuildError::Interrupted)
        ));
        let mut failing = Command::new("sh");
        failing.args(["-c", "exit 3"]);
        assert!(matches!(
            run_for_output(&mut failing),
            Err(BuildError::Cargo { .. })
        ));
    }
}
