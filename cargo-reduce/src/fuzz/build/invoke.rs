//! Running cargo and rustc for a build, with their failures as
//! [`BuildError`]s that name the command.

use std::process::{Command, Stdio};

use super::error::BuildError;

/// The command line of `command`, for messages.
pub(super) fn command_line(command: &Command) -> String {
    let args = command.get_args().map(|a| a.to_string_lossy().into_owned());
    std::iter::once(command.get_program().to_string_lossy().into_owned())
        .chain(args)
        .collect::<Vec<_>>()
        .join(" ")
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
