// Parent <-> worker protocol of cargo-reduce's worker pool.
//
// This one file is compiled twice: as a module of the `libfuzzer-sys` stand-in
// (the worker side) and, through `include!`, as `cargo_reduce::pool::protocol`
// (the parent side), so the two sides cannot drift apart. Because of the
// `include!` it holds plain items only: no inner attributes or `//!` comments.
//
// Shared memory (one memfd, mapped by the parent and every worker):
//
//   [0, CONTROL_SIZE)            control: `Header`, then one `WorkerArea` per
//                                worker slot (fixed size, never remapped)
//   [round_offset(slots), ...)   round area, rewritten for every round:
//                                `count + 1` u64 input offsets, `count` u8
//                                outcome slots, then the input bytes
//
// Pipes carry the rest: the parent sends `Request`s to a worker, a worker
// sends `Event`s back. Each message is a frame: u32 little-endian body length,
// then the body (a tag byte and fixed little-endian fields, then text). The
// events a test process sends are small and of fixed size, below PIPE_BUF:
// one write each, so a process killed while writing never leaves half a
// frame in the pipe its fork server also writes to. A failure's text stays
// in the worker's note, which the worker keeps until the parent read it
// (`Request::Resume`).

use super::sys;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::{io, os::raw::c_int};

/// Environment variable that turns a fuzz target binary into a pool worker.
/// Its value is `shm_fd,command_fd,event_fd,slot,flags`.
pub(super) const WORKER_ENV: &str = "CARGO_REDUCE_WORKER";

/// Bumped whenever the layout or the messages change.
pub(super) const PROTOCOL_VERSION: u32 = 8;

/// Environment variable of a coverage build's workers: the directory of
/// the feature logs. Worker slot `N` appends one `feature_record` per
/// passing test to the file `N` there (one `write` each, so a test process
/// killed at any moment leaves whole records only, or a cut last one that
/// `feature_records` skips); the parent reads and empties the files
/// between rounds, when every worker is idle.
pub(super) const FEATURE_LOG_ENV: &str = "CARGO_REDUCE_FEATURE_LOG";

/// First word of the shared memory, checked by workers.
pub(super) const MAGIC: u64 = u64::from_le_bytes(*b"CRPOOL01");

/// `WorkerConfig::flags` bit: exit after every failing test so that the next
/// test starts from a fresh process (state poisoned by a panic is not reused),
/// as libFuzzer and AFL++ end the process at a crash.
pub(super) const FLAG_RESTART_AFTER_FAILURE: u64 = 1;

/// `WorkerConfig::flags` bit: the stand-in's `getrandom` gives a fixed
/// sequence (the seed of every `HashMap`), so that an input's features are
/// the same in every worker and run (coverage pools).
pub(super) const FLAG_FIXED_RANDOM: u64 = 2;

/// Size of `Header`'s page.
pub(super) const HEADER_SIZE: usize = 4096;

/// Size of one worker's area (status words and a note).
pub(super) const WORKER_AREA_SIZE: usize = 16 * 1024;

/// Where a note's text starts inside a worker area.
pub(super) const NOTE_OFFSET: usize = 128;

/// Longest note text; panic messages are cut to fit.
pub(super) const NOTE_CAPACITY: usize = WORKER_AREA_SIZE - NOTE_OFFSET;

/// Mappings start at multiples of this (the largest Linux page size in use).
pub(super) const MAP_ALIGN: usize = 64 * 1024;

/// Value of `Header::best` while no accepted index is known.
pub(super) const NO_INDEX: u64 = u64::MAX;

/// Outcome slot: not run (yet).
pub(super) const SLOT_PENDING: u8 = 0;
/// Outcome slot: the target returned normally.
pub(super) const SLOT_PASSED: u8 = 1;
/// Outcome slot: the target returned `Corpus::Reject` (or the input was too
/// short or invalid for its `Arbitrary` type).
pub(super) const SLOT_REJECTED: u8 = 2;
/// Outcome slot: the test failed; the details are in the worker's note
/// (marked before the `Event::Failed` is sent).
pub(super) const SLOT_FAILED: u8 = 3;

