//! `cargo reduce file` on bad input: one line, a distinct exit code,
//! nothing written, INPUT untouched.

use crate::util::{Run, Sandbox};

const TEXT: &str = "alpha\nbeta\n";

/// Runs `args`, expects exit `code` and a one-line error containing `what`,
/// and checks that no output appeared and in.txt is unchanged.
fn expect_error(sb: &Sandbox, args: &[&str], code: i32, what: &str) -> Run {
    let run = sb.run(args);
    run.expect_code(code);
    let stderr = run.stderr();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {stderr}");
    assert!(
        lines[0].starts_with("error: ") && lines[0].contains(what),
        "{stderr}"
    );
    assert!(!sb.exists("in.reduced.txt"), "nothing written");
    if sb.exists("in.txt") {
        assert_eq!(sb.read("in.txt"), TEXT.as_bytes());
    }
    run
}

fn sandbox() -> Sandbox {
    let sb = Sandbox::new();
    sb.write("in.txt", TEXT);
    sb
}

#[test]
fn missing_input() {
    let sb = Sandbox::new();
    expect_error(
        &sb,
        &["file", "in.txt", "--", "true"],
        3,
        "INPUT `in.txt` does not exist",
    );
}

#[test]
fn directory_as_input() {
    let sb = sandbox();
    std::fs::create_dir(sb.join("dir")).unwrap();
    expect_error(&sb, &["file", "dir", "--", "true"], 3, "is a directory");
}

#[test]
fn empty_input() {
    let sb = Sandbox::new();
    sb.write("in.txt", "");
    let run = sb.run(&["file", "in.txt", "--", "true"]);
    run.expect_code(3);
    assert!(
        run.stderr()
            .contains("is empty: there is nothing to reduce"),
        "{}",
        run.stderr()
    );
    assert!(!sb.exists("in.reduced.txt"));
}

#[test]
fn missing_test_command() {
    expect_error(
        &sandbox(),
        &["file", "in.txt", "--", "no-such-tool-anywhere", "x"],
        4,
        "test command `no-such-tool-anywhere` not found in PATH",
    );
}

#[test]
fn non_executable_test_command() {
    let sb = sandbox();
    sb.write("test.sh", "#!/bin/sh\nexit 0\n");
    expect_error(
        &sb,
        &["file", "in.txt", "--", "./test.sh"],
        4,
        "is not executable",
    );
}

#[test]
fn input_that_is_not_interesting_shows_the_status_and_stderr() {
    let sb = sandbox();
    let run = expect_error(
        &sb,
        &[
            "file",
            "in.txt",
            "--",
            "sh",
            "-c",
            "echo 'no crash here' >&2; exit 3",
        ],
        5,
        "is not interesting",
    );
    assert!(
        run.stderr().contains("exit status 3") && run.stderr().contains("no crash here"),
        "{}",
        run.stderr()
    );
}

#[test]
fn command_that_hangs_on_input() {
    expect_error(
        &sandbox(),
        &[
            "file",
            "in.txt",
            "--timeout",
            "0.5",
            "--",
            "sh",
            "-c",
            "sleep 30",
        ],
        6,
        "timed out",
    );
}

#[test]
fn flaky_command() {
    let sb = sandbox();
    // Interesting on the first run only.
    let script = format!(
        "if [ -e {0}/seen ]; then exit 1; fi; touch {0}/seen",
        sb.path().display()
    );
    expect_error(
        &sb,
        &["file", "in.txt", "--", "sh", "-c", &script],
        7,
        "flaky",
    );
}

#[test]
fn output_over_the_input_is_refused() {
    expect_error(
        &sandbox(),
        &["file", "in.txt", "-o", "./in.txt", "--", "true"],
        3,
        "is INPUT itself",
    );
}

#[test]
fn no_command_is_a_usage_error() {
    let sb = sandbox();
    sb.run(&["file", "in.txt"]).expect_code(2);
    assert!(!sb.exists("in.reduced.txt"));
}

