//! `huge_alloc`: a decoder that allocates its output up front.
//!
//! Format: `HA`, a little-endian `u16` output size in KiB (at most 4096),
//! then a fill byte.
//!
//! BUG: the size is used as MiB, not KiB: `HA` and a size of a few thousand
//! allocates gigabytes. Under afl-fuzz's memory limit (`-m 512`) the
//! allocation fails and Rust aborts (`memory allocation of N bytes
//! failed`, SIGABRT); cargo-reduce sees it as out of memory. Minimal input:
//! 4 bytes, `HA` and a size above the memory limit in MiB.

/// The intended limit on the decoded size, in KiB.
const MAX_OUTPUT_KIB: usize = 4096;

fn decode(data: &[u8]) -> Option<u64> {
    if data.first() != Some(&b'H') || data.get(1) != Some(&b'A') {
        return None;
    }
    let size = usize::from(u16::from_le_bytes([*data.get(2)?, *data.get(3)?]));
    if size > MAX_OUTPUT_KIB {
        return None;
    }
    let fill = data.get(4).copied().unwrap_or(0);
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

fn main() {
    afl::fuzz!(|data: &[u8]| {
        std::hint::black_box(decode(data));
    });
}