/// Note kind: none.
pub(super) const NOTE_NONE: u32 = 0;
/// Note kind: a panic; the text is `location\0message`; `arg` is
/// [`PANIC_ENDS_TEST`] or 0.
pub(super) const NOTE_PANIC: u32 = 1;
/// `arg` of a `NOTE_PANIC` that fails its test whatever the test does
/// after it: libfuzzer-sys's and afl.rs's hooks abort at every panic, so
/// a hang or a memory growth that follows one the target caught itself
/// never happens under the engines (0: `fuzz_nohook!`, where only an
/// escaping panic fails).
pub(super) const PANIC_ENDS_TEST: u64 = 1;
/// Note kind: a fault in the guard zone of the test thread's stack; `arg`
/// says how far past the limit its deepest fault was (`OVERFLOW_*`).
pub(super) const NOTE_STACK_OVERFLOW: u32 = 2;
/// `arg` of a `NOTE_STACK_OVERFLOW`: on a stack whose limit is not known
/// (a thread the target started).
pub(super) const OVERFLOW_ELSEWHERE: u64 = 0;
/// `arg` of a `NOTE_STACK_OVERFLOW`: less than `OVERFLOW_SLACK` past the
/// limit.
pub(super) const OVERFLOW_NEAR_LIMIT: u64 = 1;
/// `arg` of a `NOTE_STACK_OVERFLOW`: `OVERFLOW_SLACK` or more past the
/// limit, inside the tripwire.
pub(super) const OVERFLOW_PAST_SLACK: u64 = 2;
/// `arg` of a `NOTE_STACK_OVERFLOW`: in the last guard, past the margin
/// (or a plain thread's guard, where there is no tripwire).
pub(super) const OVERFLOW_PAST_MARGIN: u64 = 3;
/// How far past the limit the tripwire tells overflows apart. The real
/// program's stack is not exactly as deep as the limit (the kernel starts
/// the main thread at a random offset, and the frames differ a little
/// between builds), so an input found overflowing well past the limit is
/// reduced to one that still does, not to one at the edge.
pub(super) const OVERFLOW_SLACK: usize = 32 << 10;
/// Note kind: one allocation larger than the malloc limit; `arg` is its size.
pub(super) const NOTE_MALLOC_LIMIT: u32 = 3;
/// Note kind: the system allocator failed; `arg` is the requested size.
pub(super) const NOTE_ALLOC_FAILED: u32 = 4;
/// Note kind: a sanitizer's report: `panic_text` with the report (as the
/// sanitizer printed it) as the message and the stack the stand-in took as
/// ASan reported (none for a leak, found after the test), since ASan's own
/// stack of an allocation it refused holds only `malloc` under
/// `malloc_context_size=0`.
pub(super) const NOTE_SANITIZER: u32 = 5;
/// Note kind: the test process died of signal `arg` (a fault, an abort);
/// the text is `frames_text` of the interrupted code's stack.
pub(super) const NOTE_SIGNAL: u32 = 6;
/// Note kind: the stack the parent asked for with `STACK_SIGNAL` before it
/// killed the test (a timeout, the RSS limit); the text is `frames_text`.
pub(super) const NOTE_STACK: u32 = 7;
/// Note kind: a writer is filling in the text.
pub(super) const NOTE_BUSY: u32 = u32::MAX;

/// The signal the parent sends to a test process before killing it, to
/// have it note where it is (`NOTE_STACK`): a real-time signal (SIGRTMIN
/// is 34 or 35 in glibc and musl), which programs rarely use.
pub(super) const STACK_SIGNAL: i32 = 40;

/// Longest `frames_text`: the count, 255 addresses and a NUL.
pub(super) const FRAMES_TEXT_CAPACITY: usize = 1 + 255 * 8 + 1;

