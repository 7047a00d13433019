//! Fault injection, fuzz mode (`cargo reduce` on copies of the bundled
//! fuzz-targets crate): signals during the build, the reproduction, the
//! reduction and the final write; a full or read-only artifacts directory;
//! an unwritable TMPDIR; two runs on one crate. After every fault: the
//! artifacts and the crate's `Cargo.lock` byte-identical; under the final
//! name `minimized-from-<name>` only a 1-minimal result (a stopped one goes
//! to `partial-from-<name>`); no `.cargo-reduce-*` temporary file beside
//! the artifacts (what a SIGKILL leaves is removed by the next run); the
//! documented exit status; no process of the run left (workers, cargo,
//! rustc). Seeds and modes as in `faults.rs`.

use std::collections::HashMap;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use crate::faults::{
    assert_no_processes_left, assert_temp_private, base_seed, mount_or_skip, output_temps, points,
    private_tmp, processes_of, run_watched, Ended, Point, Rng, Sig, To, Watched, STRAGGLERS,
};
use crate::fuzz_fixture::{
    artifact, command, fresh_copy, minimized_path, partial_path, target_dir, written_files,
};
use crate::recycled::RecycledDir;
use crate::util::Sandbox;

/// The 1-minimal results known exactly (see `fuzz_mode.rs`).
const KNOWN: [(&str, &[u8]); 4] = [
    ("abort", b"ZAP"),
    ("byte_parser", b"RX\x0100"),
    ("two_panics", b"ABXYZ"),
    ("endless_loop", b"LP\x00"),
];

/// The targets of the signal points, in the order they are reduced: three
/// quick ones (reproduction, reduction, check and write within
/// milliseconds) and one that takes seconds.
const SIGNAL_TARGETS: [&str; 4] = ["abort", "byte_parser", "two_panics", "stack_overflow"];

/// A fresh copy of the fuzz crate, with what must never change in it.
struct Crate {
    _dir: RecycledDir,
    path: PathBuf,
    lock: Vec<u8>,
    /// Per target: its artifact and the artifact's bytes.
    originals: Vec<(String, PathBuf, Vec<u8>)>,
}

impl Crate {
    fn new() -> Crate {
        let (dir, path) = fresh_copy();
        let lock = fs::read(path.join("Cargo.lock")).unwrap();
        let mut originals = Vec::new();
        for target in fs::read_dir(path.join("artifacts")).unwrap() {
            let target = target.unwrap().file_name().to_string_lossy().into_owned();
            let file = artifact(&path, &target);
            let bytes = fs::read(&file).unwrap();
            originals.push((target, file, bytes));
        }
        Crate {
            _dir: dir,
            path,
            lock,
            originals,
        }
    }

    fn manifest(&self) -> &str {
        self.path.to_str().unwrap()
    }

    /// The artifact of `target`.
    fn artifact(&self, target: &str) -> PathBuf {
        let found = self.originals.iter().find(|(t, ..)| t == target);
        found
            .unwrap_or_else(|| panic!("no target {target}"))
            .1
            .clone()
    }

    /// Removes every result, partial result and temporary file.
    fn reset(&self) {
        for file in written_files(&self.path.join("artifacts")) {
            fs::remove_file(file).unwrap();
        }
    }

    /// The artifacts and the lock file are as they were; what stands under
    /// a final name is the 1-minimal result `reference` has for it; a
    /// partial result is no larger than its artifact.
    fn check_files(&self, reference: &HashMap<PathBuf, Vec<u8>>, ctx: &dyn fmt::Display) {
        assert_eq!(
            fs::read(self.path.join("Cargo.lock")).unwrap(),
            self.lock,
            "{ctx}: the crate's Cargo.lock changed"
        );
        for (_, file, bytes) in &self.originals {
            assert_eq!(
                &fs::read(file).unwrap(),
                bytes,
                "{ctx}: artifact {} changed",
                file.display()
            );
            if let Ok(result) = fs::read(minimized_path(file)) {
                if let Some(expected) = reference.get(file) {
                    assert_eq!(
                        &result,
                        expected,
                        "{ctx}: {} is not the 1-minimal result",
                        minimized_path(file).display()
                    );
                }
            }
            if let Ok(partial) = fs::read(partial_path(file)) {
                assert!(
                    partial.len() <= bytes.len(),
                    "{ctx}: {} is larger than its artifact",
                    partial_path(file).display()
                );
            }
        }
    }
}

