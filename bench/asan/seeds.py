#!/usr/bin/env python3
"""Writes the seed inputs from which `cargo fuzz run` found the artifacts of
cargo-reduce/tests-fixtures/asan-demo: large valid inputs (many records,
a long program), so that the first crash found is large too.

Usage: seeds.py DIR  (writes DIR/overflow/seed* and DIR/dangling/seed*)"""
import random
import sys
from pathlib import Path

out = Path(sys.argv[1])
r = random.Random(7)
(out / "overflow").mkdir(parents=True, exist_ok=True)
(out / "dangling").mkdir(parents=True, exist_ok=True)
for n in range(4):
    records = []
    for _ in range(12):
        k = r.randint(2, 8)
        words = bytes(r.randint(32, 126) for _ in range(4 * k))
        records.append(b"S" + bytes([k - r.randint(0, 1)]) + words)
    (out / "overflow" / f"seed{n}").write_bytes(b"\n".join(records))
for n in range(4):
    program = bytearray(b"f" + bytes([r.randint(48, 57)]))
    for _ in range(240):
        program += bytes([r.choice(b"abcdeghijk"), r.randint(48, 122)])
    (out / "dangling" / f"seed{n}").write_bytes(bytes(program))