/// Bytes of the control region for `slots` workers.
pub(super) const fn control_size(slots: usize) -> usize {
    let end = HEADER_SIZE + slots * WORKER_AREA_SIZE;
    end.div_ceil(MAP_ALIGN) * MAP_ALIGN
}

/// Offset of worker `slot`'s area.
pub(super) const fn worker_area_offset(slot: usize) -> usize {
    HEADER_SIZE + slot * WORKER_AREA_SIZE
}

/// A 64-bit counter alone on its cache line, so that workers hammering one
/// do not slow down readers of the others.
#[repr(C, align(64))]
pub(super) struct Padded(pub AtomicU64);

/// Round parameters and the two words every worker touches, at offset 0.
#[repr(C)]
pub(super) struct Header {
    /// `MAGIC`.
    pub magic: AtomicU64,
    /// `PROTOCOL_VERSION`.
    pub version: AtomicU64,
    /// Number of worker areas after the header.
    pub slots: AtomicU64,
    /// Inputs in the current round.
    pub count: AtomicU64,
    /// How many indices a worker claims at once.
    pub chunk: AtomicU64,
    /// 1 if a passing outcome is accepted, so workers lower `best` themselves.
    pub accept_pass: AtomicU64,
    /// Largest single allocation allowed during a test, in bytes (0: none).
    pub malloc_limit: AtomicU64,
    /// Byte offset, inside the round area, of the `count + 1` input offsets.
    pub offsets_at: AtomicU64,
    /// Byte offset, inside the round area, of the `count` outcome slots.
    pub slots_at: AtomicU64,
    /// Byte offset, inside the round area, of the input bytes.
    pub data_at: AtomicU64,
    /// Next index to claim.
    pub next: Padded,
    /// Lowest accepted index so far (`NO_INDEX` if none): later ones are skipped.
    pub best: Padded,
}

/// One worker's status words, written by the worker and read by the parent
/// (also after the worker died, to attribute the death to a test).
#[repr(C)]
pub(super) struct WorkerArea {
    /// Index + 1 of the test in progress or last started; 0 while idle.
    pub current: AtomicU64,
    /// End (exclusive) of the range of indices this worker is working through.
    pub range_end: AtomicU64,
    /// Set by the parent before a round: a range to run before claiming more
    /// (what a dead predecessor in this slot left unfinished).
    pub resume_from: AtomicU64,
    /// End (exclusive) of the resume range.
    pub resume_to: AtomicU64,
    /// One of the `NOTE_*` kinds.
    pub note_kind: AtomicU32,
    /// Length of the note text.
    pub note_len: AtomicU32,
    /// Number attached to the note (an overflow's depth, an allocation size).
    pub note_arg: AtomicU64,
}

/// Why a test failed, as recorded by the worker in its area.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Note {
    /// One of the `NOTE_*` kinds.
    pub kind: u32,
    /// Number attached to the note.
    pub arg: u64,
    /// Text of the note (for panics `panic_text`).
    pub text: Vec<u8>,
}

/// Records a note in the area at `area` unless one is there already: the
/// first reason a test failed wins, as the first panic aborts libFuzzer.
/// The stack the parent sampled (`NOTE_STACK`) is not a reason: a failure
/// of the test's own replaces it (a test that ends while the parent takes
/// its stack for a timeout, before the kill, fails as it ended).
/// Async-signal-safe: no allocation, no locks.
///
/// # Safety
/// `area` must point to a mapped `WORKER_AREA_SIZE` bytes worker area.
pub(super) unsafe fn write_note(area: *mut u8, kind: u32, arg: u64, text: &[u8]) -> bool {
    unsafe { write_note_parts(area, kind, arg, &[text]) }
}

