//! `huge_alloc`: a run-length "decoder" that preallocates its output.
//!
//! Format: the magic `b"HA"`, a little-endian `u16` declared output size, a
//! fill byte (missing: 0), then ignored payload.
//!
//! PLANTED BUG: the size limit is checked in KiB (`MAX_OUTPUT_KIB = 4096`,
//! 4 MiB) but the buffer is sized in MiB, so a declared size of up to 4096
//! allocates and writes up to 4 GiB. Every byte is written (`resize`) and then
//! read (checksum, which takes seconds), so the resident memory really grows
//! and stays up long enough for libFuzzer's once-a-second RSS check:
//! with `-rss_limit_mb=2048` libFuzzer reports
//! `ERROR: libFuzzer: out-of-memory (used: NMb; limit: 2048Mb)` and writes
//! `oom-*`. (With `-s none` there are no malloc hooks, so `-malloc_limit_mb`
//! has no effect; detection is the RSS check alone.)
//!
//! Minimal crashing input: `b"HA\x00\x08"` (4 bytes: declared size 2048 MiB,
//! which with the process's own ~30 MB exceeds the 2048 MB RSS limit; sizes
//! from about 2020 MiB up to 4096 MiB, `b"HA\x00\x10"`, crash as well, while
//! `b"HA\xc0\x07"`, 1984 MiB, peaks just under the limit).
#![no_main]

use libfuzzer_sys::fuzz_target;

/// The intended limit on the decoded size, in KiB.
const MAX_OUTPUT_KIB: usize = 4096;

fn decode(data: &[u8]) -> Option<u64> {
    let rest = data.strip_prefix(b"HA")?;
    let size = usize::from(u16::from_le_bytes([*rest.first()?, *rest.get(1)?]));
    if size > MAX_OUTPUT_KIB {
        return None;
    }
    let fill = rest.get(2).copied().unwrap_or(0);
    // BUG: `size` is KiB, but it is used as MiB.
    let len = size << 20;
    let mut out: Vec<u8> = Vec::with_capacity(len);
    out.resize(len, fill);
    let out = std::hint::black_box(out);
    Some(
        out.iter()
            .fold(0u64, |h, &b| h.wrapping_mul(31).wrapping_add(u64::from(b))),
    )
}

fuzz_target!(|data: &[u8]| {
    std::hint::black_box(decode(data));
});