/// The 1-minimal results of `crate_`'s artifacts: the known ones, and what
/// an undisturbed run `ended` wrote for the others.
fn reference(crate_: &Crate, ended: &Ended, targets: &[&str]) -> HashMap<PathBuf, Vec<u8>> {
    let mut reference = HashMap::new();
    for target in targets {
        let file = crate_.artifact(target);
        let written = fs::read(minimized_path(&file)).unwrap_or_else(|e| {
            panic!(
                "an undisturbed run wrote no result for {target}: {e}\n{}",
                ended.show()
            )
        });
        if let Some((_, known)) = KNOWN.iter().find(|(t, _)| t == target) {
            assert_eq!(
                &written,
                known,
                "{target}: undisturbed run\n{}",
                ended.show()
            );
        }
        reference.insert(file, written);
    }
    reference
}

/// `reduce --manifest-path CRATE --message-format json -jJOBS ARTIFACT…`
/// (`--force`), with `TMPDIR` and the build directory given.
fn reduce_command(
    crate_: &Crate,
    targets: &[&str],
    jobs: u64,
    tmp: &Path,
    build: &Path,
) -> std::process::Command {
    let jobs = format!("-j{jobs}");
    let artifacts: Vec<String> = targets
        .iter()
        .map(|t| crate_.artifact(t).to_string_lossy().into_owned())
        .collect();
    let mut args = vec![
        "reduce",
        "--manifest-path",
        crate_.manifest(),
        "--force",
        "--message-format",
        "json",
        &jobs,
    ];
    args.extend(artifacts.iter().map(String::as_str));
    let mut cmd = command(&args, build);
    cmd.env("TMPDIR", tmp);
    cmd
}

/// The checks after a point: returns the temporary files a SIGKILL left
/// beside the artifacts, for the next run to remove.
fn check_point(
    crate_: &Crate,
    ended: &Ended,
    sig: Sig,
    targets: &[&str],
    reference: &HashMap<PathBuf, Vec<u8>>,
    tmp: &Path,
    ctx: &dyn fmt::Display,
) -> Vec<PathBuf> {
    let show = ended.show();
    crate_.check_files(reference, ctx);
    // What each artifact has now: done (1-minimal), partial, or nothing.
    let states: Vec<(&str, bool, bool)> = targets
        .iter()
        .map(|t| {
            let file = crate_.artifact(t);
            (
                *t,
                minimized_path(&file).exists(),
                partial_path(&file).exists(),
            )
        })
        .collect();
    let errors: Vec<_> = ended
        .messages()
        .into_iter()
        .filter(|m| m["reason"] == "error")
        .collect();
    match ended.code() {
        Some(0) => {
            for (target, done, partial) in &states {
                assert!(
                    *done && !partial,
                    "{ctx}: exit 0 but {target} is not done\n{show}"
                );
            }
        }
        Some(130) if sig != Sig::Kill => {
            // Done artifacts, then at most one stopped (partial), then
            // nothing: the run stops at the interrupt.
            let first_open = states.iter().position(|(_, done, _)| !done);
            if let Some(open) = first_open {
                for (target, done, partial) in &states[open + 1..] {
                    assert!(
                        !done && !partial,
                        "{ctx}: {target} was written after the interrupt\n{show}"
                    );
                }
                let (target, _, partial) = states[open];
                let file = crate_.artifact(target);
                let reproduced = ended.when(&[
                    "\"reason\":\"artifact-reproduced\"",
                    file.file_name().unwrap().to_str().unwrap(),
                ]);
                // No partial result when nothing smaller was found: the
                // input itself is the best so far, and the message says so.
                let unchanged = ended.finished().iter().any(|m| {
                    m["input"].as_str() == file.to_str()
                        && m["output"].as_str() == file.to_str()
                        && m["minimal"] == false
                });
                assert!(
                    partial || reproduced.is_none() || unchanged,
                    "{ctx}: interrupted while reducing {target}, but its best result so far was not written\n{show}"
                );
                if partial {
                    let finished = ended.finished();
                    let last = finished.last().unwrap_or_else(|| {
                        panic!("{ctx}: a partial result for {target} but no message\n{show}")
                    });
                    assert_eq!(last["minimal"], false, "{ctx}\n{show}");
                    let partial = partial_path(&crate_.artifact(target));
                    assert_eq!(
                        last["output"].as_str(),
                        partial.to_str(),
                        "{ctx}: the message names the partial result\n{show}"
                    );
                    assert_eq!(
                        last["reduced_bytes"],
                        fs::read(&partial).unwrap().len(),
                        "{ctx}\n{show}"
                    );
                }
            }
            assert!(errors.is_empty(), "{ctx}: errors\n{show}");
        }
        None if sig == Sig::Kill && ended.killed_by(Sig::Kill) => {}
        None if ended.killed_by(sig) && ended.stdout.is_empty() && ended.stderr.is_empty() => {
            // Before the handler was installed: nothing may have happened.
            for (target, done, partial) in &states {
                assert!(!done && !partial, "{ctx}: {target} written\n{show}");
            }
        }
        _ => panic!("{ctx}: unexpected end\n{show}"),
    }
    assert_temp_private(tmp, ctx);
    let mut left = Vec::new();
    for target in targets {
        let dir = crate_.artifact(target).parent().unwrap().to_path_buf();
        left.extend(output_temps(&dir));
    }
    if !ended.killed_by(Sig::Kill) {
        assert!(
            left.is_empty(),
            "{ctx}: temporary files left beside the artifacts: {left:?}\n{show}"
        );
    }
    left
}

