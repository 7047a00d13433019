//! Tests of the harness's races and silent failures (issue 26), on the
//! pool fixture's `edges` and `crashes` targets. Where the bad interleaving
//! is a race, the test stops the parent at the point the race needs (an
//! event not read yet, a report not finished) and checks what the other
//! side did meanwhile.

use std::os::unix::process::ExitStatusExt;
use std::time::{Duration, Instant};

use rustix::process::Signal;

use super::{binaries, failure, one_worker, options, stack_limit_kib};
use crate::fuzz::pool::crew::Crew;
use crate::fuzz::pool::death::KillReason;
use crate::fuzz::pool::protocol::{split_panic_text, Event, Request, NOTE_PANIC, SLOT_FAILED};
use crate::fuzz::pool::shm::Batch;
use crate::fuzz::pool::worker_process::wait_readable;
use crate::fuzz::pool::*;

/// Sends a round of `inputs` to the worker of slot 0, as a round does,
/// without reading anything back.
fn send_round(crew: &mut Crew, inputs: &[&[u8]]) {
    let mut batch = Batch::default();
    for input in inputs {
        batch.data.extend_from_slice(input);
        batch.ends.push(batch.data.len() as u64);
    }
    crew.load(&batch, false).unwrap();
    crew.generation += 1;
    crew.send_round(0, None).unwrap();
}

/// The state letter and parent of process `pid`, from `/proc/<pid>/stat`.
fn process_state(pid: u32) -> Option<(char, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut fields = stat[stat.rfind(')')? + 1..].split_whitespace();
    let state = fields.next()?.chars().next()?;
    Some((state, fields.next()?.parse().ok()?))
}

/// The fork server reports a dead child before the parent may forget its
/// pid (which the parent kills and measures): until the parent has read
/// the report, the child stays an unreaped zombie, so its pid cannot be
/// another process's. Then the fork server reaps it before the next fork.
#[test]
fn a_dead_test_process_keeps_its_pid_until_the_parent_read_its_death() {
    let pool = one_worker("crashes");
    let mut crew = pool.crew();
    send_round(&mut crew, &[b"abort"]);
    let worker = crew.workers[0].as_mut().unwrap();
    let (server, child) = worker.pids();
    assert_ne!(server, child, "a fork server");
    wait_readable(&[worker.event_fd()], -1).unwrap();
    assert_eq!(
        process_state(child),
        Some(('Z', server)),
        "the death is reported, not read: the child must be unreaped"
    );
    worker
        .handshake(Instant::now() + Duration::from_secs(60))
        .unwrap();
    let death = worker.take_death().expect("the death was read");
    assert_eq!(death.status.signal(), Some(Signal::ABORT.as_raw()));
    assert!(
        process_state(child).is_none_or(|(_, parent)| parent != server),
        "reaped before the next child"
    );
    crew.shm.reset_area(0);
    drop(crew);
    assert_eq!(pool.run(b"fine").unwrap(), Outcome::Passed);
}

/// A panic's report is one small write (its text stays in the note, which
/// the worker keeps until told to go on), and the slot is marked failed
/// before it: a test process killed right after its panic (as the watchdog
/// may) leaves a whole report and its note, never half a frame. The
/// message here is larger than the pipe, which would cut a report that
/// carried it.
#[test]
fn a_process_killed_after_its_panic_leaves_the_whole_report() {
    let pool = one_worker("edges");
    let mut crew = pool.crew();
    let worker = crew.workers[0].as_mut().unwrap();
    rustix::pipe::fcntl_setpipe_size(worker.event_fd(), 4096).unwrap();
    send_round(&mut crew, &[b"big-panic"]);
    let worker = crew.workers[0].as_mut().unwrap();
    wait_readable(&[worker.event_fd()], -1).unwrap();
    let mut events = Vec::new();
    let reason = KillReason::Timeout(Duration::from_secs(1));
    let death = worker.kill_test(reason, &mut events);
    assert!(death.is_some(), "the death was read: {events:?}");
    assert_eq!(
        events,
        [Event::Failed {
            generation: crew.generation,
            index: 0,
            kind: NOTE_PANIC,
        }]
    );
    assert_eq!(crew.shm.slot(0), SLOT_FAILED);
    let note = crew.shm.note(0).expect("the panic's note");
    let panic = split_panic_text(&note.text);
    assert!(
        panic.location.starts_with("fuzz_targets/edges.rs:"),
        "{panic:?}"
    );
    assert!(panic.message.starts_with("xxxx"));
    crew.workers[0] = None;
    crew.shm.reset_area(0);
    drop(crew);
    assert_eq!(pool.run(b"fine").unwrap(), Outcome::Passed);
}

