//! How much CPU time a test process has had. The stack samples of an
//! endless test are spread over the test's own running time, not the
//! clock's: on a loaded machine a test may not run at all for tens of
//! milliseconds, and samples spaced by the clock then all land on one spot
//! (a loop that calls a function was placed in the function, under load).
//! For the same reason a test is waited for its stack until it has had a
//! CPU to answer on ([`Answer`]).

use std::time::{Duration, Instant};

/// The CPU time of every thread of process `pid` (and of the fork it runs
/// its test in, if it does: `forks`) so far: the first field of
/// `/proc/<pid>/task/*/schedstat`, in nanoseconds. `None` when the process
/// is gone or the kernel keeps no such figures.
pub(super) fn cpu_time(pid: u32) -> Option<Duration> {
    let mut total = 0u64;
    for (i, pid) in super::forks::with_children(pid).into_iter().enumerate() {
        match process_cpu_time(pid) {
            Some(nanos) => total += nanos,
            // A fork that has just ended has no more to add.
            None if i > 0 => {}
            None => return None,
        }
    }
    Some(Duration::from_nanos(total))
}

/// [`cpu_time`] of one process, in nanoseconds. A thread that ends
/// between the listing and its read has no more to add; the process is
/// gone when none of its threads can be read.
fn process_cpu_time(pid: u32) -> Option<u64> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let figures: Vec<u64> = tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
        .map(|text| text.split_whitespace().next()?.parse().ok())
        .collect::<Option<_>>()?;
    (!figures.is_empty()).then(|| figures.iter().sum())
}

/// Waits until process `pid` has run for `spacing` more CPU time, or until
/// `cap` of wall time has passed (a test blocked in a system call does not
/// run at all); the CPU time it ran meanwhile. Without figures for `pid`,
/// waits `spacing` by the clock.
pub(super) fn wait_for_cpu(pid: u32, spacing: Duration, cap: Duration) -> Duration {
    let Some(from) = cpu_time(pid) else {
        std::thread::sleep(spacing);
        return spacing;
    };
    let started = Instant::now();
    let poll = (spacing / 4).max(Duration::from_micros(100));
    loop {
        std::thread::sleep(poll);
        let ran = match cpu_time(pid) {
            Some(now) => now.saturating_sub(from),
            None => return Duration::ZERO,
        };
        if ran >= spacing || started.elapsed() >= cap {
            return ran;
        }
    }
}

/// How long at most a test process that waits for a CPU is waited for
/// (see [`Answer`]).
const LOADED_GRACE: Duration = Duration::from_secs(10);

/// The CPU time a process may have had since it was signalled without
/// answering before it counts as not answering: the kernel runs a
/// signal's handler before the process's own code goes on.
const RAN_WITHOUT_ANSWER: Duration = Duration::from_millis(10);

/// A signal's answer awaited from a test process. A process answers as
/// soon as it runs; on a loaded machine it may wait for a CPU for longer
/// than the caller's grace, and giving up then would lose what it was
/// about to say (the stack that tells one endless loop from another). So
/// the grace runs out only for a process that has run, or does not wait
/// for a CPU, since it was asked; one that has not is waited for up to
/// [`LOADED_GRACE`].
pub(super) struct Answer {
    pid: u32,
    asked: Instant,
    cpu: Option<Duration>,
}

impl Answer {
    /// Process `pid` has just been signalled.
    pub(super) fn asked(pid: u32) -> Answer {
        Answer {
            pid,
            asked: Instant::now(),
            cpu: cpu_time(pid),
        }
    }

    /// Whether to stop waiting, with `grace` for a process that could
    /// have answered: what the wait saw if so.
    pub(super) fn given_up(&self, grace: Duration) -> Option<Silence> {
        let waited = self.asked.elapsed();
        if waited < grace {
            return None;
        }
        let ran = cpu_time(self.pid)
            .zip(self.cpu)
            .map(|(now, then)| now.saturating_sub(then));
        let runnable = super::forks::with_children(self.pid)
            .into_iter()
            .any(is_runnable);
        give_up(waited, grace, ran, runnable).then_some(Silence {
            waited,
            ran,
            runnable,
        })
    }
}

/// A process that was given up on: how long it was waited for, the CPU
/// time it had meanwhile (`None`: no figures, or gone), and whether it
/// was waiting for a CPU or on one when given up on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Silence {
    pub waited: Duration,
    pub ran: Option<Duration>,
    pub runnable: bool,
}