/// `count` seeded points, SIGKILL, SIGTERM and SIGINT in turn, during the
/// reproduction, the reduction and the check and write of the artifacts of
/// [`SIGNAL_TARGETS`]. One test (one crate copy, built once into a build
/// directory of its own: one shared with other copies rebuilds for each).
#[test]
fn fuzz_signals_during_reproduction_reduction_and_write() {
    let name = "fuzz-signals";
    let count = points(18, 180);
    let seed = base_seed(name);
    let crate_ = Crate::new();
    let build = Path::new(env!("CARGO_TARGET_TMPDIR")).join("faults-fuzz-signals");
    let sb = Sandbox::new();
    let tmp = private_tmp(&sb);
    let targets = &SIGNAL_TARGETS;
    let calibration = run_watched(
        reduce_command(&crate_, targets, 2, &tmp, &build),
        Duration::from_secs(300),
        &"calibration",
    );
    assert_eq!(
        calibration.code(),
        Some(0),
        "calibration\n{}",
        calibration.show()
    );
    let reference = reference(&crate_, &calibration, targets);
    // When each artifact's steps began and ended in the undisturbed run.
    let at = |reason: &str, target: &str| {
        let file = crate_.artifact(target);
        let name = file.file_name().unwrap().to_str().unwrap();
        calibration
            .when(&[&format!("\"reason\":\"{reason}\""), name])
            .unwrap_or_else(|| panic!("calibration: no {reason} for {target}"))
    };
    let built = calibration
        .when(&["\"reason\":\"build-finished\""])
        .expect("calibration: no build-finished");
    let first_started = at("reduction-started", targets[0]);
    let mut stale: Vec<PathBuf> = Vec::new();
    let mut outcomes = std::collections::BTreeMap::<String, usize>::new();
    for index in 0..count {
        let mut rng = Rng::for_point(seed, name, index);
        let sig = [Sig::Kill, Sig::Term, Sig::Int][index % 3];
        let jobs = 1 + rng.below(2);
        let to = *rng.pick(&[To::Process, To::Group]);
        let target = *rng.pick(targets);
        let file = crate_.artifact(target);
        let artifact_name = file.file_name().unwrap().to_str().unwrap().to_string();
        let reproduce = at("artifact-reproduced", target) - at("reduction-started", target);
        let reduce = at("reduction-finished", target) - at("artifact-reproduced", target);
        let ms = Duration::from_millis;
        let (event, delay, after) = match rng.below(4) {
            // Not during the build (see the build faults below).
            0 => (
                "build-finished",
                rng.between(Duration::ZERO, first_started.saturating_sub(built)),
                "build-finished (starting the workers)".to_string(),
            ),
            1 => (
                "reduction-started",
                rng.between(Duration::ZERO, reproduce.mul_f64(1.5) + ms(2)),
                format!("{target}'s reduction-started (reproducing)"),
            ),
            2 => (
                "artifact-reproduced",
                rng.between(Duration::ZERO, reduce),
                format!("{target}'s artifact-reproduced (reducing)"),
            ),
            _ => (
                "artifact-reproduced",
                rng.between(reduce.mul_f64(0.7), reduce.mul_f64(1.3) + ms(3)),
                format!("{target}'s artifact-reproduced (near its check and write)"),
            ),
        };
        let point = Point {
            fault: name.to_string(),
            seed,
            index,
            signal: sig,
            to,
            delay,
            after: format!("{after}, -j{jobs}"),
        };
        crate_.reset();
        let watched = Watched::spawn(reduce_command(&crate_, targets, jobs, &tmp, &build));
        let from = watched.wait_line(
            |l| {
                l.contains(&format!("\"reason\":\"{event}\""))
                    && (event == "build-finished" || l.contains(&artifact_name))
            },
            Duration::from_secs(120),
        );
        let sent = match from {
            Some(from) => watched.signal_at(from + delay, sig, to),
            // It ended (or failed) before the event: the checks tell.
            None => std::time::Instant::now(),
        };
        let ended = watched.finish(sent, Duration::from_secs(60), &point);
        let kind = match ended.code() {
            Some(code) => format!("exit {code}"),
            None => "signal".to_string(),
        };
        *outcomes.entry(format!("{sig}: {kind}")).or_default() += 1;
        assert_no_processes_left(&ended.nonce, STRAGGLERS, &point);
        // Every artifact this run began to reduce had its directory
        // cleaned of what killed runs left.
        stale.retain(|temp| {
            let dir = temp.parent().unwrap();
            let cleaned = targets.iter().any(|t| {
                let a = crate_.artifact(t);
                a.parent().unwrap() == dir
                    && ended
                        .when(&[
                            "\"reason\":\"reduction-started\"",
                            a.file_name().unwrap().to_str().unwrap(),
                        ])
                        .is_some()
            });
            assert!(
                !(cleaned && temp.exists()),
                "{point}: {} left by a killed run was not removed by the next run",
                temp.display()
            );
            !cleaned
        });
        stale.extend(check_point(
            &crate_, &ended, sig, targets, &reference, &tmp, &point,
        ));
    }
    eprintln!("{name}: {count} points, outcomes {outcomes:?}");
}