/// After a stale answer to a dead process (its failure's `Resume`), the
/// next test process still runs rounds.
#[test]
fn answers_meant_for_a_dead_process_are_skipped() {
    let pool = one_worker("edges");
    let outcome = pool.run(b"big-panic").unwrap();
    assert_eq!(failure(&outcome).kind, FailureKind::Panic);
    let mut crew = pool.crew();
    let worker = crew.workers[0].as_mut().unwrap();
    worker.send(&Request::Resume).unwrap();
    worker.send(&Request::Release).unwrap();
    drop(crew);
    assert_eq!(pool.run(b"fine").unwrap(), Outcome::Passed);
    assert_eq!(
        failure(&pool.run(b"segv").unwrap()).kind,
        FailureKind::Signal(11)
    );
    assert_eq!(pool.run(b"fine").unwrap(), Outcome::Passed);
}

/// A pool of `target` without a malloc limit, so that allocations reach
/// the system allocator and fail there. No verdict here is a timeout, so
/// the timeout is far away: at load 29 a failing allocation once took
/// longer than the 2 s of `options()` and came out a timeout.
fn unlimited(target: &str) -> WorkerPool {
    let options = PoolOptions {
        jobs: 1,
        malloc_limit_mb: Some(0),
        timeout: Duration::from_secs(600),
        ..options()
    };
    WorkerPool::start(&binaries()[target], options).unwrap()
}

/// An allocation of exactly the malloc limit is over it, as libFuzzer
/// counts (`(Size >> 20) >= MallocLimitMb`): the fixture's `alloc` asks
/// for 3 GiB at once.
#[test]
fn an_allocation_of_exactly_the_malloc_limit_is_out_of_memory() {
    let options = PoolOptions {
        jobs: 1,
        malloc_limit_mb: Some(3 << 10),
        timeout: Duration::from_secs(600),
        ..options()
    };
    let pool = WorkerPool::start(&binaries()["crashes"], options).unwrap();
    let oom = pool.run(b"alloc").unwrap();
    let oom = failure(&oom);
    assert_eq!(oom.kind, FailureKind::Oom);
    assert_eq!(
        oom.message.as_deref(),
        Some("out-of-memory: malloc(3221225472) exceeds the malloc limit")
    );
}

/// A test past the timeout whose memory still grows is given up to ten
/// times the timeout: filling memory slowly, it either ends (24 chunks of
/// 16 MiB, at least 0.24 s) or runs over the memory limit (64 chunks, 1 GiB,
/// over 512 MB after about 0.4 s), not a timeout that a faster machine would
/// not give; a test whose memory does not grow is still a timeout at the
/// timeout, and so is every test without the grace. The timeout (200 ms)
/// leaves a loaded machine room: a look every 25 ms must see a new peak
/// within two looks, and the grace ends at 2 s.
#[test]
fn a_test_filling_memory_past_the_timeout_ends_or_runs_out_of_memory() {
    let timeout = Duration::from_millis(200);
    let options = PoolOptions {
        jobs: 1,
        timeout,
        ..options()
    };
    let pool = WorkerPool::start(&binaries()["crashes"], options).unwrap();
    assert_eq!(pool.run(b"grow:24").unwrap(), Outcome::Passed);
    let oom = pool.run(b"grow:64").unwrap();
    assert_eq!(failure(&oom).kind, FailureKind::Oom, "{oom:?}");
    let started = Instant::now();
    let hang = pool.run(b"loop").unwrap();
    assert_eq!(failure(&hang).kind, FailureKind::Timeout);
    assert!(started.elapsed() < timeout * 10, "not given the grace");
    // Where the failure is the timeout itself, filling memory is no excuse.
    pool.set_memory_grace(false);
    let slow = pool.run(b"grow:24").unwrap();
    assert_eq!(failure(&slow).kind, FailureKind::Timeout, "{slow:?}");
}

