//! What a failing test did ([`Failure`]) and the [`Signature`] that tells
//! whether two failures are the same bug: one definition for reduction,
//! grouping and reports. How a death becomes a failure is [`super::death`].

use std::fmt;
use std::path::Path;

use rustix::process::Signal;

use crate::spans::blank_spans;

use super::asan_bug::AsanBug;
use super::call_path::{package_relative, Symbolizer};
use super::location::short_location;
use super::protocol::{
    split_panic_text, OVERFLOW_NEAR_LIMIT, OVERFLOW_PAST_MARGIN, OVERFLOW_PAST_SLACK,
};

/// How a test failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum FailureKind {
    /// The target panicked (any panic, even one it caught: libfuzzer-sys
    /// aborts on every panic).
    Panic,
    /// The test thread overflowed its stack.
    StackOverflow,
    /// Out of memory: the RSS limit, the malloc limit, or a failed allocation.
    Oom,
    /// The test ran longer than the pool's timeout.
    Timeout,
    /// The process died of this signal (abort, segfault, ...).
    Signal(i32),
    /// The target exited the process with this status.
    Exit(i32),
    /// AddressSanitizer reported this bug (stand-ins built with ASan).
    Sanitizer(AsanBug),
}

/// A failing test's outcome.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Failure {
    /// How it failed.
    pub kind: FailureKind,
    /// The panic message, or a description of the crash.
    pub message: Option<String>,
    /// Where it failed: where it panicked (`file:line:column`), or for
    /// the other kinds as `pool/place.rs` says.
    pub location: Option<String>,
    /// The top functions of the user's code on the stack, innermost first
    /// (see `pool/call_path.rs`).
    pub call_path: Vec<String>,
    /// A stack overflow's depth past the limit, where the tripwire saw it;
    /// `None` for the other kinds. Not part of the [`Signature`]: the
    /// oracle keeps a reduction as deep (see [`OverflowDepth`]).
    pub overflow_depth: Option<OverflowDepth>,
    /// The bytes an out-of-memory asked for at once (the malloc limit's,
    /// a failed allocation's); `None` for the other kinds and the RSS
    /// limit. Not part of the [`Signature`]: the oracle keeps a
    /// reduction's request no larger ([`keeps_request`]).
    pub alloc_request: Option<u64>,
}

/// Whether an allocation failure that asked for `actual` bytes stays the
/// bug of one that asked for `expected`: no larger a request. On `cargo
/// fuzz`'s ASan build a larger one may be another bug (ASan's own
/// out-of-memory past the machine's memory, allocation-size-too-big past
/// 1 TiB), which the uninstrumented build cannot tell from libFuzzer's
/// limit; the original's request failed the campaign's way.
pub(crate) fn keeps_request(expected: Option<u64>, actual: Option<u64>) -> bool {
    match (expected, actual) {
        (Some(expected), Some(actual)) => actual <= expected,
        _ => true,
    }
}

/// How far past the stack limit a stack overflow went, as the harness's
/// tripwire tells it (`harness/src/stack.rs`). The real program's limit is
/// not one depth (the kernel starts its main thread's stack at a random
/// offset; its frames differ a little from the stand-in build's), so an
/// artifact found well past it is reduced to an input that is still well
/// past it, rather than to one at the edge that overflows on some runs
/// only; one found near the limit (an input at the threshold) stays
/// reducible there. `ci`'s replay cache keeps it by these names.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum OverflowDepth {
    /// Less than `OVERFLOW_SLACK` past the limit.
    NearTheLimit,
    /// `OVERFLOW_SLACK` or more past it.
    WellPast,
}

impl OverflowDepth {
    /// The depth a stack-overflow note's `arg` gives (`OVERFLOW_*`);
    /// `None` for an overflow on a stack whose limit is not known.
    pub(crate) fn of_note_arg(arg: u64) -> Option<Self> {
        match arg {
            OVERFLOW_NEAR_LIMIT => Some(OverflowDepth::NearTheLimit),
            OVERFLOW_PAST_SLACK | OVERFLOW_PAST_MARGIN => Some(OverflowDepth::WellPast),
            _ => None,
        }
    }

    /// Whether an overflow of depth `actual` is as deep as one of
    /// `expected` must stay: well past the limit when that was.
    pub(crate) fn keeps(expected: Option<Self>, actual: Option<Self>) -> bool {
        expected != Some(OverflowDepth::WellPast) || actual == Some(OverflowDepth::WellPast)
    }
}