// ---------------------------------------------------------------------------
// Signals during the build

/// The build directory of the build faults, apart from the shared one
/// (its build is removed before each point), one test at a time.
fn build_dir() -> (std::sync::MutexGuard<'static, ()>, PathBuf) {
    static LOCK: Mutex<()> = Mutex::new(());
    let guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("faults-fuzz-build");
    (guard, dir)
}

/// `count` points of `sig` during a build from scratch (or while the fuzz
/// crate is looked up, before it): after each, the crate is untouched and
/// nothing written, no cargo left; a SIGTERM or SIGINT ends the run at once
/// with 130. An undisturbed run then builds and reduces.
fn build_signal_points(name: &str, signals: &[Sig], count: usize) {
    let seed = base_seed(name);
    let (_guard, build) = build_dir();
    let crate_ = Crate::new();
    let sb = Sandbox::new();
    let tmp = private_tmp(&sb);
    let targets = ["abort"];
    let none = HashMap::new();
    for index in 0..count {
        let mut rng = Rng::for_point(seed, name, index);
        let sig = *rng.pick(signals);
        let to = if sig == Sig::Kill {
            To::Process
        } else {
            *rng.pick(&[To::Process, To::Group])
        };
        // Mostly during the build; one point in four while the fuzz crate
        // is looked up (`cargo metadata`), before it.
        let discovery = rng.below(4) == 0;
        let delay = match discovery {
            true => rng.between(Duration::ZERO, Duration::from_millis(150)),
            false => rng.between(Duration::from_millis(200), Duration::from_millis(3000)),
        };
        let point = Point {
            fault: name.to_string(),
            seed,
            index,
            signal: sig,
            to,
            delay,
            after: match discovery {
                true => "the start (cargo metadata)".to_string(),
                false => "build-started (a build from scratch)".to_string(),
            },
        };
        // One build directory per workspace: `cargo-reduce/build-<hash>`.
        for dir in fs::read_dir(build.join("cargo-reduce"))
            .into_iter()
            .flatten()
        {
            let dir = dir.unwrap().path();
            if dir
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("build-")
            {
                let _ = fs::remove_dir_all(dir);
            }
        }
        crate_.reset();
        let watched = Watched::spawn(reduce_command(&crate_, &targets, 1, &tmp, &build));
        let from = match discovery {
            true => Some(watched.started),
            false => watched.wait_line(
                |l| l.contains("\"reason\":\"build-started\""),
                Duration::from_secs(120),
            ),
        };
        let Some(from) = from else {
            let ended = watched.finish(std::time::Instant::now(), Duration::from_secs(5), &point);
            panic!("{point}: no build-started\n{}", ended.show());
        };
        let sent = watched.signal_at(from + delay, sig, to);
        let ended = watched.finish(sent, Duration::from_secs(120), &point);
        let show = ended.show();
        // cargo dies with cargo-reduce (its rustc processes may finish
        // the crate they compile).
        assert_no_cargo_left(&ended.nonce, &point);
        assert_no_processes_left(&ended.nonce, STRAGGLERS, &point);
        crate_.check_files(&none, &point);
        let written = written_files(&crate_.path.join("artifacts"));
        match sig {
            Sig::Kill => assert!(ended.killed_by(Sig::Kill), "{point}\n{show}"),
            // Before the handler was installed: nothing happened yet.
            _ if ended.killed_by(sig) && ended.stdout.is_empty() && ended.stderr.is_empty() => {}
            _ => {
                assert_eq!(ended.code(), Some(130), "{point}\n{show}");
                // A build from scratch takes longer; stopping it, killing
                // cargo and its rustc processes, seconds on a loaded machine.
                assert!(
                    ended.took < Duration::from_secs(20),
                    "{point}: the build went on after the signal\n{show}"
                );
            }
        }
        assert!(
            written.is_empty(),
            "{point}: written although stopped during the build: {written:?}\n{show}"
        );
        assert_temp_private(&tmp, &point);
    }
    // The build directory survived: an undisturbed run builds and reduces.
    let ctx = format!("{name}: the run after the faults");
    let ended = run_watched(
        reduce_command(&crate_, &targets, 1, &tmp, &build),
        Duration::from_secs(600),
        &ctx,
    );
    assert_eq!(ended.code(), Some(0), "{ctx}\n{}", ended.show());
    crate_.check_files(&reference(&crate_, &ended, &targets), &ctx);
}

