//! How much CPU time a test process has had. The stack samples of an
//! endless test are spread over the test's own running time, not the
//! clock's: on a loaded machine a test may not run at all for tens of
//! milliseconds, and samples spaced by the clock then all land on one spot
//! (a loop that calls a function was placed in the function, under load).

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

/// [`cpu_time`] of one process, in nanoseconds.
fn process_cpu_time(pid: u32) -> Option<u64> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut total = 0u64;
    for task in tasks.flatten() {
        let text = std::fs::read_to_string(task.path().join("schedstat")).ok()?;
        total += text.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(total)
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
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let stat = format!("/proc/{}/stat", child.id());
        let asleep = || {
            let text = std::fs::read_to_string(&stat).unwrap_or_default();
            text.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('S')
                && text.contains("(sleep)")
        };
        while !asleep() {
            std::thread::sleep(Duration::from_millis(1));
        }
        let ran = wait_for_cpu(
            child.id(),
            Duration::from_millis(5),
            Duration::from_millis(100),
        );
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(ran < Duration::from_millis(5), "{ran:?}");
    }

    #[test]
    fn a_gone_process_has_no_cpu_time() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        assert_eq!(cpu_time(pid), None);
    }
}