impl std::fmt::Display for Silence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = if self.runnable { "runnable" } else { "blocked" };
        write!(f, "no answer in {:.1} s, ", self.waited.as_secs_f64())?;
        match self.ran {
            Some(ran) => write!(f, "{} ms of CPU since, {state}", ran.as_millis()),
            None => write!(f, "no CPU figures, {state}"),
        }
    }
}

/// Whether to stop waiting for an answer `waited` after asking, the
/// process having run for `ran` since (`None`: no figures) and waiting for
/// a CPU or on one now (`runnable`).
fn give_up(waited: Duration, grace: Duration, ran: Option<Duration>, runnable: bool) -> bool {
    let starved = runnable && ran.is_some_and(|ran| ran < RAN_WITHOUT_ANSWER);
    waited >= grace && (!starved || waited >= LOADED_GRACE)
}

/// Whether a thread of process `pid` is running or waiting for a CPU
/// (state `R` in `/proc/<pid>/task/*/stat`).
fn is_runnable(pid: u32) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    tasks.flatten().any(|task| {
        let stat = std::fs::read_to_string(task.path().join("stat")).unwrap_or_default();
        let state = stat.rsplit_once(')').map(|(_, rest)| rest.trim_start());
        state.is_some_and(|s| s.starts_with('R'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spinning_thread_gains_cpu_time_and_a_sleeping_one_does_not() {
        let me = std::process::id();
        let before = cpu_time(me).expect("schedstat");
        let spin = Instant::now();
        while spin.elapsed() < Duration::from_millis(20) {
            std::hint::black_box(0u64);
        }
        assert!(cpu_time(me).unwrap() > before);
        // A sleeping child: no CPU time to speak of however long we wait
        // (once it has started and gone to sleep).
        let mut child = sleeping_child();
        let ran = wait_for_cpu(
            child.id(),
            Duration::from_millis(5),
            Duration::from_millis(100),
        );
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(ran < Duration::from_millis(5), "{ran:?}");
    }

    /// A process that has not had a CPU since it was asked is waited for
    /// past the grace; one that ran, sleeps, or is gone is not.
    #[test]
    fn a_starved_process_is_waited_for_past_the_grace() {
        let ms = Duration::from_millis;
        let grace = ms(500);
        assert!(!give_up(ms(100), grace, Some(ms(50)), false));
        assert!(!give_up(ms(600), grace, Some(ms(1)), true));
        assert!(!give_up(ms(9_000), grace, Some(Duration::ZERO), true));
        assert!(give_up(ms(10_000), grace, Some(Duration::ZERO), true));
        assert!(give_up(ms(600), grace, Some(ms(50)), true));
        assert!(give_up(ms(600), grace, Some(Duration::ZERO), false));
        assert!(give_up(ms(600), grace, None, true));
    }

    #[test]
    fn a_spinning_process_is_runnable_and_a_sleeping_one_is_not() {
        assert!(is_runnable(std::process::id()));
        let mut child = sleeping_child();
        let runnable = is_runnable(child.id());
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(!runnable);
        assert!(!is_runnable(child.id()));
    }

    /// A `sleep 30` that has been exec'd and gone to sleep. Between the
    /// fork and the exec the child runs or waits on the disk: a test that
    /// reads its state then reads a passing one.
    fn sleeping_child() -> std::process::Child {
        let child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let stat = format!("/proc/{}/stat", child.id());
        let asleep = || {
            let text = std::fs::read_to_string(&stat).unwrap_or_default();
            text.contains("(sleep)")
                && text
                    .rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('S')
        };
        let started = Instant::now();
        while !asleep() {
            assert!(started.elapsed() < Duration::from_secs(30), "{stat}");
            std::thread::sleep(Duration::from_millis(1));
        }
        child
    }

    /// Threads that end while their process's figures are read leave it
    /// a process with a CPU time (the pool's workers start and end threads
    /// of the user's code).
    #[test]
    fn threads_that_come_and_go_leave_the_process_its_cpu_time() {
        let stop = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    std::thread::spawn(|| ()).join().unwrap();
                }
            });
            let read = (0..2_000).all(|_| cpu_time(std::process::id()).is_some());
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            assert!(read);
        });
    }

    #[test]
    fn a_gone_process_has_no_cpu_time() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        assert_eq!(cpu_time(pid), None);
    }
}