/// What makes two failures "the same bug": the kind, the location (the
/// panic's or fault's line, the function a test was killed in, the
/// functions of a recursion: see `pool/place.rs`), the call path in the
/// user's code, and a panic's message with numbers, hex addresses and
/// quoted input blanked out (an index or a pointer in the message changes
/// as the input shrinks). How much of it must match is the caller's
/// choice (`MatchLevel`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Signature {
    /// How it failed.
    pub kind: FailureKind,
    /// Where it failed, as is.
    pub location: Option<String>,
    /// The top functions of the user's code, innermost first.
    pub call_path: Vec<String>,
    /// Panic message, normalized by [`normalize_message`].
    pub message: Option<String>,
}

impl FailureKind {
    /// Whether it is LeakSanitizer's memory leak.
    pub(crate) fn is_leak(self) -> bool {
        self == FailureKind::Sanitizer(AsanBug::LEAK)
    }

    /// The kind as reports and the regression ledger write it: `panic`,
    /// `stack-overflow`, `out-of-memory`, `timeout`, `signal-<n>`,
    /// `exit-<n>`, `asan-<bug type>`; [`FailureKind::from_tag`] reads it
    /// back.
    pub(crate) fn tag(self) -> String {
        match self {
            FailureKind::Panic => "panic".into(),
            FailureKind::StackOverflow => "stack-overflow".into(),
            FailureKind::Oom => "out-of-memory".into(),
            FailureKind::Timeout => "timeout".into(),
            FailureKind::Signal(n) => format!("signal-{n}"),
            FailureKind::Exit(n) => format!("exit-{n}"),
            FailureKind::Sanitizer(bug) => format!("asan-{}", bug.name()),
        }
    }

    /// The kind a [`tag`](FailureKind::tag) names.
    pub(crate) fn from_tag(tag: &str) -> Option<FailureKind> {
        let number = |prefix: &str| tag.strip_prefix(prefix)?.parse().ok();
        match tag {
            "panic" => Some(FailureKind::Panic),
            "stack-overflow" => Some(FailureKind::StackOverflow),
            "out-of-memory" => Some(FailureKind::Oom),
            "timeout" => Some(FailureKind::Timeout),
            _ => number("signal-")
                .map(FailureKind::Signal)
                .or_else(|| number("exit-").map(FailureKind::Exit))
                .or_else(|| {
                    let bug = AsanBug::from_name(tag.strip_prefix("asan-")?)?;
                    Some(FailureKind::Sanitizer(bug))
                }),
        }
    }
}

impl Failure {
    /// A failure of `kind` described by `message` (no location).
    pub(crate) fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        Failure {
            kind,
            message: Some(message.into()),
            location: None,
            call_path: Vec::new(),
            overflow_depth: None,
            alloc_request: None,
        }
    }

    /// A panic from its `panic_text`; its return addresses are named by
    /// `symbols` (without one, the call path stays empty). A panic inside
    /// the standard library (a `Vec`'s "capacity overflow") is placed at
    /// the line of the user's code that called into it, as an allocation
    /// failure is: the library's line is every such panic's, and no
    /// annotation can point at it.
    pub(crate) fn from_panic_text(text: &[u8], symbols: Option<&mut Symbolizer>) -> Self {
        let panic = split_panic_text(text);
        let (mut location, mut call_path) = (None, Vec::new());
        if let Some(symbols) = symbols {
            if panic.location.starts_with("/rustc/") {
                location = symbols.location(&panic.frames);
            }
            call_path = symbols.call_path(&panic.frames);
        }
        let own = (!panic.location.is_empty()).then(|| portable_location(panic.location));
        Failure {
            kind: FailureKind::Panic,
            message: Some(panic.message),
            location: location.or(own),
            call_path,
            overflow_depth: None,
            alloc_request: None,
        }
    }

    /// This failure's signature.
    pub(crate) fn signature(&self) -> Signature {
        self.signature_in(MessageForm::CURRENT)
    }

    /// Its signature with the panic message normalized in `form` (a
    /// ledger entry's recorded one may be an earlier form).
    pub(crate) fn signature_in(&self, form: MessageForm) -> Signature {
        let message = match self.kind {
            FailureKind::Panic => self.message.as_deref().map(|m| normalize_message(m, form)),
            // The access (`READ 4`): its size is kept.
            FailureKind::Sanitizer(_) => self.message.clone(),
            _ => None,
        };
        Signature {
            kind: self.kind,
            location: self.location.clone(),
            call_path: self.call_path.clone(),
            message,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let FailureKind::Sanitizer(_) = self.kind {
            return write!(f, "AddressSanitizer: {}", self.signature());
        }
        let panic = self.kind == FailureKind::Panic;
        match (&self.location, &self.message) {
            (Some(location), Some(message)) if panic => {
                write!(f, "panicked at {location}: {message}")
            }
            (Some(location), Some(message)) => write!(f, "{message} at {location}"),
            (None, Some(message)) => f.write_str(message),
            (_, None) => write!(f, "{:?}", self.kind),
        }
    }
}

