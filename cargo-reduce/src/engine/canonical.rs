//! Canonicalization after ddmin, in the spirit of afl-tmin's normalization:
//! make the remaining bytes as plain as the failure allows.
//!
//! ddmin leaves a 1-minimal input whose bytes are whatever the fuzzer
//! wrote. Two passes then lower them while the oracle still says
//! interesting: runs of bytes become `0` (ASCII, as afl-tmin does, so text
//! stays readable), from the whole input down to single bytes; then each
//! byte that is not `0` gets the lowest value that still fails, found by
//! bisection (a size field read from the input drops to the smallest size
//! that still crashes). Lengths never change, so 1-minimality is kept.
//! Without that second pass (an out-of-memory failure, whose sizes are not
//! to be lowered) a byte below `0` is left as it is: filling would raise it
//! (a typed input's `u32` of four zero bytes would read 808,464,432).
//!
//! A stretch of more than [`LONG_RUN`] equal bytes is one unit for both
//! passes: filled or lowered whole. Byte by byte, the long run of `[` of
//! the bundled stack_overflow result cost tests by the thousand that all
//! failed (each `[` is a level of nesting the overflow needs), every one a
//! deep recursion.

use std::hash::Hash;
use std::ops::Range;

use super::{split, Candidate, Context, Oracle, OracleError};

/// The byte runs are replaced with.
pub(crate) const FILL: u8 = b'0';

/// Stretches of equal bytes longer than this are canonicalized whole.
/// Shorter ones go byte by byte, as before: at 16, claxon-decode-panic of
/// `bench/realworld/` came out a byte longer (part of a 30-byte stretch
/// could be filled where the whole could not).
pub(crate) const LONG_RUN: usize = 64;

/// Lowers the bytes of `input` (known interesting) while `oracle` stays
/// interesting: runs to [`FILL`] (only the bytes above it unless
/// `lower_values`), then, when `lower_values`, each byte to its lowest
/// failing value. Stops early, keeping what it has, when a limit
/// is reached.
pub(crate) fn canonicalize<O>(
    input: Vec<u8>,
    oracle: &O,
    lower_values: bool,
    ctx: &Context<'_, u8>,
) -> Result<Vec<u8>, OracleError>
where
    O: Oracle<u8> + ?Sized,
    u8: Hash,
{
    let mut bytes = input;
    let units = units(&bytes);
    fill_runs(&mut bytes, &units, lower_values, oracle, ctx)?;
    if lower_values {
        lower_bytes(&mut bytes, &units, oracle, ctx)?;
    }
    Ok(bytes)
}

/// The units of `bytes`: each stretch of more than [`LONG_RUN`] equal
/// bytes, and every other byte on its own.
fn units(bytes: &[u8]) -> Vec<Range<usize>> {
    let mut units = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        let len = bytes[start..]
            .iter()
            .take_while(|&&b| b == bytes[start])
            .count();
        if len > LONG_RUN {
            units.push(start..start + len);
        } else {
            units.extend((start..start + len).map(|i| i..i + 1));
        }
        start += len;
    }
    units
}

/// Replaces runs of units with [`FILL`] (`raise`: every byte of them, else
/// those above it), all units first, then halves, quarters… down to single
/// units (the last granularity is their number, which need not be a power
/// of two). Each granularity is one sweep: a round of all its runs, the
/// lowest interesting one applied, the next round resuming after it.
fn fill_runs<O: Oracle<u8> + ?Sized>(
    bytes: &mut [u8],
    units: &[Range<usize>],
    raise: bool,
    oracle: &O,
    ctx: &Context<'_, u8>,
) -> Result<(), OracleError> {
    let filled = |b: u8| if raise { FILL } else { b.min(FILL) };
    let mut n = 1;
    while n <= units.len() {
        // Each run with its filled bytes, made once a granularity: applying
        // one run leaves the others' bytes as they were.
        let mut chunks: Vec<(Range<usize>, Vec<u8>)> = split::balanced(units.len(), n)
            .into_iter()
            .map(|c| units[c.start].start..units[c.end - 1].end)
            .map(|c| {
                let fill: Vec<u8> = bytes[c.clone()].iter().map(|&b| filled(b)).collect();
                (c, fill)
            })
            .filter(|(c, fill)| bytes[c.clone()] != fill[..])
            .collect();
        while !chunks.is_empty() && ctx.limits.stop_reason().is_none() {
            let current: &[u8] = bytes;
            let found = ctx.first_interesting(oracle, chunks.len(), &|i| {
                Candidate::spliced(current, chunks[i].0.clone(), &chunks[i].1)
            })?;
            let Some(i) = found else { break };
            let (run, fill) = &chunks[i];
            bytes[run.clone()].copy_from_slice(fill);
            chunks.drain(..=i);
        }
        if n == units.len() {
            break;
        }
        n = (n * 2).min(units.len());
    }
    Ok(())
}

