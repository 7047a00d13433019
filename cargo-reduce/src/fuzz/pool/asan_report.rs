//! An AddressSanitizer report as a [`Failure`]: the bug type
//! (`heap-use-after-free`, `heap-buffer-overflow`, …) is the failure's kind,
//! so no reduction can slip from one memory bug to another or to a panic;
//! the access (`READ 4`) is its message; the top frames of the user's code
//! in the report's first stack are its call path, and the innermost one's
//! `file:line:column` its location. The stand-in built with ASan hands the
//! report over as a note (`harness/src/sanitizer.rs`); its frames are
//! `(binary+offset)`, named here by the [`Symbolizer`].

use super::asan_bug::AsanBug;
use super::call_path::Symbolizer;
use super::failure::{Failure, FailureKind};

/// What a report says, before its frames are named.
#[derive(Debug, PartialEq, Eq)]
struct Report {
    bug: AsanBug,
    /// `READ 4`, `WRITE 1`; none for bugs that are not an access.
    access: Option<String>,
    /// Offsets into the binary of the first stack's frames, innermost
    /// first (frames in shared libraries left out).
    frames: Vec<u64>,
}

/// The failure an ASan `report` describes; frames in `symbols`' binary
/// are named by it. Where the report's first stack holds none of the
/// user's code (an allocation ASan refused: `malloc` alone, under
/// `malloc_context_size=0`), the place is the stand-in's own stack taken
/// as ASan reported (`own`, return addresses innermost first).
pub(crate) fn failure(report: &str, own: &[u64], symbols: Option<&mut Symbolizer>) -> Failure {
    let binary = symbols
        .as_ref()
        .and_then(|s| s.binary().file_name())
        .map(|n| n.to_string_lossy().into_owned());
    let report = parse(report, binary.as_deref());
    let (call_path, location) = match symbols {
        Some(symbols) => match symbols.location(&report.frames) {
            Some(location) => (symbols.call_path(&report.frames), Some(location)),
            None => (symbols.call_path(own), symbols.location(own)),
        },
        None => (Vec::new(), None),
    };
    Failure {
        kind: FailureKind::Sanitizer(report.bug),
        message: report.access,
        location,
        call_path,
        overflow_depth: None,
        alloc_request: None,
    }
}

/// Reads the bug type, the access and the first stack of `text`; frames
/// count when their module's file name is `binary` (any module not a
/// shared library when `None`).
fn parse(text: &str, binary: Option<&str>) -> Report {
    let lines = || text.lines().map(str::trim);
    let bug = lines()
        .find_map(|l| l.strip_prefix("SUMMARY: AddressSanitizer: "))
        .or_else(|| lines().find_map(|l| l.split_once("ERROR: AddressSanitizer: ").map(|p| p.1)))
        .map_or(AsanBug::UNKNOWN, bug_type);
    let access = lines().find_map(access);
    let frames = lines()
        .skip_while(|l| !l.starts_with("#0 "))
        .take_while(|l| l.starts_with('#'))
        .filter_map(|l| frame_offset(l, binary))
        .collect();
    Report {
        bug,
        access,
        frames,
    }
}

/// The bug type at the start of `rest` (what follows `AddressSanitizer: `).
fn bug_type(rest: &str) -> AsanBug {
    let mut words = rest.split_whitespace();
    let name = match words.next() {
        Some("attempting") => match words.next() {
            Some("double-free") => "double-free",
            _ => "bad-free",
        },
        Some("requested") => "allocation-size-too-big",
        Some(word) => word,
        None => "",
    };
    AsanBug::from_name(name).unwrap_or(AsanBug::UNKNOWN)
}

/// `READ 4` for `READ of size 4 at 0x… thread T1`; `WRITE` for a deadly
/// signal's `==1==The signal is caused by a WRITE memory access.` (ASan
/// knows no size there; `UNKNOWN` when it cannot tell either).
fn access(line: &str) -> Option<String> {
    const SIGNAL: &str = "The signal is caused by a ";
    if let Some(at) = line.find(SIGNAL) {
        let kind = line[at + SIGNAL.len()..].split_whitespace().next()?;
        return ["READ", "WRITE", "UNKNOWN"]
            .contains(&kind)
            .then(|| kind.to_string());
    }
    let (kind, rest) = line.split_once(" of size ")?;
    if kind != "READ" && kind != "WRITE" {
        return None;
    }
    let size = rest.split_whitespace().next()?;
    size.bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| format!("{kind} {size}"))
}

