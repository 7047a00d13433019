#!/usr/bin/env bash
# Interesting iff rustc reports the planted E0308 in ScopeGuard::into_inner
# (`ptr::read(&guard.value)`, its `*` gone, reads the ManuallyDrop<T>) with
# its own message.
[ -n "${BENCH_COUNT_FILE:-}" ] && echo >> "$BENCH_COUNT_FILE"
timeout 20 rustc --edition 2021 --crate-type lib --emit metadata --out-dir "$(dirname "$1")" "$1" 2>&1 </dev/null |
  grep -qF 'expected type parameter `T`, found `ManuallyDrop<T>`'
