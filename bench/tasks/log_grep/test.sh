#!/usr/bin/env bash
# Interesting iff grep still finds, in this order (later lines/positions):
#   1. ERROR [db] connection pool exhausted
#   2. retry 3/3 for POST|PUT /v1/orders/<digits>
#   3. FATAL [<service>] shutting down
[ -n "${BENCH_COUNT_FILE:-}" ] && echo >> "$BENCH_COUNT_FILE"
matches=$(LC_ALL=C grep -oE 'ERROR \[db\] connection pool exhausted|retry 3/3 for (POST|PUT) /v1/orders/[0-9]+|FATAL \[[a-z]+\] shutting down' "$1") || exit 1
state=0
while IFS= read -r m; do
  case "$state:$m" in
    "0:ERROR "*) state=1 ;;
    "1:retry "*) state=2 ;;
    "2:FATAL "*) exit 0 ;;
  esac
done <<<"$matches"
exit 1