impl Signature {
    /// Whether this is a timeout whose stack could not be taken (the test
    /// did not answer the request for it in time): it says nothing of
    /// where the test looped, so any timeout may be the same failure.
    pub(crate) fn is_unplaced_timeout(&self) -> bool {
        self.kind == FailureKind::Timeout && self.location.is_none() && self.call_path.is_empty()
    }

    /// The signature with the panic's line and column left out (its file
    /// kept): what stays when lines are added above the panic.
    pub(crate) fn unmoored(&self) -> Signature {
        let file = |location: &String| match split_location(location) {
            Some((file, _, _)) => file.to_string(),
            None => location.clone(),
        };
        Signature {
            location: self.location.as_ref().map(file),
            ..self.clone()
        }
    }

    /// A short id of this signature (8 hex digits), the same on every
    /// machine and build: it hashes what [`Display`](fmt::Display) shows,
    /// where locations in dependencies are read from the crate on.
    pub(crate) fn id(&self) -> String {
        let hash = xxhash_rust::xxh3::xxh3_64(self.to_string().as_bytes());
        format!("{:08x}", hash >> 32)
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            FailureKind::Panic => {
                write!(
                    f,
                    "panic at {}",
                    self.location.as_deref().map_or("?", short_location)
                )?;
                if let Some(message) = &self.message {
                    write!(f, ": {message}")?;
                }
                if !self.call_path.is_empty() {
                    write!(f, " (in {})", self.call_path.join(" ← "))?;
                }
                return Ok(());
            }
            FailureKind::StackOverflow => f.write_str("stack overflow")?,
            FailureKind::Oom => f.write_str("out of memory")?,
            FailureKind::Timeout => f.write_str("timeout")?,
            FailureKind::Signal(signal) => write!(f, "signal {}", signal_name(signal))?,
            FailureKind::Exit(code) => return write!(f, "exit status {code}"),
            FailureKind::Sanitizer(bug) => {
                f.write_str(bug.name())?;
                if let Some(access) = &self.message {
                    write!(f, " {access}")?;
                }
            }
        }
        self.write_place(f)
    }
}

impl Signature {
    /// ` at <location> (in <call path>)` of a failure other than a panic,
    /// each part if known: a signature without them (from before
    /// cargo-reduce placed these kinds) keeps its old id.
    fn write_place(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(location) = &self.location {
            write!(f, " at {}", short_location(location))?;
        }
        if !self.call_path.is_empty() {
            write!(f, " (in {})", self.call_path.join(" ← "))?;
        }
        Ok(())
    }
}

/// A panic's `file:line:col` as every checkout names it: rustc names the
/// files of a path dependency outside the fuzz crate's workspace (the
/// library a standalone `fuzz/` workspace tests) by their absolute path,
/// which another checkout or CI runner changes; such a file is named
/// relative to its package, as the debug information's locations are
/// ([`package_relative`]).
pub(crate) fn portable_location(location: String) -> String {
    match split_location(&location) {
        Some((file, line, column)) if Path::new(file).is_absolute() => {
            format!("{}:{line}:{column}", package_relative(Path::new(file)))
        }
        _ => location,
    }
}

/// A panic location's `(file, line, column)`, if it is `file:line:col`.
pub(crate) fn split_location(location: &str) -> Option<(&str, u32, u32)> {
    let number = |part: &str| {
        let digits = !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
        digits.then(|| part.parse().ok()).flatten()
    };
    let mut parts = location.rsplitn(3, ':');
    let column = number(parts.next()?)?;
    let line = number(parts.next()?)?;
    let file = parts.next().filter(|f| !f.is_empty())?;
    Some((file, line, column))
}

