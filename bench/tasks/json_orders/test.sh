#!/usr/bin/env bash
# Interesting iff the document still parses as JSON and computing the line
# totals still dies with
#   TypeError: can't multiply sequence by non-int of type 'float'
[ -n "${BENCH_COUNT_FILE:-}" ] && echo >> "$BENCH_COUNT_FILE"
out=$(timeout 5 "${BENCH_PYTHON:-python3}" -I -S -c '
import json, sys
with open(sys.argv[1]) as f:
    doc = json.load(f)
for order in doc["orders"]:
    for item in order["items"]:
        item["total"] = item["qty"] * item["unit_price"]
' "$1" 2>&1 >/dev/null </dev/null)
[ "${out##*$'\n'}" = "TypeError: can't multiply sequence by non-int of type 'float'" ]