/// An allocation failure the target handles (`try_reserve`) is not the
/// test's failure: a later panic keeps its location, a later segfault is
/// a segfault. One it does not handle is out of memory.
#[test]
fn only_an_allocation_failure_that_ends_the_test_is_out_of_memory() {
    let pool = unlimited("edges");
    assert_eq!(pool.run(b"reserve-").unwrap(), Outcome::Passed);
    let panic = pool.run(b"reserve-panic").unwrap();
    let panic = failure(&panic);
    assert_eq!(panic.kind, FailureKind::Panic);
    assert!(
        panic
            .location
            .as_deref()
            .is_some_and(|l| l.starts_with("fuzz_targets/edges.rs:")),
        "{panic:?}"
    );
    let segv = pool.run(b"reserve-segv").unwrap();
    assert_eq!(failure(&segv).kind, FailureKind::Signal(11));
    let oom = pool.run(b"alloc-fail").unwrap();
    assert_eq!(failure(&oom).kind, FailureKind::Oom);
}

/// When the tripwire cannot be closed again after a test opened it (the
/// target used up `vm.max_map_count`), the process ends: the next test
/// runs in a new one, whose tripwire catches its overflow, instead of
/// overflowing into the open margin unnoticed.
#[test]
fn a_tripwire_that_cannot_close_ends_its_process() {
    let max = std::fs::read_to_string("/proc/sys/vm/max_map_count").unwrap();
    let max: u64 = max.trim().parse().unwrap();
    assert!(max <= 1 << 20, "vm.max_map_count {max}: too many to use up");
    let pool = one_worker("edges");
    let limit = stack_limit_kib();
    let filled = pool
        .run(format!("deep-then-maps:{}", limit + 128).as_bytes())
        .unwrap();
    assert_eq!(failure(&filled).kind, FailureKind::StackOverflow);
    let next = pool
        .run(format!("deep:{}", limit + 128).as_bytes())
        .unwrap();
    assert_eq!(failure(&next).kind, FailureKind::StackOverflow);
}

/// The alternate signal stack the fault handler runs on is as large as
/// the kernel asks (`AT_MINSIGSTKSZ`, and at least 64 KiB), with a guard
/// page below it.
#[test]
fn the_alternate_signal_stack_is_large_enough_and_guarded() {
    let pool = one_worker("edges");
    assert_eq!(pool.run(b"altstack").unwrap(), Outcome::Passed);
}

/// A fault that is not an overflow goes on to the handler installed
/// before the stand-in's (here the program's own, which exits with 42 on
/// its own faults and leaves the others to the default action).
#[test]
fn faults_not_ours_go_to_the_handler_installed_before() {
    let pool = one_worker("edges");
    let own = pool.run(b"own-fault").unwrap();
    assert_eq!(failure(&own).kind, FailureKind::Exit(42));
    let segv = pool.run(b"segv").unwrap();
    assert_eq!(failure(&segv).kind, FailureKind::Signal(11));
}

/// A thread the target spawns that overflows its stack is a stack
/// overflow, not a segfault.
#[test]
fn an_overflow_on_a_thread_of_the_target_is_a_stack_overflow() {
    let pool = one_worker("edges");
    let outcome = pool.run(b"thread-overflow").unwrap();
    assert_eq!(failure(&outcome).kind, FailureKind::StackOverflow);
}