/// [`write_note`] of the concatenation of `parts`, without allocating.
///
/// # Safety
/// As [`write_note`].
pub(super) unsafe fn write_note_parts(area: *mut u8, kind: u32, arg: u64, parts: &[&[u8]]) -> bool {
    let status = unsafe { &*(area as *const WorkerArea) };
    let take = |from: u32| {
        let taken =
            status
                .note_kind
                .compare_exchange(from, NOTE_BUSY, Ordering::AcqRel, Ordering::Relaxed);
        taken.is_ok()
    };
    if !take(NOTE_NONE) && (kind == NOTE_STACK || !take(NOTE_STACK)) {
        return false;
    }
    let mut len = 0;
    for part in parts {
        let n = part.len().min(NOTE_CAPACITY - len);
        unsafe { std::ptr::copy_nonoverlapping(part.as_ptr(), area.add(NOTE_OFFSET + len), n) };
        len += n;
    }
    status.note_arg.store(arg, Ordering::Relaxed);
    status.note_len.store(len as u32, Ordering::Relaxed);
    status.note_kind.store(kind, Ordering::Release);
    true
}

/// Reads the note in the area at `area`, if a complete one is there.
///
/// # Safety
/// `area` must point to a mapped `WORKER_AREA_SIZE` bytes worker area.
pub(super) unsafe fn read_note(area: *const u8) -> Option<Note> {
    let status = unsafe { &*(area as *const WorkerArea) };
    let kind = status.note_kind.load(Ordering::Acquire);
    if kind == NOTE_NONE || kind == NOTE_BUSY {
        return None;
    }
    let len = (status.note_len.load(Ordering::Relaxed) as usize).min(NOTE_CAPACITY);
    let mut text = vec![0; len];
    unsafe { std::ptr::copy_nonoverlapping(area.add(NOTE_OFFSET), text.as_mut_ptr(), len) };
    let arg = status.note_arg.load(Ordering::Relaxed);
    // A failure of the test's own may have replaced a stack note meanwhile.
    if status.note_kind.load(Ordering::Acquire) != kind {
        return None;
    }
    Some(Note { kind, arg, text })
}

/// Joins a panic's location, message and call path (return addresses,
/// innermost first, see `trace`) into note or event text: the number of
/// addresses (one byte), the addresses (8 bytes each, little-endian), the
/// location, NUL, the message. The addresses come first so that a note cut
/// to its capacity loses only the end of the message.
pub(super) fn panic_text(location: &str, message: &str, frames: &[u64]) -> Vec<u8> {
    let frames = &frames[..frames.len().min(u8::MAX as usize)];
    let mut text = Vec::with_capacity(1 + frames.len() * 8 + location.len() + 1 + message.len());
    text.push(frames.len() as u8);
    for frame in frames {
        text.extend_from_slice(&frame.to_le_bytes());
    }
    text.extend_from_slice(location.as_bytes());
    text.push(0);
    text.extend_from_slice(message.as_bytes());
    text
}

/// `panic_text` with no location or message, written into `buf` without
/// allocating (for signal handlers and the allocator); its length.
pub(super) fn frames_text(frames: &[u64], buf: &mut [u8; FRAMES_TEXT_CAPACITY]) -> usize {
    let frames = &frames[..frames.len().min(u8::MAX as usize)];
    buf[0] = frames.len() as u8;
    for (i, frame) in frames.iter().enumerate() {
        buf[1 + i * 8..9 + i * 8].copy_from_slice(&frame.to_le_bytes());
    }
    let end = 1 + frames.len() * 8;
    buf[end] = 0;
    end + 1
}

/// A panic as `panic_text` wrote it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct PanicText {
    /// `file:line:column`, or empty.
    pub location: String,
    /// The message.
    pub message: String,
    /// Return addresses, innermost first.
    pub frames: Vec<u64>,
}

/// Splits `panic_text` output back into its parts.
pub(super) fn split_panic_text(text: &[u8]) -> PanicText {
    let count = text.first().map_or(0, |&n| n as usize);
    let frames_end = (1 + count * 8).min(text.len());
    let frames = text
        .get(1..frames_end)
        .unwrap_or(&[])
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
        .collect();
    let rest = &text[frames_end..];
    let cut = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
    PanicText {
        location: String::from_utf8_lossy(&rest[..cut]).into_owned(),
        message: String::from_utf8_lossy(rest.get(cut + 1..).unwrap_or(&[])).into_owned(),
        frames,
    }
}

