//! A command as a text filter: input on stdin, output on stdout (the
//! formatters `--pretty` and `cargo reduce ice` run on a result).

use std::io::Write;
use std::process::{Command, Stdio};

/// What `cmd` writes to stdout when given `input` on stdin; `None` if it
/// cannot start, fails, or writes nothing.
pub(crate) fn filter(mut cmd: Command, input: &[u8]) -> Option<Vec<u8>> {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let input = input.to_vec();
    // A separate writer: a filter may start writing before it has read
    // everything, and a full pipe each way would deadlock.
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().ok()?;
    let written = writer.join().ok()?.is_ok();
    (written && output.status.success() && !output.stdout.is_empty()).then_some(output.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_s_output_or_nothing() {
        let big = vec![b'x'; 1 << 20]; // more than a pipe holds
        assert_eq!(filter(Command::new("cat"), &big).as_deref(), Some(&big[..]));
        assert_eq!(filter(Command::new("false"), b"x"), None);
        assert_eq!(filter(Command::new("no-such-filter-here"), b"x"), None);
    }
}
