#!/usr/bin/env python3
"""Runs The Fuzzing Book's DeltaDebuggingReducer (PyPI package `fuzzingbook`,
`fuzzingbook.Reducer.DeltaDebuggingReducer`, used as published) on a file,
with an external interestingness test.

    fuzzingbook_dd.py [--unit char|line|line+char] [-o OUT] TEST INPUT

TEST is run once per candidate as `TEST <candidate path>`; exit status 0 means
interesting (the reducer's Runner.FAIL).  The reducer works on a Python
sequence: a str for --unit char, a tuple of lines (keeping their line ends) for
--unit line; line+char runs a line pass then a char pass on its result, like
picire's `--atom both`.

Prints one JSON object on stdout: tool, unit, tests (the sum of the reducers'
own `.tests` counters, which include each pass's initial assert test; cached
candidates are not counted), input/output bytes, elapsed_s.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from fuzzingbook.Fuzzer import Runner
from fuzzingbook.Reducer import DeltaDebuggingReducer


class ExternalTestRunner(Runner):
    """Writes the candidate to a file and runs the test script on it."""

    def __init__(self, test, workdir, filename, joiner):
        self.test = test
        self.path = os.path.join(workdir, filename)
        self.joiner = joiner

    def run(self, inp):
        with open(self.path, "w", encoding="utf-8", newline="") as f:
            f.write(self.joiner(inp))
        rc = subprocess.run([self.test, self.path], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        return inp, (Runner.FAIL if rc == 0 else Runner.PASS)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--unit", choices=["char", "line", "line+char"], default="char")
    ap.add_argument("-o", "--output")
    ap.add_argument("test")
    ap.add_argument("input")
    args = ap.parse_args()

    test = os.path.abspath(args.test)
    with open(args.input, encoding="utf-8", newline="") as f:
        text = f.read()
    t0 = time.monotonic()
    tests = 0
    with tempfile.TemporaryDirectory(prefix="fuzzingbook-dd-") as tmp:
        name = os.path.basename(args.input)
        for unit in (["line", "char"] if args.unit == "line+char" else [args.unit]):
            if unit == "line":
                runner = ExternalTestRunner(test, tmp, name, "".join)
                reducer = DeltaDebuggingReducer(runner)
                text = "".join(reducer.reduce(tuple(text.splitlines(keepends=True))))
            else:
                runner = ExternalTestRunner(test, tmp, name, lambda s: s)
                reducer = DeltaDebuggingReducer(runner)
                text = reducer.reduce(text)
            tests += reducer.tests
    elapsed = time.monotonic() - t0
    out = args.output or args.input + ".fuzzingbook"
    with open(out, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    json.dump({"tool": "fuzzingbook-dd", "unit": args.unit, "tests": tests,
               "input_bytes": os.path.getsize(args.input),
               "output_bytes": len(text.encode("utf-8")), "output": out,
               "elapsed_s": round(elapsed, 3)}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