/// The index of a feature log's record of what a worker ran as it started
/// (`LLVMFuzzerInitialize`, the target's `init:` code, and the empty input
/// libFuzzer runs first), written before its first round.
pub(super) const STARTUP_RECORD: u64 = u64::MAX;

/// A feature log's record of the test of input `index`: the index (u64),
/// the program's counter count (u32: features below 8 times it are an
/// edge's, the stack depth's above), the feature count (u32), then the
/// features (u32 each), little-endian.
pub(super) fn feature_record(index: u64, counters: u32, features: &[u32], out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(&index.to_le_bytes());
    out.extend_from_slice(&counters.to_le_bytes());
    out.extend_from_slice(&(features.len() as u32).to_le_bytes());
    for feature in features {
        out.extend_from_slice(&feature.to_le_bytes());
    }
}

/// One record of a feature log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct FeatureRecord {
    /// The input's index in its round.
    pub index: u64,
    /// The program's counter count.
    pub counters: u32,
    /// Its features.
    pub features: Vec<u32>,
}

/// The whole records of a feature log, in the order written.
pub(super) fn feature_records(log: &[u8]) -> Vec<FeatureRecord> {
    let u32_at = |at: usize| -> Option<u32> {
        Some(u32::from_le_bytes(log.get(at..at + 4)?.try_into().ok()?))
    };
    let mut records = Vec::new();
    let mut at = 0;
    while let (Some(index), Some(counters), Some(count)) =
        (get_u64(log, at), u32_at(at + 8), u32_at(at + 12))
    {
        let Some(body) = log.get(at + 16..at + 16 + count as usize * 4) else {
            break;
        };
        let features = body
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
            .collect();
        records.push(FeatureRecord {
            index,
            counters,
            features,
        });
        at += 16 + count as usize * 4;
    }
    records
}

/// Environment variable of a coverage build's workers when the parent
/// maps coverage to source: the file where a worker writes the program's
/// PC table (`pc_table_file`), written whole under another name and
/// renamed, so the parent reads a whole table or none.
pub(super) const PC_TABLE_ENV: &str = "CARGO_REDUCE_PC_TABLE";

/// The PC table file: the run-time address of `__sanitizer_cov_pcs_init`
/// (the parent finds the load bias from it), then SanitizerCoverage's
/// (PC, flags) pairs in counter order, each a little-endian u64.
pub(super) fn pc_table_file(anchor: u64, pairs: &[u64]) -> Vec<u8> {
    std::iter::once(anchor)
        .chain(pairs.iter().copied())
        .flat_map(u64::to_le_bytes)
        .collect()
}

/// The anchor and the PCs of a PC table file (flags left out), or `None`
/// when it is not one.
pub(super) fn pc_table_pcs(file: &[u8]) -> Option<(u64, Vec<u64>)> {
    if file.len() < 8 || file.len() % 16 != 8 {
        return None;
    }
    let anchor = get_u64(file, 0)?;
    let pcs = file[8..]
        .chunks_exact(16)
        .filter_map(|pair| get_u64(pair, 0))
        .collect();
    Some((anchor, pcs))
}

/// libFuzzer's feature space (`kFeatureSetSize`): features are taken
/// modulo this, as its corpus records them.
pub(super) const FEATURE_SET_SIZE: u32 = 1 << 21;