/// No `cargo` process of the run is left 20 s after it ended (it ends
/// with cargo-reduce; a build going on without it takes far longer).
fn assert_no_cargo_left(nonce: &str, ctx: &dyn fmt::Display) {
    let until = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let cargo: Vec<_> = processes_of(nonce)
            .into_iter()
            .filter(|(_, cmdline)| {
                let program = cmdline.split(' ').next().unwrap_or("");
                program == "cargo" || program.ends_with("/cargo")
            })
            .collect();
        if cargo.is_empty() {
            return;
        }
        assert!(
            std::time::Instant::now() < until,
            "{ctx}: the build went on without cargo-reduce: {cargo:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn fuzz_sigkill_during_the_build() {
    build_signal_points("fuzz-build-sigkill", &[Sig::Kill], points(2, 12));
}

#[test]
fn fuzz_sigint_and_sigterm_during_the_build_end_at_once_with_nothing_written() {
    build_signal_points(
        "fuzz-build-sigint-sigterm",
        &[Sig::Int, Sig::Term],
        points(2, 12),
    );
}

// ---------------------------------------------------------------------------
// Full and read-only file systems, TMPDIR

/// A copy of the crate whose `artifacts/abort` directory is a small tmpfs
/// (holding its artifact). The tmpfs goes first: it must be unmounted
/// before the copy is removed.
struct OnTmpfs {
    mount: crate::faults::Mount,
    crate_: Crate,
}

/// A copy on a tmpfs, or `None` where mounting is not allowed.
fn crate_on_tmpfs(test: &str) -> Option<OnTmpfs> {
    let crate_ = Crate::new();
    let file = crate_.artifact("abort");
    let bytes = fs::read(&file).unwrap();
    let dir = file.parent().unwrap().to_path_buf();
    fs::remove_file(&file).unwrap();
    let mount = mount_or_skip(test, &dir, "64k")?;
    fs::write(&file, bytes).unwrap();
    Some(OnTmpfs { mount, crate_ })
}

fn error_messages(ended: &Ended) -> Vec<serde_json::Value> {
    ended
        .messages()
        .into_iter()
        .filter(|m| m["reason"] == "error")
        .collect()
}

#[test]
fn fuzz_a_read_only_artifacts_directory_is_refused_before_the_first_test() {
    let test = "read-only artifacts directory";
    let Some(on_tmpfs) = crate_on_tmpfs(test) else {
        return;
    };
    let (mount, crate_) = (&on_tmpfs.mount, &on_tmpfs.crate_);
    mount.read_only();
    let sb = Sandbox::new();
    let tmp = private_tmp(&sb);
    let ended = run_watched(
        reduce_command(crate_, &["abort"], 1, &tmp, &target_dir()),
        Duration::from_secs(300),
        &test,
    );
    let show = ended.show();
    assert_eq!(ended.code(), Some(2), "{test}\n{show}");
    let errors = error_messages(&ended);
    assert_eq!(errors.len(), 1, "{test}: one error\n{show}");
    let message = errors[0]["message"].as_str().unwrap();
    let dir = crate_.artifact("abort").parent().unwrap().to_path_buf();
    assert!(
        message.contains(&format!("`{}`", dir.display()))
            && message.contains("Read-only file system")
            && !message.contains('\n'),
        "{test}: {message}"
    );
    assert!(
        !ended.stdout.contains("artifact-reproduced"),
        "{test}: tested before the refusal\n{show}"
    );
    crate_.check_files(&HashMap::new(), &test);
    assert!(written_files(&crate_.path.join("artifacts")).is_empty());
}

#[test]
fn fuzz_a_full_disk_saves_the_result_elsewhere_and_names_it() {
    let test = "full artifacts directory";
    let Some(on_tmpfs) = crate_on_tmpfs(test) else {
        return;
    };
    let (mount, crate_) = (&on_tmpfs.mount, &on_tmpfs.crate_);
    mount.fill();
    let sb = Sandbox::new();
    let tmp = private_tmp(&sb);
    let ended = run_watched(
        reduce_command(crate_, &["abort"], 1, &tmp, &target_dir()),
        Duration::from_secs(300),
        &test,
    );
    let show = ended.show();
    assert_eq!(ended.code(), Some(1), "{test}\n{show}");
    let errors = error_messages(&ended);
    assert_eq!(errors.len(), 1, "{test}: one error\n{show}");
    let message = errors[0]["message"].as_str().unwrap();
    let file = crate_.artifact("abort");
    let dir = file.parent().unwrap();
    assert!(
        message.contains(&format!(
            "cannot write `{}`",
            minimized_path(&file).display()
        )) && message.contains("No space left on device")
            && !message.contains(&format!("{}/.cargo-reduce-", dir.display()))
            && !message.contains('\n'),
        "{test}: {message}"
    );
    let saved = message
        .rsplit("saved in `")
        .next()
        .unwrap()
        .split('`')
        .next()
        .unwrap();
    assert!(
        Path::new(saved).starts_with(fs::canonicalize(&tmp).unwrap()),
        "{test}: {message}"
    );
    assert_eq!(fs::read(saved).unwrap(), b"ZAP", "{test}: the saved result");
    crate_.check_files(&HashMap::new(), &test);
    assert!(!minimized_path(&file).exists() && !partial_path(&file).exists());
    assert!(
        output_temps(dir).is_empty(),
        "{test}: {:?}",
        output_temps(dir)
    );
    assert_temp_private(&tmp, &test);
}

#[test]
fn fuzz_an_unwritable_tmpdir_is_exit_10_naming_it() {
    let crate_ = Crate::new();
    let sb = Sandbox::new();
    sb.write("a-file", "not a directory\n");
    let read_only = sb.join("read-only");
    let mount = mount_or_skip("read-only TMPDIR (fuzz mode)", &read_only, "64k");
    if let Some(mount) = &mount {
        mount.read_only();
    }
    let mut cases = vec![
        ("missing", sb.join("missing")),
        ("a file", sb.join("a-file")),
    ];
    if mount.is_some() {
        cases.push(("read-only", read_only.clone()));
    }
    for (what, tmp) in cases {
        let ctx = format!("TMPDIR {what} (fuzz mode)");
        let mut cmd = command(
            &["reduce", "--manifest-path", crate_.manifest(), "--force"],
            &target_dir(),
        );
        cmd.env("TMPDIR", &tmp);
        let ended = run_watched(cmd, Duration::from_secs(300), &ctx);
        crate::faults::assert_one_line_error(
            &ended,
            10,
            &[&format!("`{}`", tmp.display()), "TMPDIR"],
            &ctx,
        );
        crate_.check_files(&HashMap::new(), &ctx);
        assert!(written_files(&crate_.path.join("artifacts")).is_empty());
        if what == "missing" {
            assert!(!tmp.exists(), "{ctx}: TMPDIR was created");
        }
    }
}

// ---------------------------------------------------------------------------
// Two runs on one crate

/// Two `cargo reduce --force` on one crate at once: each artifact is
/// written by one run at a time (the other says so, exit 9), the results
/// are 1-minimal, the crate untouched.
#[test]
fn fuzz_two_runs_on_one_crate() {
    let test = "two runs on one crate";
    let crate_ = Crate::new();
    let sb = Sandbox::new();
    let tmp = private_tmp(&sb);
    let run = || {
        let mut cmd = command(
            &[
                "reduce",
                "--manifest-path",
                crate_.manifest(),
                "--force",
                "-j1",
                "--message-format",
                "json",
            ],
            &target_dir(),
        );
        cmd.env("TMPDIR", &tmp);
        Watched::spawn(cmd)
    };
    let (a, b) = (run(), run());
    let (start_a, start_b) = (a.started, b.started);
    let a = a.finish(start_a, Duration::from_secs(300), &test);
    let b = b.finish(start_b, Duration::from_secs(300), &test);
    for ended in [&a, &b] {
        let show = ended.show();
        assert_no_processes_left(&ended.nonce, STRAGGLERS, &test);
        let errors = error_messages(ended);
        match ended.code() {
            Some(0) => assert!(errors.is_empty(), "{test}\n{show}"),
            Some(9) => {
                assert!(!errors.is_empty(), "{test}\n{show}");
                for e in &errors {
                    assert_eq!(e["exit"], 9, "{test}: only busy outputs\n{show}");
                    assert!(
                        e["message"]
                            .as_str()
                            .unwrap()
                            .contains("another cargo-reduce run is writing"),
                        "{test}\n{show}"
                    );
                }
            }
            _ => panic!("{test}: unexpected end\n{show}"),
        }
        for m in ended.finished() {
            assert_eq!(m["minimal"], true, "{test}\n{show}");
        }
    }
    let known: HashMap<PathBuf, Vec<u8>> = KNOWN
        .iter()
        .map(|(t, b)| (crate_.artifact(t), b.to_vec()))
        .collect();
    crate_.check_files(&known, &test);
    for (_, file, _) in &crate_.originals {
        assert!(
            minimized_path(file).exists(),
            "{test}: no result for {}\n{}\n{}",
            file.display(),
            a.show(),
            b.show()
        );
        assert!(!partial_path(file).exists(), "{test}");
        let dir = file.parent().unwrap();
        assert!(output_temps(dir).is_empty(), "{test}");
    }
    assert_temp_private(&tmp, &test);
}
