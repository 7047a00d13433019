#!/usr/bin/env bash
# Interesting iff oracle.py finds "(<number>)" in the candidate.
[ -n "${BENCH_COUNT_FILE:-}" ] && echo >> "$BENCH_COUNT_FILE"
exec "${BENCH_PYTHON:-python3}" -I -S "$(dirname "$0")/oracle.py" "$1"
