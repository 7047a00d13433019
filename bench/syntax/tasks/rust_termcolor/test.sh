#!/usr/bin/env bash
# Interesting iff rustc reports the planted E0308 in ColorSpec's
# parse_number (`u8::from_str_radix(&s[2..], 16)`, its `.ok()` gone, returns
# the Result where the Option is due) with its own message.
[ -n "${BENCH_COUNT_FILE:-}" ] && echo >> "$BENCH_COUNT_FILE"
timeout 20 rustc --edition 2021 --crate-type lib --emit metadata --out-dir "$(dirname "$1")" "$1" 2>&1 </dev/null |
  grep -qF 'expected `Option<u8>`, found `Result<u8, ParseIntError>`'
