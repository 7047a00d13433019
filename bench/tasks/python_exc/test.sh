#!/usr/bin/env bash
# Interesting iff the Python program still dies with exactly
#   ValueError: invalid literal for int() with base 10: '30s'
# as the last line of its stderr (i.e. the uncaught exception).
[ -n "${BENCH_COUNT_FILE:-}" ] && echo >> "$BENCH_COUNT_FILE"
ulimit -v 1000000
out=$(timeout 5 "${BENCH_PYTHON:-python3}" -I -S "$1" 2>&1 >/dev/null </dev/null)
[ "${out##*$'\n'}" = "ValueError: invalid literal for int() with base 10: '30s'" ]
