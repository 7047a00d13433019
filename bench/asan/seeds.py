#!/usr/bin/env python3
"""Writes the seed inputs from which `cargo fuzz run` found the artifacts of
cargo-reduce/tests-fixtures/asan-demo: large valid inputs (many records,
a long program), so that the first crash found is large too.

Usage: seeds.py DIR  (writes DIR/<target>/seed* for overflow, dangling, cycle)"""
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
# cycle: nodes and links (`l` links forward only, but by index modulo the
# node count, so some links close a cycle), with a few unknown commands.
r = random.Random(11)
(out / "cycle").mkdir(parents=True, exist_ok=True)
for n in range(4):
    program = bytearray()
    for _ in range(150):
        c = r.random()
        if c < 0.5:
            program += b"n" + bytes([r.randint(48, 122)]) + b"."
        elif c < 0.9:
            a = r.randint(0, 100)
            program += b"l" + bytes([a, a + r.randint(1, 100)])
        else:
            program += bytes([r.choice(b"abcxyz"), r.randint(48, 122), r.randint(48, 122)])
    (out / "cycle" / f"seed{n}").write_bytes(bytes(program))