/// The features of one test as libFuzzer's `TracePC::CollectFeatures`
/// counts them with its defaults (`-use_counters=1`, no value profile),
/// appended to `out`: for each nonzero 8-bit counter, its index across
/// `regions` (in registration order) times 8 plus its hit count's bucket;
/// then, when the stack-depth instrumentation measured `stack_offset`
/// bytes (0: none), one feature past every counter's for the depth.
pub(super) fn collect_features(regions: &[&[u8]], stack_offset: usize, out: &mut Vec<u32>) {
    let mut first: usize = 0;
    for region in regions {
        for_each_nonzero(region, |index, count| {
            out.push(((first + index * 8 + counter_bucket(count)) as u32) % FEATURE_SET_SIZE);
        });
        first += 8 * region.len();
    }
    if stack_offset != 0 {
        out.push((first + stack_depth_step(stack_offset / 8)) as u32 % FEATURE_SET_SIZE);
    }
}

/// Calls `f` with the index and value of each nonzero byte of `bytes`, in
/// order, skipping zero bytes a block at a time and finding the others by
/// their bits (libFuzzer's `ForEachNonZeroByte` skips eight): a test
/// touches few of a program's counters, and this runs after every test of
/// a coverage replay.
fn for_each_nonzero(bytes: &[u8], mut f: impl FnMut(usize, u8)) {
    const BLOCK: usize = 64;
    let word = |w: &[u8]| u64::from_le_bytes(w.try_into().expect("8 bytes"));
    let mut blocks = bytes.chunks_exact(BLOCK);
    let mut at = 0;
    for block in &mut blocks {
        if block.chunks_exact(8).fold(0, |any, w| any | word(w)) != 0 {
            for (i, w) in block.chunks_exact(8).enumerate() {
                nonzero_in_word(word(w), at + 8 * i, &mut f);
            }
        }
        at += BLOCK;
    }
    for (i, &count) in blocks.remainder().iter().enumerate() {
        if count != 0 {
            f(at + i, count);
        }
    }
}

/// The nonzero bytes of `word` (little-endian), the first at index `at`.
fn nonzero_in_word(mut word: u64, at: usize, f: &mut impl FnMut(usize, u8)) {
    while word != 0 {
        let byte = word.trailing_zeros() as usize / 8;
        f(at + byte, (word >> (8 * byte)) as u8);
        word &= !(0xff << (8 * byte));
    }
}

/// libFuzzer's `CounterToFeature`: a hit count's bucket (1, 2, 3, 4–7,
/// 8–15, 16–31, 32–127, 128–255 hits).
pub(super) fn counter_bucket(count: u8) -> usize {
    match count {
        128.. => 7,
        32.. => 6,
        16.. => 5,
        8.. => 4,
        4.. => 3,
        3 => 2,
        2 => 1,
        _ => 0,
    }
}

/// libFuzzer's `StackDepthStepFunction`: a depth (in words) on a scale
/// that grows like 8 × log2.
pub(super) fn stack_depth_step(words: usize) -> usize {
    if words == 0 {
        return 0;
    }
    let log2 = words.ilog2() as usize;
    if log2 < 3 {
        return words;
    }
    let shift = log2 - 3;
    (shift + 1) * 8 + ((words >> shift) & 7)
}

/// How the parent told a worker to run: parsed from `WORKER_ENV`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct WorkerConfig {
    /// File descriptor of the shared memory.
    pub shm_fd: i32,
    /// File descriptor the worker reads commands from.
    pub command_fd: i32,
    /// File descriptor the worker writes events to.
    pub event_fd: i32,
    /// Index of this worker's area.
    pub slot: usize,
    /// `FLAG_*` bits.
    pub flags: u64,
}

impl WorkerConfig {
    /// The value of `WORKER_ENV` for this configuration.
    pub(super) fn to_env(self) -> String {
        format!(
            "{},{},{},{},{}",
            self.shm_fd, self.command_fd, self.event_fd, self.slot, self.flags
        )
    }

    /// Parses a value of `WORKER_ENV`.
    pub(super) fn from_env(value: &str) -> Option<Self> {
        let mut fields = value.split(',');
        let mut next = || fields.next()?.trim().parse::<u64>().ok();
        let config = WorkerConfig {
            shm_fd: i32::try_from(next()?).ok()?,
            command_fd: i32::try_from(next()?).ok()?,
            event_fd: i32::try_from(next()?).ok()?,
            slot: usize::try_from(next()?).ok()?,
            flags: next()?,
        };
        Some(config)
    }
}

