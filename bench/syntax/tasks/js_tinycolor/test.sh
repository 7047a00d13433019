#!/usr/bin/env bash
# Interesting iff node dies with (as the last line of its error report)
#   TypeError: color.replace is not a function
[ -n "${BENCH_COUNT_FILE:-}" ] && echo >> "$BENCH_COUNT_FILE"
# NODE_EXTRA_CA_CERTS makes every node start-up parse a CA bundle (~50 ms).
unset NODE_EXTRA_CA_CERTS NODE_OPTIONS
timeout 5 node --max-old-space-size=128 "$1" 2>&1 >/dev/null </dev/null |
  grep -qxF "TypeError: color.replace is not a function"
