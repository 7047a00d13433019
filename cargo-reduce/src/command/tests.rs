//! The test command run on real processes: exit codes, timeouts,
//! cancels, permissions and the private directories.

use rustix::process::{geteuid, Pid, Signal};

use super::slot::DIR_PREFIX;
use super::wait::{interrupted, ExitWatch};
use super::*;
use crate::engine::Limits;

/// The timeout of tests whose verdict is not a timeout: one that no such
/// test reaches, however loaded the machine.
const PATIENT_MS: u64 = 600_000;

fn oracle(argv: &[&str], timeout_ms: u64) -> CommandOracle {
    oracle_with_mode(argv, 0o644, timeout_ms)
}

fn oracle_with_mode(argv: &[&str], mode: u32, timeout_ms: u64) -> CommandOracle {
    let argv: Vec<OsString> = argv.iter().map(OsString::from).collect();
    CommandOracle::new(
        TestCommand::new(&argv).unwrap(),
        OsStr::new("case.txt"),
        mode,
        Duration::from_millis(timeout_ms),
    )
}

fn mode_of(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

#[test]
fn directories_are_private_and_candidates_keep_the_input_mode() {
    let out = tempfile::tempdir().unwrap();
    let seen = out.path().join("candidate-path");
    // Modes the umask would change, a read-only one (written twice),
    // an executable one; setuid is not passed on.
    for mode in [0o666, 0o444, 0o755, 0o600, 0o4755] {
        let o = oracle_with_mode(
            &[
                "sh",
                "-c",
                "printf %s \"$1\" > \"$0\"",
                seen.to_str().unwrap(),
            ],
            mode,
            PATIENT_MS,
        );
        let limits = Limits::none();
        for _ in 0..2 {
            let run = o.run(b"bytes", &Cancel::by_limits(&limits)).unwrap();
            assert_eq!(run.status, RunStatus::Exited(0));
        }
        let candidate = PathBuf::from(fs::read_to_string(&seen).unwrap());
        assert_eq!(fs::read(&candidate).unwrap(), b"bytes");
        assert_eq!(mode_of(&candidate), mode & 0o777, "candidate of {mode:o}");
        let inner = candidate.parent().unwrap();
        let dir = inner.parent().unwrap();
        assert_eq!(mode_of(inner), 0o700);
        assert_eq!(mode_of(dir), 0o700);
        assert_eq!(mode_of(&dir.join("stderr")), 0o600);
        let name = dir.file_name().unwrap().to_str().unwrap();
        let own = format!("cargo-reduce-{}-", std::process::id());
        assert!(name.starts_with(&own), "{name}");
        drop(o);
        assert!(!dir.exists(), "removed with the oracle");
    }
}

#[test]
fn stale_directories_of_dead_runs_are_removed() {
    let root = tempfile::tempdir().unwrap();
    let make = |name: String| {
        let dir = root.path().join(name);
        fs::create_dir(&dir).unwrap();
        fs::create_dir(dir.join("candidate")).unwrap();
        fs::write(dir.join("candidate/case.txt"), "x").unwrap();
        dir
    };
    // No process has this pid: the kernel's limit is 2^22.
    let dead = 2_000_000_000;
    let own = std::process::id();
    let stale = make(format!("cargo-reduce-{dead}-a1B2c3"));
    let live = make(format!("cargo-reduce-{own}-a1B2c3"));
    let kept = [
        live.clone(),
        make("cargo-reduce-a1B2c3".to_string()), // older runs: no pid
        make(format!("cargo-reduce-{dead}-")),
        make(format!("cargo-reducer-{dead}-a1B2c3")),
        make(format!("other-{dead}-a1B2c3")),
    ];
    let file = root.path().join(format!("cargo-reduce-{dead}-file"));
    fs::write(&file, "").unwrap();
    let link = root.path().join(format!("cargo-reduce-{dead}-link"));
    std::os::unix::fs::symlink(&live, &link).unwrap();
    // Another user's: only root can make one.
    let foreign = geteuid().is_root().then(|| {
        let dir = make(format!("cargo-reduce-{dead}-foreign"));
        std::os::unix::fs::chown(&dir, Some(12345), Some(12345)).unwrap();
        dir
    });
    remove_stale_dirs(root.path());
    assert!(!stale.exists(), "stale directory removed");
    for dir in kept.iter().chain(&foreign) {
        assert!(dir.join("candidate/case.txt").exists(), "{}", dir.display());
    }
    assert!(file.exists());
    assert!(fs::symlink_metadata(&link).is_ok());
    assert_eq!(
        owner_pid(OsStr::new("cargo-reduce-17-x")),
        Pid::from_raw(17)
    );
    assert_eq!(owner_pid(OsStr::new("cargo-reduce-0-x")), None);
    assert_eq!(owner_pid(OsStr::new("cargo-reduce-+17-x")), None);
}

#[test]
fn a_new_oracle_removes_stale_directories_in_the_temp_dir() {
    let stale = std::env::temp_dir().join("cargo-reduce-2000000001-StAlE0");
    fs::create_dir_all(stale.join("candidate")).unwrap();
    let _oracle = oracle(&["true"], PATIENT_MS);
    assert!(!stale.exists());
}

#[test]
fn the_candidate_path_replaces_braces_and_keeps_the_file_name() {
    let o = oracle(
        &[
            "sh",
            "-c",
            "case \"$1\" in /*/case.txt) grep -q needle \"$1\";; *) exit 9;; esac",
            "sh",
            "{}",
        ],
        PATIENT_MS,
    );
    let limits = Limits::none();
    let cancel = Cancel::by_limits(&limits);
    assert_eq!(
        o.run(b"a needle", &cancel).unwrap().status,
        RunStatus::Exited(0)
    );
    assert_eq!(
        o.run(b"a haystack", &cancel).unwrap().status,
        RunStatus::Exited(1)
    );
}

#[test]
fn the_path_is_appended_without_braces() {
    let o = oracle(&["grep", "-q", "x"], PATIENT_MS);
    let limits = Limits::none();
    assert!(o
        .run(b"x", &Cancel::by_limits(&limits))
        .unwrap()
        .status
        .is_interesting());
}

#[test]
fn a_hanging_test_is_killed_with_its_children() {
    let o = oracle(&["sh", "-c", "sleep 1000 & sleep 1000; true"], 200);
    let limits = Limits::none();
    let started = Instant::now();
    let run = o.run(b"", &Cancel::by_limits(&limits)).unwrap();
    assert_eq!(run.status, RunStatus::TimedOut);
    // Not waited for: the sleeps would end after 1,000 s (half of that is
    // far more than the kill takes on however loaded a machine).
    assert!(started.elapsed() < Duration::from_secs(500));
}

/// Whether `pid` runs (a zombie does not: a PID 1 that does not reap
/// leaves the killed orphan as one).
fn running(pid: i32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with(['Z', 'X'])
        }
        Err(_) => false,
    }
}