/// The offset in `#3 0x55d0… (/path/bin+0x1439b3) (BuildId: …)`, if the
/// frame is in `binary`.
pub(super) fn frame_offset(line: &str, binary: Option<&str>) -> Option<u64> {
    let start = line.find(" (")? + 2;
    let inner = &line[start..];
    let inner = &inner[..inner.find(')')?];
    let (module, offset) = inner.rsplit_once("+0x")?;
    let name = module.rsplit('/').next().unwrap_or(module);
    let ours = match binary {
        Some(binary) => name == binary,
        None => !name.contains(".so"),
    };
    ours.then(|| u64::from_str_radix(offset, 16).ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real report of the `overflow` target of `tests-fixtures/asan-demo`
    /// (`symbolize=0`, paths shortened).
    const OVERFLOW: &str = "=================================================================
==24774==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x7bbc7b7e0038 at pc 0x5600a8682816 bp 0x7fffbfc49430 sp 0x7fffbfc49428
READ of size 4 at 0x7bbc7b7e0038 thread T0
    #0 0x5600a8682815  (/build/overflow+0x143815) (BuildId: 85a831b940357b57e1c513ddb3420c72d636b64d)
    #1 0x5600a8682258  (/build/overflow+0x143258)
    #11 0x7f9c7c765249  (/lib/x86_64-linux-gnu/libc.so.6+0x27249)
    #13 0x5600a85c55b0  (/build/overflow+0x865b0)

0x7bbc7b7e0038 is located 0 bytes after 8-byte region [0x7bbc7b7e0030,0x7bbc7b7e0038)
allocated by thread T0 here:
    #0 0x5600a86530e4  (/build/overflow+0x1140e4)

SUMMARY: AddressSanitizer: heap-buffer-overflow (/build/overflow+0x143815) (BuildId: 85a8)
";

    #[test]
    fn a_report_gives_bug_access_and_first_stack() {
        let report = parse(OVERFLOW, Some("overflow"));
        assert_eq!(report.bug.name(), "heap-buffer-overflow");
        assert_eq!(report.access.as_deref(), Some("READ 4"));
        assert_eq!(report.frames, [0x143815, 0x143258, 0x865b0]);
        assert!(parse(OVERFLOW, Some("other")).frames.is_empty());
        assert_eq!(parse(OVERFLOW, None).frames.len(), 3, "not libc");
    }

    /// A real report of a wild read (the `overflow` target of
    /// `tests-fixtures/asan-demo` on `S\x01`: an empty vector's dangling
    /// pointer) by `cargo fuzz run` (`symbolize=0`, paths shortened, frames
    /// and registers left out).
    const SEGV: &str = "AddressSanitizer:DEADLYSIGNAL
=================================================================
==31638==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000004 (pc 0x55adf411c321 bp 0x7ffc9cc3cad0 sp 0x7ffc9cc3ca40 T0)
==31638==The signal is caused by a READ memory access.
==31638==HINT: address points to the zero page.
    #0 0x55adf411c321  (/build/overflow+0x14e321) (BuildId: b2d892d5ab8cf1641dd26893486e30444c3ab1c4)
    #1 0x55adf411be18  (/build/overflow+0x14de18) (BuildId: b2d892d5ab8cf1641dd26893486e30444c3ab1c4)
    #11 0x7f72d3445249  (/lib/x86_64-linux-gnu/libc.so.6+0x27249) (BuildId: 93ac61ec5a8eb1396f9fbd350e3169a558528a40)

==31638==Register values:
rax = 0x000055adf47c5a00  rbx = 0x0000000000000000  rcx = 0x0000000000000000  rdx = 0x000000000000022f
AddressSanitizer can not provide additional info.
SUMMARY: AddressSanitizer: SEGV (/build/overflow+0x14e321) (BuildId: b2d892d5ab8cf1641dd26893486e30444c3ab1c4)
==31638==ABORTING
";

    #[test]
    fn a_deadly_signal_gives_segv_and_the_access() {
        let report = parse(SEGV, Some("overflow"));
        assert_eq!(report.bug.name(), "SEGV");
        assert_eq!(report.access.as_deref(), Some("READ"));
        assert_eq!(report.frames, [0x14e321, 0x14de18]);
        let unknown = "==2==The signal is caused by a UNKNOWN memory access.";
        assert_eq!(access(unknown).as_deref(), Some("UNKNOWN"));
        assert_eq!(access("==2==The signal is caused by a typo"), None);
    }

    #[test]
    fn bug_types_without_a_summary_or_an_access() {
        let double = "==1==ERROR: AddressSanitizer: attempting double-free on 0x602 in thread T0:\n    #0 0x1 (/b/t+0x10)\n";
        let report = parse(double, Some("t"));
        assert_eq!(report.bug.name(), "double-free");
        assert_eq!((report.access, report.frames), (None, vec![0x10]));
        let bad = parse(
            "ERROR: AddressSanitizer: attempting free on address which was not malloc()-ed",
            None,
        );
        assert_eq!(bad.bug.name(), "bad-free");
        assert_eq!(parse("garbage", None).bug.name(), "unknown-crash");
        let uaf = "SUMMARY: AddressSanitizer: heap-use-after-free /src/a.rs:41:18 in f\nWRITE of size 1 at 0x7b thread T1";
        let report = parse(uaf, None);
        assert_eq!(report.bug.name(), "heap-use-after-free");
        assert_eq!(report.access.as_deref(), Some("WRITE 1"));
    }
}