/// How a recorded panic message was normalized ([`normalize_message`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum MessageForm {
    /// Every run of digits blanked, those of names too (`Ipv4` → `Ipv_`):
    /// ledger entries filed before [`MessageForm::KeepNames`].
    BlankAllDigits = 1,
    /// The digits of a name (`Ipv4`, `u8`, `x86_64`) kept: they say what
    /// failed, not a value that changes as the input shrinks.
    KeepNames = 2,
    /// The standard library's assertion quoted as such (`` assertion
    /// `left == right` failed ``): code, not input.
    KeepAssertions = 3,
    /// The string a string-slicing panic quotes blanked whole, to the
    /// message's last backquote: the input it echoes has backquotes of its
    /// own (pulldown-cmark's Markdown), which ended the quote early.
    WholeSlicedString = 4,
}

impl MessageForm {
    /// The form this cargo-reduce writes.
    pub(crate) const CURRENT: MessageForm = MessageForm::WholeSlicedString;

    /// The form numbered `n` in a ledger sidecar.
    pub(crate) fn from_number(n: u32) -> Option<MessageForm> {
        match n {
            1 => Some(MessageForm::BlankAllDigits),
            2 => Some(MessageForm::KeepNames),
            3 => Some(MessageForm::KeepAssertions),
            4 => Some(MessageForm::WholeSlicedString),
            _ => None,
        }
    }
}

/// Replaces hex numbers (`0x...`) by `0x_`, decimal numbers by `_`, the
/// source places and file paths a message prints by `_` (a `Location`,
/// `file!()`, a temporary file's path: they name where the code or the
/// run was, which another checkout, build directory or run changes; see
/// [`blank_spans`]), and the parts of the input that panic messages
/// quote: a string in backquotes (`` of `abc` ``, as the standard
/// library's string-slicing panics quote the whole string) and a single
/// quoted character (`'é'`) become `` `_` `` and `'_'`. So a message that
/// echoes the input does not keep the input from shrinking; the location
/// still pins the bug.
/// Digits inside a name are kept from `form` [`MessageForm::KeepNames`]
/// on, the assertions of `assert_eq!`, `assert_ne!` and `assert_matches!`
/// from [`MessageForm::KeepAssertions`] on; a sliced string is blanked
/// whole from [`MessageForm::WholeSlicedString`] on.
pub(crate) fn normalize_message(message: &str, form: MessageForm) -> String {
    let message = blank_spans(message, "_");
    let mut out = String::with_capacity(message.len());
    let mut chars = message.chars().peekable();
    // Whether the last character read continues a name.
    let mut in_name = false;
    while let Some(c) = chars.next() {
        if in_name && form >= MessageForm::KeepNames && c.is_ascii_digit() {
            out.push(c);
            continue;
        }
        in_name = c.is_alphanumeric() || c == '_';
        if c == '`' && chars.clone().any(|c| c == '`') {
            let sliced = form >= MessageForm::WholeSlicedString
                && SLICED_STRING.iter().any(|before| out.ends_with(before));
            let quoted = quoted_text(&mut chars, sliced);
            chars.next();
            let kept = form >= MessageForm::KeepAssertions
                && out.ends_with("assertion ")
                && ASSERTIONS.contains(&quoted.as_str());
            out.push('`');
            out.push_str(if kept { &quoted } else { "_" });
            out.push('`');
        } else if c == '\'' && quoted_char(chars.clone()) {
            chars.next();
            chars.next();
            out.push_str("'_'");
        } else if c == '0' && matches!(chars.peek(), Some('x' | 'X')) {
            chars.next();
            while chars.next_if(char::is_ascii_hexdigit).is_some() {}
            out.push_str("0x_");
        } else if c.is_ascii_digit() {
            while chars.next_if(char::is_ascii_digit).is_some() {}
            out.push('_');
        } else {
            out.push(c);
        }
    }
    out
}

/// What the standard library's assertion macros quote after `assertion `
/// (Rust 1.73 on): the macro's comparison, never the input.
const ASSERTIONS: [&str; 3] = ["left == right", "left != right", "left matches right"];

/// What the standard library's string-slicing panics say before the
/// string they quote (`` byte index 9 is out of bounds of `…` ``,
/// `` begin <= end (4 <= 3) when slicing `…` ``).
const SLICED_STRING: [&str; 2] = [" of ", " slicing "];

