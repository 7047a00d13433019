//! A LeakSanitizer report as a [`Failure`] (`memory-leak`): where the
//! leaked memory was allocated in the user's code is the failure's
//! location, and the top user frames of that allocation's stack its call
//! path. The stand-in's `leaks` module hands the report over as a note.
//!
//! A report lists each leaked allocation site in its own record (`Direct
//! leak of 8 byte(s) in 1 object(s) allocated from:` and its stack),
//! ordered by size. A reduction changes the sizes, so the signature comes
//! from a record chosen by what it is, not by its rank: a direct leak (the
//! memory nothing points to; an indirect one is only reached from it) over
//! an indirect one, then the least `(location, call path)`.

use super::asan_bug::AsanBug;
use super::asan_report::frame_offset;
use super::call_path::Symbolizer;
use super::failure::{Failure, FailureKind};

/// Whether `text` is a LeakSanitizer report.
pub(super) fn is_leak(text: &str) -> bool {
    text.contains("ERROR: LeakSanitizer:")
}

/// One leaked allocation site of a report.
#[derive(Debug, PartialEq, Eq)]
struct Record {
    /// `Direct leak` rather than `Indirect leak`.
    direct: bool,
    /// Offsets into the binary of its allocation stack, innermost first.
    frames: Vec<u64>,
}

/// The failure the LeakSanitizer report `text` describes; frames in
/// `symbols`' binary are named by it.
pub(super) fn failure(text: &str, symbols: Option<&mut Symbolizer>) -> Failure {
    let binary = symbols
        .as_ref()
        .and_then(|s| s.binary().file_name())
        .map(|n| n.to_string_lossy().into_owned());
    let records = records(text, binary.as_deref());
    let (location, call_path) = match symbols {
        Some(symbols) => chosen(&records, symbols),
        None => (None, Vec::new()),
    };
    Failure {
        kind: FailureKind::Sanitizer(AsanBug::LEAK),
        message: None,
        location,
        call_path,
        overflow_depth: None,
        alloc_request: None,
    }
}

/// The records of `text`, in its order; frames count as in
/// [`frame_offset`].
fn records(text: &str, binary: Option<&str>) -> Vec<Record> {
    let mut records: Vec<Record> = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with("Direct leak of ") || line.starts_with("Indirect leak of ") {
            records.push(Record {
                direct: line.starts_with("Direct"),
                frames: Vec::new(),
            });
        } else if let (Some(record), true) = (records.last_mut(), line.starts_with('#')) {
            record.frames.extend(frame_offset(line, binary));
        }
    }
    records
}

/// The location and call path of the record the signature comes from:
/// of the direct leaks if any, else of all, the least named one (records
/// without a user frame last).
fn chosen(records: &[Record], symbols: &mut Symbolizer) -> (Option<String>, Vec<String>) {
    let any_direct = records.iter().any(|r| r.direct);
    records
        .iter()
        .filter(|r| r.direct || !any_direct)
        .map(|r| {
            let location = symbols.location(&r.frames);
            (location.is_none(), location, symbols.call_path(&r.frames))
        })
        .min()
        .map_or((None, Vec::new()), |(_, location, path)| (location, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The form of a report of the `cycle` target of
    /// `tests-fixtures/asan-demo` (`symbolize=0`, paths shortened, fewer
    /// frames), with a direct leak added after the indirect ones.
    const CYCLE: &str = "=================================================================
==20098==ERROR: LeakSanitizer: detected memory leaks

Indirect leak of 1512 byte(s) in 27 object(s) allocated from:
    #0 0x5595484adf64  (/build/cycle+0x14df64) (BuildId: 85a831b940357b57e1c513ddb3420c72d636b64d)
    #1 0x5595484ddd47  (/build/cycle+0x17dd47)
    #2 0x7f559c045249  (/lib/x86_64-linux-gnu/libc.so.6+0x27249)

Indirect leak of 608 byte(s) in 19 object(s) allocated from:
    #0 0x5595484adf64  (/build/cycle+0x14df64)
    #1 0x5595484dd9c0  (/build/cycle+0x17d9c0)

Direct leak of 8 byte(s) in 1 object(s) allocated from:
    #0 0x5595484adf64  (/build/cycle+0x14df64)
    #1 0x5595484de000  (/build/cycle+0x17e000)

SUMMARY: AddressSanitizer: 2128 byte(s) leaked in 47 allocation(s).
";

    #[test]
    fn each_record_keeps_its_kind_and_its_frames_in_the_binary() {
        assert!(is_leak(CYCLE));
        assert!(!is_leak(
            "==1==ERROR: AddressSanitizer: SEGV on unknown address"
        ));
        let read = records(CYCLE, Some("cycle"));
        let kinds: Vec<bool> = read.iter().map(|r| r.direct).collect();
        assert_eq!(kinds, [false, false, true]);
        assert_eq!(read[0].frames, [0x14df64, 0x17dd47], "not libc");
        assert_eq!(read[2].frames, [0x14df64, 0x17e000]);
        assert!(records(CYCLE, Some("other"))
            .iter()
            .all(|r| r.frames.is_empty()));
    }

    #[test]
    fn a_report_is_a_memory_leak_without_a_message() {
        let failure = failure(CYCLE, None);
        assert_eq!(failure.kind, FailureKind::Sanitizer(AsanBug::LEAK));
        assert_eq!(failure.message, None);
        assert_eq!(AsanBug::LEAK.name(), "memory-leak");
    }

    #[test]
    fn a_report_without_records_has_none() {
        let unread = "ERROR: LeakSanitizer: detected memory leaks\n";
        assert!(records(unread, None).is_empty());
        assert_eq!(failure(unread, None).location, None);
    }
}
