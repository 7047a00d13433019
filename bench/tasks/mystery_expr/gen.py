#!/usr/bin/env python3
"""Generates input.txt (deterministic): a random arithmetic expression of a few
hundred characters in which every parenthesised group holds an operator,
except for one group that holds a lone number (the "failure")."""
import random

rng = random.Random(1729)


def num():
    n = str(rng.randint(0, 999))
    return n + "." + str(rng.randint(0, 99)) if rng.random() < 0.2 else n


def expr(depth):
    if depth <= 0 or rng.random() < 0.25:
        return num()
    op = rng.choice(["+", "-", "*", "/"])
    lhs, rhs = expr(depth - 1), expr(depth - 1)
    e = "%s %s %s" % (lhs, op, rhs)
    return "(%s)" % e if rng.random() < 0.45 else e


while True:
    parts = [expr(5) for _ in range(6)]
    parts.insert(4, "-(%s)" % num())
    s = " + ".join(parts)
    if 350 <= len(s) <= 450:
        break
with open("input.txt", "w") as f:
    f.write(s + "\n")