/// The text `chars` quotes up to its closing backquote (not read): the
/// next one, or the last of the message for a sliced string, which is the
/// input and may hold backquotes of its own.
fn quoted_text(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, sliced: bool) -> String {
    if !sliced {
        return std::iter::from_fn(|| chars.next_if(|&c| c != '`')).collect();
    }
    let rest: String = chars.clone().collect();
    let end = rest.rfind('`').unwrap_or(0);
    chars.by_ref().take(rest[..end].chars().count()).collect()
}

/// Whether `rest` (after a `'`) is one character and a closing `'`.
fn quoted_char(mut rest: impl Iterator<Item = char>) -> bool {
    rest.next().is_some_and(|c| c != '\'') && rest.next() == Some('\'')
}

/// The signals a failure names: how fuzz targets die.
const SIGNAL_NAMES: [(Signal, &str); 9] = [
    (Signal::ABORT, "SIGABRT"),
    (Signal::BUS, "SIGBUS"),
    (Signal::FPE, "SIGFPE"),
    (Signal::ILL, "SIGILL"),
    (Signal::KILL, "SIGKILL"),
    (Signal::SEGV, "SIGSEGV"),
    (Signal::TRAP, "SIGTRAP"),
    (Signal::PIPE, "SIGPIPE"),
    (Signal::TERM, "SIGTERM"),
];