const TAG_ROUND: u8 = 1;
const TAG_EXIT: u8 = 2;
const TAG_RESUME: u8 = 3;
const TAG_RELEASE: u8 = 4;
const TAG_HELLO: u8 = 10;
const TAG_FAILED: u8 = 11;
const TAG_IDLE: u8 = 12;
const TAG_INIT_FAILED: u8 = 13;
const TAG_CHILD_DIED: u8 = 14;

/// Parent to worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Request {
    /// Run a round: the header and round area are ready; `shm_len` is the
    /// current length of the shared memory file.
    Round {
        /// Round number, echoed in the events.
        generation: u64,
        /// Length of the shared memory file.
        shm_len: u64,
    },
    /// Exit cleanly.
    Exit,
    /// The parent read the note of the failure the worker reported: the
    /// worker may go on (and overwrite it).
    Resume,
    /// The parent read the death of the fork server's test process and
    /// forgot its pid: the fork server may reap it (until then the zombie
    /// keeps the pid from being reused while the parent may still kill or
    /// measure it).
    Release,
}

/// Worker to parent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Event {
    /// Init code ran; the worker waits for rounds. Sent by each process
    /// that runs tests: the worker itself, or each child its fork server
    /// starts.
    Hello {
        /// The worker's `PROTOCOL_VERSION`.
        version: u32,
        /// Whether the target takes an `Arbitrary` type instead of bytes.
        typed: bool,
        /// The process that runs the tests (to kill, and to measure).
        pid: u32,
    },
    /// The fork server's test process died (`waitpid` status); the next
    /// one says hello.
    ChildDied {
        /// The raw wait status.
        status: i32,
    },
    /// Input `index` of round `generation` panicked or overflowed its
    /// stack (and the process lived on). Its text is the worker's note;
    /// the worker waits for `Request::Resume` before the next test.
    Failed {
        /// Round number.
        generation: u64,
        /// Index of the input.
        index: u64,
        /// `NOTE_PANIC` or `NOTE_STACK_OVERFLOW`.
        kind: u32,
    },
    /// The worker found no more work in round `generation`.
    Idle {
        /// Round number.
        generation: u64,
    },
    /// The init code panicked or overflowed its stack; the worker exits.
    InitFailed {
        /// `NOTE_PANIC` or `NOTE_STACK_OVERFLOW`.
        kind: u32,
        /// `panic_text` of the panic.
        text: Vec<u8>,
    },
}

fn put_u64(body: &mut Vec<u8>, value: u64) {
    body.extend_from_slice(&value.to_le_bytes());
}

fn get_u64(body: &[u8], at: usize) -> Option<u64> {
    let bytes = body.get(at..at + 8)?;
    Some(u64::from_le_bytes(bytes.try_into().ok()?))
}

/// Wraps a message body into a frame.
fn frame(body: Vec<u8>) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + body.len());
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

/// If `buf` starts with a whole frame, its body and the frame's total length.
pub(super) fn next_frame(buf: &[u8]) -> Option<(&[u8], usize)> {
    let len = u32::from_le_bytes(buf.get(..4)?.try_into().ok()?) as usize;
    let body = buf.get(4..4 + len)?;
    Some((body, 4 + len))
}

impl Request {
    /// The command as a frame.
    pub(super) fn encode(&self) -> Vec<u8> {
        let mut body = Vec::with_capacity(17);
        match self {
            Request::Round {
                generation,
                shm_len,
            } => {
                body.push(TAG_ROUND);
                put_u64(&mut body, *generation);
                put_u64(&mut body, *shm_len);
            }
            Request::Exit => body.push(TAG_EXIT),
            Request::Resume => body.push(TAG_RESUME),
            Request::Release => body.push(TAG_RELEASE),
        }
        frame(body)
    }

