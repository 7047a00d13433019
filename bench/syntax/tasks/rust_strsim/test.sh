#!/usr/bin/env bash
# Interesting iff rustc reports the planted E0277 in generic_jaro_winkler
# (`0.1 * prefix_length`, a usize, with its `as f64` gone) with its own
# message.
[ -n "${BENCH_COUNT_FILE:-}" ] && echo >> "$BENCH_COUNT_FILE"
timeout 20 rustc --edition 2021 --crate-type lib --emit metadata --out-dir "$(dirname "$1")" "$1" 2>&1 </dev/null |
  grep -qF 'cannot multiply `{float}` by `usize`'
