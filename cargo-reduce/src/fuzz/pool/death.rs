//! How the death of a test process becomes a [`Failure`]: why the parent
//! killed it (timeout, memory), the note the test left (a panic, a stack
//! overflow, the malloc limit), what it printed (a panic the recording
//! hook missed), or else its signal or exit status. The stack in the note
//! places the failure ([`Place`]).

use std::fmt;
use std::os::unix::process::ExitStatusExt;

use rustix::process::Signal;
use std::process::ExitStatus;
use std::time::Duration;

use super::call_path::Symbolizer;
use super::cpu_time::Silence;
use super::failure::{signal_name, split_location, Failure, FailureKind, OverflowDepth};
use super::place::Place;
use super::protocol::{
    split_panic_text, Note, NOTE_ALLOC_FAILED, NOTE_MALLOC_LIMIT, NOTE_PANIC, NOTE_SANITIZER,
    NOTE_SIGNAL, NOTE_STACK, NOTE_STACK_OVERFLOW, PANIC_ENDS_TEST,
};

/// Why the parent killed a worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KillReason {
    /// Its test ran past the timeout.
    Timeout(Duration),
    /// Its resident set grew past the limit (megabytes).
    Rss {
        /// Resident set when killed.
        rss_mb: u64,
        /// The limit.
        limit_mb: u64,
    },
    /// Its test could no longer change the round's answer.
    Stale,
    /// The pool is shutting down or giving up on it.
    Shutdown,
}

/// Why the parent has no stack of a test process it killed for its time
/// or memory: said in the failure's message (which no signature reads),
/// so that a timeout with no place names its cause where the failure is
/// shown whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NoStack {
    /// The signal asking for it could not be sent (this errno).
    NotSent(i32),
    /// The process gave no answer.
    NoAnswer(Silence),
    /// The process left a note of another kind (this one) instead.
    OtherNote(u32),
}

impl fmt::Display for NoStack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoStack::NotSent(errno) => write!(f, "the signal was not sent (errno {errno})"),
            NoStack::NoAnswer(silence) => silence.fmt(f),
            NoStack::OtherNote(kind) => write!(f, "a note of kind {kind} came instead"),
        }
    }
}

/// What the parent knows of a test process's death.
pub(crate) struct Postmortem<'a> {
    /// Why the parent killed it, if it did.
    pub reason: Option<KillReason>,
    /// Why its stack could not be taken, if it was asked for and was not.
    pub no_stack: Option<NoStack>,
    /// The note the test left.
    pub note: Option<&'a Note>,
    /// How it ended.
    pub status: ExitStatus,
    /// What it printed on stderr since the previous death.
    pub printed: &'a str,
}

/// The failure of the test a worker was running when it died, or `None` if
/// the death says nothing about that test (the parent killed it for a reason
/// unrelated to the input). A panic's call path is named by `symbols`. A
/// panic without a note (the target replaced the recording hook during the
/// test) is read from what the test printed.
pub(crate) fn classify_death(death: &Postmortem<'_>, symbols: &mut Symbolizer) -> Option<Failure> {
    let overflowed = death
        .note
        .is_some_and(|note| note.kind == NOTE_STACK_OVERFLOW);
    let panicked = death
        .note
        .is_some_and(|note| note.kind == NOTE_PANIC && note.arg == PANIC_ENDS_TEST);
    match death.reason {
        // The test overflowed its stack and lived on past the tripwire, or
        // went on after a panic it caught: a real stack, or the engine's
        // panic hook, would have ended it there, before the timeout or the
        // memory growth.
        Some(KillReason::Timeout(_) | KillReason::Rss { .. }) if overflowed || panicked => {}
        Some(KillReason::Stale | KillReason::Shutdown) => return None,
        Some(KillReason::Timeout(after)) => {
            let message = with_no_stack(format!("timeout after {after:?}"), death.no_stack);
            let failure = Failure::new(FailureKind::Timeout, message);
            return Some(placed_by(death.note, NOTE_STACK, None, failure, symbols));
        }
        Some(KillReason::Rss { rss_mb, limit_mb }) => {
            let message = format!("out-of-memory: rss {rss_mb} MB exceeds {limit_mb} MB");
            let failure = Failure::new(FailureKind::Oom, with_no_stack(message, death.no_stack));
            return Some(placed_by(death.note, NOTE_STACK, None, failure, symbols));
        }
        None => {}
    }
    // Rust aborts on an allocation failure it does not handle; after one
    // the target handled (`try_reserve`), any other death is its own.
    let aborted = death.status.signal() == Some(Signal::ABORT.as_raw());
    if let Some(failure) = death
        .note
        .filter(|note| note.kind != NOTE_ALLOC_FAILED || aborted)
        .and_then(|note| failure_from_note(note, Some(symbols)))
    {
        return Some(failure);
    }
    if let Some((location, message)) = printed_panic(death.printed) {
        return Some(Failure {
            kind: FailureKind::Panic,
            message: Some(message),
            location: Some(super::failure::portable_location(location)),
            call_path: Vec::new(),
            overflow_depth: None,
            alloc_request: None,
        });
    }
    Some(match (death.status.signal(), death.status.code()) {
        (Some(signal), _) => {
            let failure = Failure::new(
                FailureKind::Signal(signal),
                format!("killed by {}", signal_name(signal)),
            );
            placed_by(death.note, NOTE_SIGNAL, Some(signal), failure, symbols)
        }
        (None, Some(code)) => Failure::new(
            FailureKind::Exit(code),
            format!("exited with status {code}"),
        ),
        (None, None) => Failure::new(FailureKind::Exit(-1), "died"),
    })
}