    /// Parses a frame body.
    pub(super) fn decode(body: &[u8]) -> Option<Self> {
        match *body.first()? {
            TAG_ROUND => Some(Request::Round {
                generation: get_u64(body, 1)?,
                shm_len: get_u64(body, 9)?,
            }),
            TAG_EXIT => Some(Request::Exit),
            TAG_RESUME => Some(Request::Resume),
            TAG_RELEASE => Some(Request::Release),
            _ => None,
        }
    }
}

impl Event {
    /// The event as a frame.
    pub(super) fn encode(&self) -> Vec<u8> {
        let mut body = Vec::with_capacity(32);
        match self {
            Event::Hello {
                version,
                typed,
                pid,
            } => {
                body.push(TAG_HELLO);
                put_u64(&mut body, u64::from(*version));
                body.push(u8::from(*typed));
                put_u64(&mut body, u64::from(*pid));
            }
            Event::ChildDied { status } => {
                body.push(TAG_CHILD_DIED);
                put_u64(&mut body, u64::from(*status as u32));
            }
            Event::Failed {
                generation,
                index,
                kind,
            } => {
                body.push(TAG_FAILED);
                put_u64(&mut body, *generation);
                put_u64(&mut body, *index);
                put_u64(&mut body, u64::from(*kind));
            }
            Event::Idle { generation } => {
                body.push(TAG_IDLE);
                put_u64(&mut body, *generation);
            }
            Event::InitFailed { kind, text } => {
                body.push(TAG_INIT_FAILED);
                put_u64(&mut body, u64::from(*kind));
                body.extend_from_slice(text);
            }
        }
        frame(body)
    }

    /// Parses a frame body.
    pub(super) fn decode(body: &[u8]) -> Option<Self> {
        match *body.first()? {
            TAG_HELLO => Some(Event::Hello {
                version: u32::try_from(get_u64(body, 1)?).ok()?,
                typed: *body.get(9)? != 0,
                pid: u32::try_from(get_u64(body, 10)?).ok()?,
            }),
            TAG_CHILD_DIED => Some(Event::ChildDied {
                status: u32::try_from(get_u64(body, 1)?).ok()? as i32,
            }),
            TAG_FAILED => Some(Event::Failed {
                generation: get_u64(body, 1)?,
                index: get_u64(body, 9)?,
                kind: u32::try_from(get_u64(body, 17)?).ok()?,
            }),
            TAG_IDLE => Some(Event::Idle {
                generation: get_u64(body, 1)?,
            }),
            TAG_INIT_FAILED => Some(Event::InitFailed {
                kind: u32::try_from(get_u64(body, 1)?).ok()?,
                text: body.get(9..)?.to_vec(),
            }),
            _ => None,
        }
    }
}

/// A shared read-write mapping of part of the shared memory file.
#[derive(Debug)]
pub(super) struct Mapping {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the mapping is plain shared memory; users synchronize through the
// atomics in it.
unsafe impl Send for Mapping {}

impl Mapping {
    /// Maps `len` bytes of `fd` from `offset` (a multiple of the page size).
    pub(super) fn new(fd: c_int, offset: usize, len: usize) -> io::Result<Self> {
        // SAFETY: a fresh shared mapping; the kernel checks fd and offset.
        let ptr = unsafe {
            sys::mmap(
                std::ptr::null_mut(),
                len.max(1),
                sys::PROT_READ | sys::PROT_WRITE,
                sys::MAP_SHARED,
                fd,
                offset as sys::off_t,
            )
        };
        if ptr == sys::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Mapping {
            ptr: ptr.cast(),
            len,
        })
    }

    /// First mapped byte.
    pub(super) fn ptr(&self) -> *mut u8 {
        self.ptr
    }

    /// Mapped length.
    pub(super) fn len(&self) -> usize {
        self.len
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly what `new` mapped.
        unsafe { sys::munmap(self.ptr.cast(), self.len.max(1)) };
    }
}