#[test]
fn unusable_tmpdir_is_named_without_temporary_names() {
    let sb = sandbox();
    let missing = sb.join("no-such-dir");
    let run = Run(sb
        .cmd(&["file", "in.txt", "--", "grep", "-q", "alpha"])
        .env("TMPDIR", &missing)
        .output()
        .expect("spawn cargo-reduce"));
    // The environment's problem, not the test command's (4).
    assert_eq!(run.code(), 10, "{}", run.stderr());
    assert!(!missing.exists(), "TMPDIR is not created");
    let stderr = run.stderr();
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.contains(&format!("`{}`", missing.display()))
            && stderr.contains("set TMPDIR to a writable directory")
            && !stderr.contains("cargo-reduce-"),
        "{stderr}"
    );
    assert!(!sb.exists("in.reduced.txt"));
}

#[test]
fn an_output_that_is_not_a_file_is_refused_before_any_test() {
    let sb = sandbox();
    // The test command would leave a mark if it ever ran.
    let mark = sb.join("ran");
    let cmd = format!("touch '{}'; grep -q alpha \"$1\"", mark.display());
    for (output, what) in [
        ("/dev/null", "a character device"),
        (".", "a directory"),
        ("missing-dir/out.txt", "does not exist"),
    ] {
        let run = sb.run(&["file", "in.txt", "-o", output, "--", "sh", "-c", &cmd, "sh"]);
        run.expect_code(2);
        assert!(run.stderr().contains(what), "{output}: {}", run.stderr());
        assert_eq!(run.stderr().lines().count(), 1, "{}", run.stderr());
        assert!(!mark.exists(), "{output}: no test ran");
    }
    assert_eq!(
        std::fs::metadata("/dev/null")
            .map(|m| m.file_type().is_file())
            .ok(),
        Some(false),
        "/dev/null is still a device"
    );
}

#[test]
fn dash_means_standard_output_and_a_symlink_is_followed() {
    let sb = sandbox();
    let run = sb.run(&[
        "file", "in.txt", "-o", "-", "-q", "--", "grep", "-q", "alpha",
    ]);
    run.expect_code(0);
    assert_eq!(run.stdout(), "alpha");
    assert!(!sb.exists("-"), "no file named -");
    sb.write("real.txt", "old");
    std::os::unix::fs::symlink(sb.join("real.txt"), sb.join("link.txt")).unwrap();
    sb.run(&[
        "file", "in.txt", "-o", "link.txt", "--", "grep", "-q", "alpha",
    ])
    .expect_code(0);
    let link = std::fs::symlink_metadata(sb.join("link.txt")).unwrap();
    assert!(link.file_type().is_symlink(), "the link stays a link");
    assert_eq!(sb.read("real.txt"), b"alpha");
}

/// Standard output cannot take both the result and the JSON messages;
/// `ice` writes a report beside its MCVE, so `-` is no path for it.
#[test]
fn dash_is_refused_where_standard_output_is_taken() {
    let sb = sandbox();
    let args = [
        "file",
        "in.txt",
        "-o",
        "-",
        "--message-format",
        "json",
        "--",
        "grep",
        "-q",
        "alpha",
    ];
    let run = expect_error(&sb, &args, 2, "--message-format json");
    let messages = run.messages();
    assert_eq!(messages.len(), 1, "the error's, and no result");
    assert_eq!(messages[0]["reason"], "error");
    sb.write("crash.rs", "fn main() {}\n");
    expect_error(&sb, &["ice", "crash.rs", "-o", "-"], 2, "not `-`");
    assert!(!sb.exists("-.md"), "no report named -.md");
}

#[test]
fn control_characters_in_names_are_escaped() {
    let sb = Sandbox::new();
    let name = "a\u{1b}[31mred\nx.txt";
    sb.write(name, TEXT);
    let run = sb.run(&["file", name, "--", "grep", "-q", "alpha"]);
    run.expect_code(0);
    let stderr = run.stderr();
    assert!(!stderr.contains('\u{1b}'), "{stderr:?}");
    assert!(stderr.contains("a\\u{1b}[31mred\\nx.txt"), "{stderr:?}");
}

#[test]
fn out_of_range_values_are_usage_errors() {
    let sb = sandbox();
    for args in [
        ["--timeout", "1e19"],
        ["--max-time", "1e300"],
        ["--max-tests", "0"],
    ] {
        let run = sb.run(&[&["file", "in.txt"][..], &args, &["--", "true"]].concat());
        run.expect_code(2);
        assert!(!run.stderr().contains("panicked"), "{}", run.stderr());
    }
}