#[test]
fn background_processes_die_when_the_test_exits() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let o = oracle(
        &[
            "sh",
            "-c",
            "sleep 1000 & echo $! > \"$1\"; grep -q needle \"$2\"",
            "sh",
            pid_file.to_str().unwrap(),
            "{}",
        ],
        PATIENT_MS,
    );
    let limits = Limits::none();
    let run = o.run(b"needle", &Cancel::by_limits(&limits)).unwrap();
    assert_eq!(run.status, RunStatus::Exited(0));
    let pid: i32 = fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // SIGKILL is sent before `run` returns; the orphan is reaped soon after
    // (a minute, on however loaded a machine, is still far from 1,000 s).
    let until = Instant::now() + Duration::from_secs(60);
    while running(pid) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
    let survived = running(pid);
    if survived {
        let _ = rustix::process::kill_process(Pid::from_raw(pid).unwrap(), Signal::KILL);
    }
    assert!(!survived, "the background `sleep 1000` outlived its test");
}

#[test]
fn a_test_killed_by_the_run_s_interrupt_has_no_verdict() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let flag = Arc::new(AtomicBool::new(false));
    let limits = Limits::none().with_interrupt(flag.clone());
    let cancel = Cancel::by_limits(&limits);
    // Without an interrupt, a test that dies of SIGTERM has a verdict.
    let o = oracle(&["sh", "-c", "kill -TERM $$"], PATIENT_MS);
    assert_eq!(o.run(b"", &cancel).unwrap().status, RunStatus::Signaled(15));
    // The run's stop is seen a moment after the signal: here a deadline
    // 50 ms on (the clock's, not a thread's that a loaded machine may run
    // late), within the grace the check gives it.
    let soon = Limits::none().with_max_time(Duration::from_millis(50));
    assert!(interrupted(Signal::INT.as_raw(), &Cancel::by_limits(&soon)));
    flag.store(true, Ordering::SeqCst);
    assert!(interrupted(Signal::TERM.as_raw(), &cancel));
    assert!(!interrupted(Signal::KILL.as_raw(), &cancel), "not ours");
}