/// `message`, and why the stack could not be taken if it could not.
fn with_no_stack(message: String, no_stack: Option<NoStack>) -> String {
    match no_stack {
        Some(why) => format!("{message} (no stack: {why})"),
        None => message,
    }
}

/// `failure` placed by the stack in `note` if the note is of `kind` (and
/// for `NOTE_SIGNAL`, of `signal`): the one the death left.
fn placed_by(
    note: Option<&Note>,
    kind: u32,
    signal: Option<i32>,
    failure: Failure,
    symbols: &mut Symbolizer,
) -> Failure {
    let place = match kind {
        NOTE_STACK => Place::Function,
        _ => Place::Line,
    };
    let same_signal = |note: &Note| signal.is_none_or(|s| note.arg == s as u64);
    match note {
        Some(note) if note.kind == kind && same_signal(note) => {
            failure.placed(place, &note.text, Some(symbols))
        }
        _ => failure,
    }
}

/// The last panic in `output`, a process's stderr, as (location, message),
/// in either format Rust prints: `thread 'main' panicked at src/a.rs:1:2:`
/// with the message on the next lines (Rust 1.73 on), or `thread 'main'
/// panicked at 'message', src/a.rs:1:2` (before).
pub(super) fn printed_panic(output: &str) -> Option<(String, String)> {
    const MARK: &str = "panicked at ";
    let at = output.rfind(MARK)?;
    let rest = &output[at + MARK.len()..];
    match rest.strip_prefix('\'') {
        Some(quoted) => {
            // The message may hold `', `: the location is what follows the
            // last one on the panic's final line.
            let line_end = quoted
                .find("\nnote: ")
                .or_else(|| quoted.rfind('\n'))
                .unwrap_or(quoted.len());
            let (message, location) = quoted[..line_end].rsplit_once("', ")?;
            split_location(location.trim_end())
                .is_some()
                .then(|| (location.trim_end().to_string(), message.to_string()))
        }
        None => {
            let (location, message) = rest.split_once(":\n")?;
            let end = ["\nnote: run with `RUST_BACKTRACE", "\nstack backtrace:"]
                .iter()
                .filter_map(|m| message.find(m))
                .min()
                .unwrap_or(message.len());
            split_location(location)
                .is_some()
                .then(|| (location.to_string(), message[..end].trim_end().to_string()))
        }
    }
}

/// The failure a worker reported in an event (`Event::Failed`, whose call
/// path `symbols` names, or `Event::InitFailed`): a note kind, its number
/// and its text.
pub(crate) fn reported_failure(
    kind: u32,
    arg: u64,
    text: &[u8],
    symbols: Option<&mut Symbolizer>,
) -> Failure {
    match kind {
        NOTE_STACK_OVERFLOW => stack_overflow(arg).placed(Place::Recursion, text, symbols),
        // A leak the test process found after a test (an ASan report ends it).
        NOTE_SANITIZER => sanitizer_failure(text, symbols),
        _ => Failure::from_panic_text(text, symbols),
    }
}

/// The failure a sanitizer's note describes (`panic_text`: the report as
/// the message, the stand-in's stack as the sanitizer reported as the
/// frames): LeakSanitizer's or AddressSanitizer's.
fn sanitizer_failure(note: &[u8], symbols: Option<&mut Symbolizer>) -> Failure {
    let note = split_panic_text(note);
    match super::leak_report::is_leak(&note.message) {
        true => super::leak_report::failure(&note.message, symbols),
        false => super::asan_report::failure(&note.message, &note.frames, symbols),
    }
}

/// A stack overflow whose note's number is `arg`.
fn stack_overflow(arg: u64) -> Failure {
    Failure {
        overflow_depth: OverflowDepth::of_note_arg(arg),
        ..Failure::new(FailureKind::StackOverflow, "stack overflow")
    }
}

