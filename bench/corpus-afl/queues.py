"""The AFL++ queues of bench/corpus-afl/: which afl.rs crates, at which
commits, fuzzed how; where their sources, builds and queues live.

`make-queues` makes them (real `cargo afl fuzz` campaigns, outside the
repository); `run` minimizes them with `cargo reduce corpus` and `cargo afl
cmin`. A public crate is checked out at its pinned commit from a local
mirror (bench/corpus/corpora.py's `export`); the bundled crate is copied, and
its queues are the committed ones of corpus/afl/out/ (real campaigns too).
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "corpus"))
from corpora import checkout  # noqa: E402,F401  (re-exported for make-queues and run)

DEFAULT_WORK = os.path.join(os.environ.get("TMPDIR", "/tmp"), "cargo-reduce-bench-corpus-afl")

# AFL++ in a container: no CPU governor to check, no terminal UI, and a
# core_pattern that may be a pipe.
AFL_ENV = dict(AFL_SKIP_CPUFREQ="1", AFL_NO_UI="1", AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES="1")

# `features` and `profile` are the crate's own documented `cargo afl build`
# (parse-changelog's fuzz/parse.rs: `--release --features afl`, seeds in
# seeds/parse); `seconds` of one `cargo afl fuzz` instance per target.
QUEUES = [
    dict(name="demo", repo=None, commit=None, fuzz_dir="fuzz-targets-afl", features=[], profile="debug",
         targets=None, committed="corpus/afl/out"),
    dict(name="parse-changelog", repo="taiki-e/parse-changelog", commit="455ef2007d11a7292738b7ee70df2444b175c036",
         fuzz_dir="fuzz", features=["afl"], profile="release", targets=["parse"], seeds="seeds/parse",
         seconds=300),
    # A queue of 20,000+ inputs, as a user gets one by seeding AFL++ with a
    # corpus libFuzzer made: the same target's own libFuzzer build (its
    # documented `cargo fuzz run --features libfuzzer parse`), `runs`
    # campaigns (seeds 1..runs) of `seconds`, every input kept (value
    # profiling, -reduce_inputs=0), merged, then one AFL++ campaign seeded
    # with all of them (AFL++ keeps every seed in its queue).
    dict(name="parse-changelog-seeded", repo="taiki-e/parse-changelog",
         commit="455ef2007d11a7292738b7ee70df2444b175c036", fuzz_dir="fuzz", features=["afl"], profile="release",
         targets=["parse"], seeds="seeds/parse", seconds=60,
         grown_by=dict(features=["libfuzzer"], runs=10, seconds=150,
                       options=["-use_value_profile=1", "-reduce_inputs=0"])),
]


def crate_dir(work, queue):
    return os.path.join(checkout(work, queue), queue["fuzz_dir"])


def afl_out(work, queue):
    """The `-o` parent: `<afl_out>/<target>/<instance>/queue/`, as `cargo reduce --afl-out` reads it."""
    return os.path.join(work, "queues", queue["name"])


def binary(work, queue, target):
    return os.path.join(crate_dir(work, queue), "target", queue["profile"], target)


def afl_build(queue):
    """The crate's `cargo afl build` command line."""
    return (["cargo", "afl", "build", "--locked"] + (["--release"] if queue["profile"] == "release" else [])
            + (["--features", ",".join(queue["features"])] if queue["features"] else []))


def manifest_path(work):
    return os.path.join(work, "queues", "manifest.json")