/// Gives each unit that is not [`FILL`] the lowest value that still fails.
fn lower_bytes<O: Oracle<u8> + ?Sized>(
    bytes: &mut [u8],
    units: &[Range<usize>],
    oracle: &O,
    ctx: &Context<'_, u8>,
) -> Result<(), OracleError> {
    for unit in units {
        let value = bytes[unit.start];
        if value == FILL {
            continue;
        }
        // Invariant: `hi` (the unit's current value) is interesting. The
        // value just below goes first: when it does not fail (a magic byte,
        // an opcode) the bisection would only confirm that in 8 tests.
        let (mut lo, mut hi) = (0u8, value);
        let mut probe = hi.saturating_sub(1);
        while lo < hi && ctx.limits.stop_reason().is_none() {
            if fails_with(bytes, unit, probe, oracle, ctx)? {
                hi = probe;
            } else if probe == hi - 1 {
                break;
            } else {
                lo = probe + 1;
            }
            probe = lo + (hi - lo) / 2;
        }
        bytes[unit.clone()].fill(hi);
    }
    Ok(())
}

/// Whether `bytes` with `unit` set to `value` is interesting.
fn fails_with<O: Oracle<u8> + ?Sized>(
    bytes: &[u8],
    unit: &Range<usize>,
    value: u8,
    oracle: &O,
    ctx: &Context<'_, u8>,
) -> Result<bool, OracleError> {
    let values = vec![value; unit.len()];
    ctx.is_interesting(oracle, &|| Candidate::spliced(bytes, unit.clone(), &values))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Reducer;

    fn run(input: &[u8], oracle: &(dyn Fn(&[u8]) -> bool + Sync)) -> (Vec<u8>, u64) {
        run_with(input, true, oracle)
    }

    fn run_with(
        input: &[u8],
        lower_values: bool,
        oracle: &(dyn Fn(&[u8]) -> bool + Sync),
    ) -> (Vec<u8>, u64) {
        let run = Reducer::new();
        let test = |c: &Candidate<'_, u8>| oracle(&c.to_vec());
        (
            canonicalize(input.to_vec(), &test, lower_values, &run.context()).unwrap(),
            run.tests(),
        )
    }

    #[test]
    fn irrelevant_bytes_become_zero_characters() {
        let (out, _) = run(b"RX\x07junk", &|b| b.starts_with(b"RX"));
        assert_eq!(out, b"RX00000");
    }

    /// Five bytes: the runs go 5, 3+2, 2+1+1+1, then single bytes, so a
    /// lone irrelevant byte between two needed ones becomes `0` without
    /// lowering values.
    #[test]
    fn runs_reach_single_bytes_when_the_length_is_not_a_power_of_two() {
        let (out, _) = run_with(b"AxBCD", false, &|b| b[0] == b'A' && b[2..] == *b"BCD");
        assert_eq!(out, b"A0BCD");
    }

    /// Without lowering (out of memory), filling never raises a byte: the
    /// zero bytes of a typed input's integer stay zero.
    #[test]
    fn without_lowering_bytes_below_the_fill_stay() {
        let (out, _) = run_with(b"RX\x00\x07junk", false, &|b| b.starts_with(b"RX"));
        assert_eq!(out, b"RX\x00\x070000");
    }

    #[test]
    fn a_size_byte_drops_to_the_smallest_failing_value() {
        // Fails when byte 2 is above 100 ("0", 48, is not enough).
        let (out, tests) = run(b"RX\xf0abc", &|b| b.starts_with(b"RX") && b[2] > 100);
        assert_eq!(out, b"RX\x65000");
        assert!(tests < 40, "{tests}");
    }

    #[test]
    fn values_stay_unless_lowering_is_asked_for() {
        let (out, _) = run_with(b"RX\xf0abc", false, &|b| b.starts_with(b"RX") && b[2] > 100);
        assert_eq!(out, b"RX\xf0000");
    }

    #[test]
    fn values_are_lowered_even_below_the_fill_character() {
        let (out, _) = run(&[0x20, 0x90], &|b| {
            (0x10..0x30).contains(&b[0]) && b[1] > 0x80
        });
        assert_eq!(out, [0x10, 0x81]);
    }

    /// A long stretch of equal bytes is filled and lowered whole: one test
    /// each when every byte of it is needed (as the `[` of a nesting
    /// overflow are), not one per byte.
    #[test]
    fn a_long_run_is_one_unit() {
        let input = [b"x".as_slice(), &b"[".repeat(80), b"y"].concat();
        let deep = |b: &[u8]| b.iter().filter(|&&c| c == b'[').count() >= 80;
        let (out, tests) = run(&input, &deep);
        assert_eq!(out, [b"0".as_slice(), &b"[".repeat(80), b"0"].concat());
        assert!(tests <= 8, "{tests} tests");
        assert_eq!(units(b"ab"), vec![0..1, 1..2]);
        assert_eq!(units(&b"a".repeat(65)), vec![Range { start: 0, end: 65 }]);
        assert_eq!(units(&b"a".repeat(64)).len(), 64, "a short run is bytes");
    }
}