#[test]
fn exits_are_seen_without_reaping() {
    for fallback in [false, true] {
        let mut child = Command::new("sh").args(["-c", "exit 3"]).spawn().unwrap();
        let pid = Pid::from_raw(child.id() as i32).unwrap();
        let exit = if fallback {
            ExitWatch::Poll(pid)
        } else {
            ExitWatch::new(pid)
        };
        let until = Instant::now() + Duration::from_secs(60);
        while !exit.wait(Duration::from_millis(10)).unwrap() {
            assert!(
                Instant::now() < until,
                "no exit seen (fallback: {fallback})"
            );
        }
        // Not reaped yet: the status is still there to collect.
        assert_eq!(child.wait().unwrap().code(), Some(3));
    }
}

/// The error of a run that cannot write its candidate, checked for a
/// message that names `root`, says what to do and leaks no temporary name.
fn expect_temp_dir_error(result: Result<RunResult, CommandError>, root: &Path) {
    let err = result.unwrap_err();
    let message = err.to_string();
    assert!(
        matches!(&err, CommandError::TempDir { path, .. } if path == root),
        "{err:?}"
    );
    assert!(
        message.contains(&format!("`{}`", root.display())),
        "{message}"
    );
    assert!(
        message.contains("set TMPDIR to a writable directory"),
        "{message}"
    );
    assert!(!message.contains(DIR_PREFIX), "{message}");
}

#[test]
fn a_missing_or_unusable_temp_dir_is_its_own_error() {
    let limits = Limits::none();
    let cancel = Cancel::by_limits(&limits);
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let file = dir.path().join("file");
    fs::write(&file, "").unwrap();
    for root in [missing, file] {
        let o = oracle(&["true"], PATIENT_MS).in_temp_dir(&root);
        expect_temp_dir_error(o.run(b"x", &cancel), &root);
    }
}

#[test]
fn a_test_that_deletes_its_directory_gets_the_temp_dir_error() {
    let limits = Limits::none();
    let cancel = Cancel::by_limits(&limits);
    let root = tempfile::tempdir().unwrap();
    let o = oracle(
        &[
            "sh",
            "-c",
            "rm -rf \"$(dirname \"$(dirname \"$1\")\")\"",
            "sh",
            "{}",
        ],
        PATIENT_MS,
    )
    .in_temp_dir(root.path());
    assert_eq!(o.run(b"x", &cancel).unwrap().status, RunStatus::Exited(0));
    expect_temp_dir_error(o.run(b"x", &cancel), root.path());
}

#[test]
fn stderr_names_the_candidate_by_its_file_name() {
    let o = oracle(
        &["sh", "-c", "echo \"$1: bad\" >&2; exit 1", "sh", "{}"],
        PATIENT_MS,
    );
    let limits = Limits::none();
    let run = o.run(b"", &Cancel::by_limits(&limits)).unwrap();
    assert_eq!(run.stderr_tail, "case.txt: bad");
}

#[test]
fn stderr_tail_is_captured() {
    let o = oracle(
        &["sh", "-c", "echo one >&2; echo two >&2; exit 3"],
        PATIENT_MS,
    );
    let limits = Limits::none();
    let run = o.run(b"", &Cancel::by_limits(&limits)).unwrap();
    assert_eq!(run.status, RunStatus::Exited(3));
    assert_eq!(run.stderr_tail, "one\ntwo");
}

#[test]
fn bad_commands_are_named() {
    let missing = TestCommand::new(&[OsString::from("no-such-command-xyz")]).unwrap_err();
    assert_eq!(
        missing.to_string(),
        "test command `no-such-command-xyz` not found in PATH"
    );
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("t.sh");
    fs::write(&script, "#!/bin/sh\n").unwrap();
    let err = TestCommand::new(&[script.clone().into_os_string()]).unwrap_err();
    assert!(matches!(err, CommandError::NotExecutable(_)), "{err}");
    assert!(matches!(
        TestCommand::new(&[]).unwrap_err(),
        CommandError::Missing
    ));
}
