#!/usr/bin/env python3
"""Runs picire (PyPI `picire`, its command-line interface) on one file and
reports tests run, wall time and output size as one JSON object.

    picire_run.py [--atom char|line|both] [-j N] [-o OUT] TEST INPUT
    picire_run.py --all TEST INPUT      # char and both, at -j1 and -j2

-j 1 runs picire's sequential DD; -j N > 1 runs its parallel DD (`-p -j N`).
picire's defaults are kept otherwise: subsets before complements, the
`config` outcome cache, zeller split, DD repeated until a fixed point.

picire does not report how many tests it ran, so the test script counts its
own executions: the task scripts of this benchmark append one line to
$BENCH_COUNT_FILE per run.  If BENCH_COUNT_FILE is set (bench/run sets it)
the lines picire's run added to it are counted; otherwise a temporary
counter file is used.
picire never tests the unreduced input, only the assert test at the start of
each DD iteration (`r<N>_assert`), which its cache answers after the first.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

PICIRE = [sys.executable, "-m", "picire"]


def run(test, inp, atom, jobs, output=None):
    test = os.path.abspath(test)
    with tempfile.TemporaryDirectory(prefix="picire-run-") as tmp:
        counter = os.environ.get("BENCH_COUNT_FILE") or os.path.join(tmp, "count")
        open(counter, "a").close()
        with open(counter) as f:
            before = sum(1 for _ in f)
        outdir = os.path.join(tmp, "out")
        cmd = PICIRE + ["-i", inp, "--test", test, "--atom", atom, "--encoding", "utf-8",
                        "-o", outdir, "-l", "WARNING"]
        if jobs > 1:
            cmd += ["-p", "-j", str(jobs)]
        env = dict(os.environ, BENCH_COUNT_FILE=counter)
        t0 = time.monotonic()
        proc = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        elapsed = time.monotonic() - t0
        if proc.returncode != 0:
            sys.stderr.write(proc.stderr)
            raise SystemExit("picire failed with exit status %d" % proc.returncode)
        with open(counter) as f:
            tests = sum(1 for _ in f) - before
        result = os.path.join(outdir, os.path.basename(inp))
        out = output or "%s.picire-%s-j%d" % (inp, atom, jobs)
        shutil.copyfile(result, out)
    return {"tool": "picire", "atom": atom, "jobs": jobs, "tests": tests,
            "input_bytes": os.path.getsize(inp), "output_bytes": os.path.getsize(out),
            "output": out, "elapsed_s": round(elapsed, 3)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--atom", choices=["char", "line", "both"], default="char")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("-o", "--output")
    ap.add_argument("--all", action="store_true", help="run char and both at -j1 and -j2")
    ap.add_argument("test")
    ap.add_argument("input")
    args = ap.parse_args()
    inp = os.path.abspath(args.input)
    if args.all:
        for atom in ("char", "both"):
            for jobs in (1, 2):
                print(json.dumps(run(args.test, inp, atom, jobs)), flush=True)
    else:
        print(json.dumps(run(args.test, inp, args.atom, args.jobs, args.output)))


if __name__ == "__main__":
    main()