fn failure_from_note(note: &Note, symbols: Option<&mut Symbolizer>) -> Option<Failure> {
    let failure = match note.kind {
        NOTE_PANIC => Failure::from_panic_text(&note.text, symbols),
        NOTE_SANITIZER => sanitizer_failure(&note.text, symbols),
        NOTE_STACK_OVERFLOW => {
            stack_overflow(note.arg).placed(Place::Recursion, &note.text, symbols)
        }
        NOTE_MALLOC_LIMIT => Failure {
            alloc_request: Some(note.arg),
            ..Failure::new(
                FailureKind::Oom,
                format!(
                    "out-of-memory: malloc({}) exceeds the malloc limit",
                    note.arg
                ),
            )
        }
        .placed(Place::Line, &note.text, symbols),
        NOTE_ALLOC_FAILED => Failure {
            alloc_request: Some(note.arg),
            ..Failure::new(
                FailureKind::Oom,
                format!("out-of-memory: allocation of {} bytes failed", note.arg),
            )
        }
        .placed(Place::Line, &note.text, symbols),
        _ => return None,
    };
    Some(failure)
}

#[cfg(test)]
mod tests {
    use super::super::protocol::panic_text;
    use super::*;
    use std::path::Path;

    fn dead(reason: Option<KillReason>, note: Option<&Note>, status: ExitStatus) -> Postmortem<'_> {
        Postmortem {
            reason,
            no_stack: None,
            note,
            status,
            printed: "",
        }
    }

    #[test]
    fn printed_panics_are_read_in_both_formats() {
        let new = "output\nthread 'main' panicked at src/a.rs:12:5:\nbad value: 'x', here\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";
        assert_eq!(
            printed_panic(new),
            Some(("src/a.rs:12:5".into(), "bad value: 'x', here".into()))
        );
        let old = "thread 'main' panicked at 'bad value: 'x', here', src/a.rs:12:5\nnote: run with `RUST_BACKTRACE=1`\n";
        assert_eq!(
            printed_panic(old),
            Some(("src/a.rs:12:5".into(), "bad value: 'x', here".into()))
        );
        assert_eq!(printed_panic("no panic here\n"), None);
        assert_eq!(printed_panic("panicked at nothing useful:\nx"), None);
        let two = format!("{old}{new}");
        assert_eq!(
            printed_panic(&two).unwrap().0,
            "src/a.rs:12:5",
            "the last one"
        );
    }

    #[test]
    fn a_printed_panic_explains_an_abort_without_a_note() {
        let mut symbols = Symbolizer::new(Path::new("/nonexistent"));
        let aborted = ExitStatus::from_raw(Signal::ABORT.as_raw());
        let printed = "thread 'main' panicked at src/a.rs:3:9:\nboom\n";
        let death = Postmortem {
            printed,
            ..dead(None, None, aborted)
        };
        let failure = classify_death(&death, &mut symbols).unwrap();
        assert_eq!(failure.kind, FailureKind::Panic);
        assert_eq!(failure.location.as_deref(), Some("src/a.rs:3:9"));
    }

    /// A test that overflowed and lived on past the tripwire would have
    /// died of the overflow first: its note wins over a later timeout or
    /// memory kill, not over a kill that says nothing about the test.
    #[test]
    fn an_overflow_note_wins_over_a_later_kill() {
        let mut symbols = Symbolizer::new(Path::new("/nonexistent"));
        let killed = ExitStatus::from_raw(Signal::KILL.as_raw());
        let overflow = Note {
            kind: NOTE_STACK_OVERFLOW,
            arg: 0x1000,
            text: Vec::new(),
        };
        let rss = KillReason::Rss {
            rss_mb: 600,
            limit_mb: 512,
        };
        for reason in [KillReason::Timeout(Duration::from_secs(1)), rss] {
            let death = dead(Some(reason), Some(&overflow), killed);
            let failure = classify_death(&death, &mut symbols).unwrap();
            assert_eq!(failure.kind, FailureKind::StackOverflow, "{reason:?}");
        }
        for reason in [KillReason::Stale, KillReason::Shutdown] {
            let death = dead(Some(reason), Some(&overflow), killed);
            assert_eq!(classify_death(&death, &mut symbols), None, "{reason:?}");
        }
    }

    /// After a panic the target caught, the engines' hook has already
    /// ended the process: a later timeout or memory kill is that panic
    /// (it made AlephBFT's artifact a panic or a timeout by the machine's
    /// load). Under `fuzz_nohook!` (no `PANIC_ENDS_TEST`) a caught panic
    /// does not fail, and the kill decides.
    #[test]
    fn a_panic_that_ends_its_test_wins_over_a_later_kill() {
        let mut symbols = Symbolizer::new(Path::new("/nonexistent"));
        let killed = ExitStatus::from_raw(Signal::KILL.as_raw());
        let note = |arg| Note {
            kind: NOTE_PANIC,
            arg,
            text: panic_text("src/a.rs:3:9", "caught", &[]),
        };
        let (ends, nohook) = (note(PANIC_ENDS_TEST), note(0));
        let rss = KillReason::Rss {
            rss_mb: 600,
            limit_mb: 512,
        };
        for reason in [KillReason::Timeout(Duration::from_secs(1)), rss] {
            let failure = classify_death(&dead(Some(reason), Some(&ends), killed), &mut symbols);
            let failure = failure.unwrap();
            assert_eq!(failure.kind, FailureKind::Panic, "{reason:?}");
            assert_eq!(failure.location.as_deref(), Some("src/a.rs:3:9"));
            let failure = classify_death(&dead(Some(reason), Some(&nohook), killed), &mut symbols);
            assert_ne!(failure.unwrap().kind, FailureKind::Panic, "{reason:?}");
        }
        let stale = dead(Some(KillReason::Stale), Some(&ends), killed);
        assert_eq!(classify_death(&stale, &mut symbols), None);
    }

    #[test]
    fn parent_kill_reasons_win_over_the_signal() {
        let mut symbols = Symbolizer::new(Path::new("/nonexistent"));
        let killed = ExitStatus::from_raw(Signal::KILL.as_raw());
        let timeout = classify_death(
            &dead(
                Some(KillReason::Timeout(Duration::from_secs(1))),
                None,
                killed,
            ),
            &mut symbols,
        );
        assert_eq!(timeout.map(|f| f.kind), Some(FailureKind::Timeout));
        assert_eq!(
            classify_death(&dead(Some(KillReason::Stale), None, killed), &mut symbols),
            None
        );
        let plain = classify_death(&dead(None, None, killed), &mut symbols).map(|f| f.kind);
        assert_eq!(plain, Some(FailureKind::Signal(Signal::KILL.as_raw())));
    }

    /// A kill whose stack could not be taken says why in its message, which
    /// no signature of a timeout or memory kill reads: the same failure.
    #[test]
    fn a_lost_stack_says_why_and_changes_no_signature() {
        let mut symbols = Symbolizer::new(Path::new("/nonexistent"));
        let killed = ExitStatus::from_raw(Signal::KILL.as_raw());
        let silence = Silence {
            waited: Duration::from_millis(10_200),
            ran: Some(Duration::ZERO),
            runnable: true,
        };
        let rss = KillReason::Rss {
            rss_mb: 600,
            limit_mb: 512,
        };
        for reason in [KillReason::Timeout(Duration::from_secs(1)), rss] {
            let plain = classify_death(&dead(Some(reason), None, killed), &mut symbols).unwrap();
            let lost = Postmortem {
                no_stack: Some(NoStack::NoAnswer(silence)),
                ..dead(Some(reason), None, killed)
            };
            let lost = classify_death(&lost, &mut symbols).unwrap();
            let message = lost.message.clone().unwrap();
            assert!(
                message.ends_with("(no stack: no answer in 10.2 s, 0 ms of CPU since, runnable)"),
                "{message}"
            );
            assert_eq!(lost.signature(), plain.signature());
        }
    }

    #[test]
    fn notes_explain_signals() {
        let mut symbols = Symbolizer::new(Path::new("/nonexistent"));
        let aborted = ExitStatus::from_raw(Signal::ABORT.as_raw());
        let note = Note {
            kind: NOTE_MALLOC_LIMIT,
            arg: 1 << 32,
            text: Vec::new(),
        };
        let failure = classify_death(&dead(None, Some(&note), aborted), &mut symbols).unwrap();
        assert_eq!(failure.kind, FailureKind::Oom);
        let exited = ExitStatus::from_raw(7 << 8);
        assert_eq!(
            classify_death(&dead(None, None, exited), &mut symbols)
                .unwrap()
                .kind,
            FailureKind::Exit(7)
        );
    }

    /// A failed allocation ends the process with an abort; a death of
    /// anything else after one the target handled is that death.
    #[test]
    fn a_handled_allocation_failure_is_not_out_of_memory() {
        let mut symbols = Symbolizer::new(Path::new("/nonexistent"));
        let note = Note {
            kind: NOTE_ALLOC_FAILED,
            arg: 1 << 40,
            text: Vec::new(),
        };
        let mut kind = |status: ExitStatus| {
            let death = dead(None, Some(&note), status);
            classify_death(&death, &mut symbols).unwrap().kind
        };
        let abort = Signal::ABORT.as_raw();
        assert_eq!(kind(ExitStatus::from_raw(abort)), FailureKind::Oom);
        let segv = Signal::SEGV.as_raw();
        assert_eq!(kind(ExitStatus::from_raw(segv)), FailureKind::Signal(segv));
    }
}