/// `SIGSEGV` for 11, and so on; the number for signals without a name here.
pub(super) fn signal_name(signal: i32) -> String {
    match SIGNAL_NAMES.iter().find(|(s, _)| s.as_raw() == signal) {
        Some((_, name)) => name.to_string(),
        None => format!("signal {signal}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An allocation failure stays the same bug at no larger a request;
    /// a failure without one (the RSS limit's) is not held to it.
    #[test]
    fn an_allocation_failure_keeps_its_request_no_larger() {
        assert!(keeps_request(Some(3 << 30), Some(2 << 30)));
        assert!(keeps_request(Some(3 << 30), Some(3 << 30)));
        assert!(!keeps_request(Some(3 << 30), Some(2 << 40)));
        assert!(keeps_request(Some(3 << 30), None));
        assert!(keeps_request(None, Some(2 << 40)));
    }
    use crate::fuzz::pool::protocol::panic_text;

    fn normalized(message: &str) -> String {
        normalize_message(message, MessageForm::CURRENT)
    }

    /// A path dependency's file is named by its package, whatever the
    /// checkout; a dependency's and a relative one stay as they are.
    #[test]
    fn panic_locations_do_not_name_the_checkout() {
        let dir = tempfile::tempdir().unwrap();
        let library = dir.path().join("checkout/mylib");
        std::fs::create_dir_all(library.join("src")).unwrap();
        std::fs::write(library.join("Cargo.toml"), "").unwrap();
        std::fs::write(library.join("src/parse.rs"), "").unwrap();
        let absolute = format!("{}:197:37", library.join("src/parse.rs").display());
        assert_eq!(portable_location(absolute), "src/parse.rs:197:37");
        for kept in [
            "fuzz_targets/a.rs:3:5",
            "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/x-1.0.0/src/lib.rs:1:2",
        ] {
            assert_eq!(portable_location(kept.to_string()), kept);
        }
    }

    /// The digits of a name say what failed: kept (an entry filed before
    /// blanked them, and is still read that way).
    #[test]
    fn digits_in_names_are_kept() {
        let message = "unexpected Ipv4(127.0.0.1) in u8 field x86_64 at 0x7f, len 12";
        assert_eq!(
            normalized(message),
            "unexpected Ipv4(_._._._) in u8 field x86_64 at 0x_, len _"
        );
        assert_eq!(
            normalize_message(message, MessageForm::BlankAllDigits),
            "unexpected Ipv_(_._._._) in u_ field x___ at 0x_, len _"
        );
    }

    /// `assert_eq!` quotes its comparison, not the input: kept (an entry
    /// filed before blanked it, and is still read that way).
    #[test]
    fn assertions_are_kept() {
        let message = "assertion `left == right` failed: header `abc`";
        assert_eq!(
            normalized(message),
            "assertion `left == right` failed: header `_`"
        );
        assert_eq!(
            normalize_message(message, MessageForm::KeepNames),
            "assertion `_` failed: header `_`"
        );
        assert_eq!(
            normalized("assertion `x == y` failed; assertion `left != right` failed"),
            "assertion `_` failed; assertion `left != right` failed",
            "only the standard library's comparisons"
        );
        assert_eq!(normalized("header `left == right`"), "header `_`");
    }

    /// String slicing panics quote the string and the character cut;
    /// with them blanked, a shorter input fails the same way.
    #[test]
    fn quoted_input_is_blanked() {
        let message =
            "byte index 5 is not a char boundary; it is inside 'ൟ' (bytes 4..7) of `ThU, 0൞`";
        assert_eq!(
            normalized(message),
            "byte index _ is not a char boundary; it is inside '_' (bytes _.._) of `_`"
        );
        assert_eq!(
            normalized("can't parse 'x' or `unclosed"),
            "can't parse '_' or `unclosed",
            "an apostrophe and a lone backquote stay"
        );
    }

    /// A string-slicing panic quotes the input, which may hold backquotes
    /// and line breaks (helper-57 on pulldown-cmark: one bug was three
    /// failures under `--match message`, each keeping its text).
    #[test]
    fn a_sliced_string_is_blanked_whole() {
        let slicing = |s: &str| format!("begin > end (5 > 4) when slicing `{s}`");
        let blanked = "begin > end (_ > _) when slicing `_`";
        for text in ["<!--```\r`", "<p\t`\0w\n:\rJ", "<!--\r", "a`b\n`c"] {
            assert_eq!(normalized(&slicing(text)), blanked, "{text}");
        }
        assert_eq!(
            normalized("byte index 9 is out of bounds of `a`b``[...]"),
            "byte index _ is out of bounds of `_`[...]"
        );
        assert_eq!(
            normalize_message(&slicing("a`b"), MessageForm::KeepAssertions),
            "begin > end (_ > _) when slicing `_`b`",
            "an earlier form's ledger entries keep their signatures"
        );
        assert_eq!(normalized("`a` and `b`"), "`_` and `_`");
    }

    /// A panic that prints where the code or the run was (`file!()`, a
    /// `Location`, a temporary file) is the same failure from another
    /// checkout, build directory or run: the place does not count.
    #[test]
    fn paths_and_places_in_a_message_are_blanked() {
        let here = "bad header at /home/u/proj/fuzz/fuzz_targets/parse.rs:12:9 in /tmp/.tmpAb12Cd/input.toml";
        let there =
            "bad header at /work/ci/fuzz/fuzz_targets/parse.rs:14:9 in /tmp/.tmpZZ9/input.toml";
        assert_eq!(normalized(here), "bad header at _ in _");
        assert_eq!(normalized(here), normalized(there));
        assert_eq!(
            normalized(
                r#"at Location { file: "src/lib.rs", line: 10, column: 5 } in {closure@fuzz_targets/x.rs:3:9: 3:12}"#
            ),
            r#"at Location { file: "_", line: _, column: _ } in {closure@_}"#
        );
        assert_ne!(
            normalized("bad header at src/a.rs:1:2"),
            normalized("bad footer at src/a.rs:1:2"),
            "the message's words still count"
        );
    }

    #[test]
    fn normalizes_numbers_and_addresses() {
        let message = "index out of bounds: the len is 3 but the index is 17 at 0x7ffdA0";
        assert_eq!(
            normalized(message),
            "index out of bounds: the len is _ but the index is _ at 0x_"
        );
    }

    #[test]
    fn panic_signature_keeps_location_and_blanks_values() {
        let panic = |location, message| {
            Failure::from_panic_text(&panic_text(location, message, &[0x1234]), None)
        };
        let one = panic("src/a.rs:3:5", "bad 12");
        let two = panic("src/a.rs:3:5", "bad 999");
        let elsewhere = panic("src/a.rs:4:5", "bad 12");
        assert_eq!(one.signature(), two.signature());
        assert_ne!(one.signature(), elsewhere.signature());
        assert_eq!(one.signature().to_string(), "panic at src/a.rs:3:5: bad _");
    }

    #[test]
    fn panic_text_round_trips() {
        let text = panic_text("src/a.rs:3:5", "bad\0 12", &[1, u64::MAX]);
        let panic = split_panic_text(&text);
        assert_eq!(panic.location, "src/a.rs:3:5");
        assert_eq!(panic.message, "bad\0 12", "a NUL in the message stays");
        assert_eq!(panic.frames, [1, u64::MAX]);
        let cut = split_panic_text(&text[..5]);
        assert_eq!((cut.frames.len(), cut.location.as_str()), (0, ""));
    }

    #[test]
    fn ids_are_short_and_follow_the_signature() {
        let failure = |call_path: &[&str]| Failure {
            kind: FailureKind::Panic,
            message: Some("bad 1".into()),
            location: Some("src/a.rs:3:5".into()),
            call_path: call_path.iter().map(|s| s.to_string()).collect(),
            overflow_depth: None,
            alloc_request: None,
        };
        let a = failure(&["demo::helper", "demo::header"]).signature();
        let b = failure(&["demo::helper", "demo::body"]).signature();
        assert_eq!(
            a.to_string(),
            "panic at src/a.rs:3:5: bad _ (in demo::helper ← demo::header)"
        );
        assert_eq!(a.id().len(), 8);
        assert_eq!(a.id(), a.clone().id());
        assert_ne!(a.id(), b.id());
    }

    #[test]
    fn locations_split_into_file_line_and_column() {
        assert_eq!(split_location("src/a.rs:12:5"), Some(("src/a.rs", 12, 5)));
        assert_eq!(split_location("C:/a.rs:1:2"), Some(("C:/a.rs", 1, 2)));
        for bad in [
            "src/a.rs:12",
            "src/a.rs:x:5",
            ":1:2",
            "a.rs:+1:2",
            "a.rs::2",
        ] {
            assert_eq!(split_location(bad), None, "{bad}");
        }
    }

    #[test]
    fn unmoored_signatures_keep_the_file_not_the_line() {
        let at = |location: &str| {
            Failure {
                kind: FailureKind::Panic,
                message: Some("bad".into()),
                location: Some(location.into()),
                call_path: vec!["demo::f".into()],
                overflow_depth: None,
                alloc_request: None,
            }
            .signature()
        };
        let (here, moved) = (at("src/a.rs:3:5"), at("src/a.rs:9:5"));
        assert_ne!(here.id(), moved.id());
        assert_eq!(here.unmoored().id(), moved.unmoored().id());
        assert_ne!(here.unmoored().id(), at("src/b.rs:3:5").unmoored().id());
        assert_eq!(here.unmoored().location.as_deref(), Some("src/a.rs"));
    }

    #[test]
    fn kind_tags_read_back() {
        for kind in [
            FailureKind::Panic,
            FailureKind::StackOverflow,
            FailureKind::Oom,
            FailureKind::Timeout,
            FailureKind::Signal(6),
            FailureKind::Exit(7),
            FailureKind::Sanitizer(AsanBug::from_name("heap-use-after-free").unwrap()),
        ] {
            assert_eq!(FailureKind::from_tag(&kind.tag()), Some(kind));
        }
        assert_eq!(FailureKind::from_tag("signal-x"), None);
    }

    /// Two ASan bugs differ by kind, so at every match level; the access
    /// is compared with the message.
    #[test]
    fn asan_signatures_keep_bug_access_and_frames() {
        let asan = |bug: &str, access: &str| Failure {
            kind: FailureKind::Sanitizer(AsanBug::from_name(bug).unwrap()),
            message: Some(access.into()),
            location: Some("fuzz_targets/x.rs:10:5".into()),
            call_path: vec!["x::f".into(), "x::g".into()],
            overflow_depth: None,
            alloc_request: None,
        };
        let read = asan("heap-buffer-overflow", "READ 4").signature();
        assert_eq!(
            read.to_string(),
            "heap-buffer-overflow READ 4 at fuzz_targets/x.rs:10:5 (in x::f ← x::g)"
        );
        let uaf = asan("heap-use-after-free", "READ 4").signature();
        assert_ne!(read.kind, uaf.kind);
        assert_ne!(read, asan("heap-buffer-overflow", "READ 8").signature());
        assert!(asan("double-free", "")
            .to_string()
            .starts_with("AddressSanitizer: double-free"));
    }

    #[test]
    fn crash_signature_ignores_message() {
        let a = Failure::new(FailureKind::Oom, "rss 3000 MB");
        let b = Failure::new(FailureKind::Oom, "malloc(5)");
        assert_eq!(a.signature(), b.signature());
    }
}
