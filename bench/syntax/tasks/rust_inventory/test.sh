#!/usr/bin/env bash
# Interesting iff rustc reports the planted E0308 with its own message
# (the oracle of corpus/examples/rustc-e0308.sh). Build products go to the
# candidate's private directory.
[ -n "${BENCH_COUNT_FILE:-}" ] && echo >> "$BENCH_COUNT_FILE"
timeout 20 rustc --edition 2021 --crate-type lib --emit metadata --out-dir "$(dirname "$1")" "$1" 2>&1 </dev/null |
  grep -qF 'expected `u64`, found `usize`'