/// A fork server's test process ties its life to the server's at once; if
/// the server died before that (killed between `fork` and `prctl`), the
/// process ends instead of running tests nobody reads. Orphans go to the
/// nearest subreaper (systemd --user, a container's init), not always to
/// pid 1: here a process makes itself a subreaper, a "server" forks a
/// child and dies, and the child, re-parented to the subreaper, must end
/// (status 3) when it takes the harness's check. Every wait is for an
/// event; a watchdog kills the whole process group if anything hangs.
#[test]
fn a_test_process_orphaned_to_a_subreaper_ends() {
    let mut fds = [0; 2];
    // SAFETY: a valid two-int out-array.
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    let [server_reaped, reaped_writer] = fds;
    // SAFETY: the child makes system calls only, then `_exit`s.
    let subreaper = unsafe { libc::fork() };
    if subreaper == 0 {
        // SAFETY: system calls only, in a forked child.
        unsafe { libc::_exit(orphan_under_subreaper(server_reaped, reaped_writer)) }
    }
    assert!(subreaper > 0);
    // SAFETY: our own child; the descriptor is ours.
    unsafe {
        libc::setpgid(subreaper, subreaper);
        libc::close(reaped_writer);
        libc::close(server_reaped);
    }
    let (done, watched) = std::sync::mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        let hung = watched.recv_timeout(Duration::from_secs(120)).is_err();
        if hung {
            // SAFETY: kills the process group the test made.
            unsafe { libc::kill(-subreaper, libc::SIGKILL) };
        }
        hung
    });
    let mut status = 0;
    // SAFETY: waits for our own child.
    while unsafe { libc::waitpid(subreaper, &mut status, 0) } < 0 {
        let err = std::io::Error::last_os_error();
        assert_eq!(err.kind(), std::io::ErrorKind::Interrupted, "{err}");
    }
    done.send(()).unwrap();
    assert!(!watchdog.join().unwrap(), "hung: the watchdog killed it");
    let status = std::process::ExitStatus::from_raw(status);
    assert_eq!(
        status.code(),
        Some(3),
        "the orphan's exit status as its subreaper saw it (0: it ran on): {status:?}"
    );
}

/// The subreaper's side of the test above: forks the "server", which
/// forks the test process and dies; returns the orphan's exit code.
///
/// # Safety
/// Runs in a forked child of a threaded process: system calls only.
unsafe fn orphan_under_subreaper(server_reaped: i32, reaped_writer: i32) -> i32 {
    // SAFETY: system calls only (see above).
    unsafe {
        libc::setpgid(0, 0);
        if libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1) != 0 {
            return 10;
        }
        let server = libc::fork();
        if server == 0 {
            let server = libc::getpid();
            if libc::fork() == 0 {
                // The test process: waits until the server is reaped
                // (after which it is surely re-parented: the pipe's last
                // writer, the subreaper, closes it then), then takes the
                // check.
                libc::close(reaped_writer);
                let mut byte = 0u8;
                while libc::read(server_reaped, (&mut byte as *mut u8).cast(), 1) < 0 {}
                crate::fuzz::pool::sys::die_with_parent(server);
                libc::_exit(0);
            }
            libc::_exit(0);
        }
        let mut status = 0;
        libc::waitpid(server, &mut status, 0);
        libc::close(reaped_writer);
        // The orphan, adopted: our only child left.
        loop {
            let pid = libc::waitpid(-1, &mut status, 0);
            if pid > 0 {
                return if libc::WIFEXITED(status) {
                    libc::WEXITSTATUS(status)
                } else {
                    11
                };
            }
            if *libc::__errno_location() != libc::EINTR {
                return 12;
            }
        }
    }
}

/// A panic the target catches fails the test where it happens, as the
/// engines' panic hooks abort there: a hang that follows it is not a
/// timeout (AlephBFT's artifact was a panic or a timeout by the machine's
/// load, so its output depended on `-j`). The hang ends at the timeout;
/// the panic was noted long before it.
#[test]
fn a_hang_after_a_caught_panic_is_that_panic() {
    let options = PoolOptions {
        jobs: 1,
        timeout: Duration::from_secs(5),
        ..options()
    };
    let pool = WorkerPool::start(&binaries()["crashes"], options).unwrap();
    let outcome = pool.run(b"caught, then hang").unwrap();
    let panic = failure(&outcome);
    assert_eq!(panic.kind, FailureKind::Panic, "{panic:?}");
    assert_eq!(panic.message.as_deref(), Some("caught before a hang"));
    assert_eq!(pool.run(b"fine").unwrap(), Outcome::Passed);
}
