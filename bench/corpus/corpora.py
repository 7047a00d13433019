"""The benchmark corpora of bench/corpus/: which crates, at which commits,
fuzzed how; where they live; and how a corpus is identified.

`make-corpora` makes them (real `cargo fuzz run` campaigns, outside the
repository); `run` minimizes them with every tool. Nothing of the public
crates is committed: each is checked out at its pinned commit from a local
mirror of its repository (`--mirrors DIR`, one `<owner>+<name>/repo` git
directory per repository, as the workplace's mirror tool leaves them).
"""

import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_WORK = os.path.join(os.environ.get("TMPDIR", "/tmp"), "cargo-reduce-bench-corpus")
DEFAULT_MIRRORS = os.environ.get("CARGO_REDUCE_MIRRORS", "/work/.mirror")
CARGO_FUZZ_VERSION = "0.13.2"  # as bench/fuzz/run

# Fast parsers with their own cargo-fuzz targets. `runs` campaigns of
# `seconds` each (seeds 1..runs) are merged without minimization: the
# serde_json one (value profiling, and every input libFuzzer found kept
# rather than replaced by a smaller one: -reduce_inputs=0) is the corpus of
# 20,000+ inputs.
CORPORA = [
    dict(name="httparse", repo="seanmonstar/httparse", commit="ac44a38a6b3d1f2dde01c250f622def4aa89f5e0",
         fuzz_dir="fuzz", target="parse_request", runs=1, options=[]),
    dict(name="serde_json", repo="serde-rs/json", commit="827a315bf2198558f0325b07bcc1e2cd973aba2f",
         fuzz_dir="fuzz", target="from_slice", runs=13, options=["-use_value_profile=1", "-reduce_inputs=0"]),
    dict(name="url", repo="servo/rust-url", commit="25137be1fc1d35cc8ea7d43fc0a02166b023a483",
         fuzz_dir="url/fuzz", target="parse", runs=1, options=[]),
    dict(name="quick-xml", repo="tafia/quick-xml", commit="6242da0db105c4d78fd3e4218aa940e82a0cba57",
         fuzz_dir="fuzz", target="fuzz_target_1", runs=1, options=[]),
    # The bundled demo crate, seeded with its committed corpus/, as the
    # by-hand figures of docs/design/coverage.md were made (byte_parser has a
    # planted crash: -fork=1 -ignore_crashes=1 goes on past it).
    dict(name="demo-byte_parser", repo=None, commit=None, fuzz_dir="fuzz-targets", target="byte_parser",
         runs=1, options=["-fork=1", "-ignore_crashes=1"]),
    dict(name="demo-typed_query", repo=None, commit=None, fuzz_dir="fuzz-targets", target="typed_query",
         runs=1, options=["-fork=1", "-ignore_crashes=1"]),
]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def checkout(work, corpus):
    """The source directory of `corpus` under `work`: the bundled crate copied,
    or the repository checked out at its pinned commit from the mirror."""
    if corpus["repo"] is None:
        return os.path.join(work, "src", "demo")
    return os.path.join(work, "src", corpus["repo"].replace("/", "+"))


def export(work, mirrors, corpus):
    """The crate's source at its pinned commit (the demo crate: copied from this repository)."""
    dest = checkout(work, corpus)
    if corpus["repo"] is None:
        crate = os.path.join(dest, corpus["fuzz_dir"])
        if not os.path.isdir(crate):
            src = os.path.join(ROOT, corpus["fuzz_dir"])
            shutil.copytree(src, crate, ignore=shutil.ignore_patterns("target", "artifacts", "boa"))
        return dest
    git_dir = os.path.join(mirrors, corpus["repo"].replace("/", "+"), "repo")
    if not os.path.isdir(git_dir):
        sys.exit("error: no mirror of %s at %s (mirror it, or pass --mirrors DIR)" % (corpus["repo"], git_dir))
    if not os.path.isdir(dest):
        subprocess.run(["git", "clone", "-q", "--no-checkout", git_dir, dest], check=True)
    subprocess.run(["git", "-C", dest, "checkout", "-q", "--detach", corpus["commit"]], check=True)
    return dest


def fuzz_dir(work, corpus):
    return os.path.join(checkout(work, corpus), corpus["fuzz_dir"])


def cargo_fuzz(work, corpus, verb):
    """`cargo +nightly fuzz VERB`, run in the fuzz directory; the bundled crate is a fuzz
    directory without a package above it, so it is named (`--fuzz-dir`), as bench/fuzz/run does."""
    return ["cargo", "+nightly", "fuzz", verb] + (["--fuzz-dir", fuzz_dir(work, corpus)] if corpus["repo"] is None else [])


def corpus_dir(work, corpus):
    return os.path.join(work, "corpora", corpus["name"])


def manifest_path(work):
    return os.path.join(work, "corpora", "manifest.json")


def read_manifest(work):
    with open(manifest_path(work)) as f:
        return json.load(f)


def identify(directory):
    """Files, bytes and the SHA-1 of the sorted listing (one `<sha1 of the
    content> <bytes>` line per file) of a corpus directory: what makes a run
    identifiable without committing the corpus."""
    lines, total = [], 0
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if name.startswith(".") or not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        total += len(data)
        lines.append("%s %d\n" % (hashlib.sha1(data).hexdigest(), len(data)))
    lines.sort()
    return dict(files=len(lines), bytes=total, listing_sha1=hashlib.sha1("".join(lines).encode()).hexdigest())


def merge(dirs, dest):
    """Every file of `dirs` in `dest`, named by the SHA-1 of its content (no minimization)."""
    fresh_dir(dest)
    for d in dirs:
        for name in os.listdir(d):
            path = os.path.join(d, name)
            if name.startswith(".") or not os.path.isfile(path):
                continue
            with open(path, "rb") as f:
                data = f.read()
            target = os.path.join(dest, hashlib.sha1(data).hexdigest())
            if not os.path.exists(target):
                with open(target, "wb") as f:
                    f.write(data)


def tool_version(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True)
    except OSError:
        return None
    return (out.stdout or out.stderr).strip().splitlines()[0] if out.returncode == 0 else None


def ensure_cargo_fuzz():
    """cargo-fuzz at CARGO_FUZZ_VERSION, installed unless one is (then it is reused, its version noted)."""
    if tool_version(["cargo", "fuzz", "--version"]) is None:
        log("cargo-fuzz missing: cargo install cargo-fuzz --locked --version %s" % CARGO_FUZZ_VERSION)
        subprocess.run(["cargo", "install", "cargo-fuzz", "--locked", "--version", CARGO_FUZZ_VERSION], check=True)
    version = tool_version(["cargo", "fuzz", "--version"])
    if CARGO_FUZZ_VERSION not in version:
        log("WARNING: %s, the benchmark states %s" % (version, CARGO_FUZZ_VERSION))
    return version


def fresh_dir(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def record_made(manifest, made):
    """Adds `made` (by its name) to the JSON manifest at `manifest`, read again just before (another
    run with --only may have added its own meanwhile); written atomically."""
    found = {}
    if os.path.exists(manifest):
        with open(manifest) as f:
            found = json.load(f)
    found[made["name"]] = made
    tmp = manifest + ".tmp.%d" % os.getpid()
    with open(tmp, "w") as f:
        json.dump(found, f, indent=1)
    os.replace(tmp, manifest)


# Whole commands, timed: shared by bench/corpus/run and bench/corpus-afl/run.
CAP = 3600  # seconds: no command of this benchmark should come near it


def run(cmd, cwd, cap=CAP, env=None):
    """(returncode or 'cap', seconds, stdout+stderr text, 1-minute load before); `env`: variables
    added to this process's environment."""
    load = os.getloadavg()[0]
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=cap, env=dict(os.environ, **(env or {})))
        code, out = p.returncode, (p.stdout + p.stderr).decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        code, out = "cap", ((e.stdout or b"") + (e.stderr or b"")).decode("utf-8", "replace")
    return code, time.monotonic() - start, out, load


def checked(what, result):
    code, _, out, _ = result
    if code != 0:
        sys.exit("error: %s failed (%s):\n%s" % (what, code, out[-3000:]))
    return result


def ensure_cargo_reduce(args):
    if args.cargo_reduce:
        return os.path.abspath(args.cargo_reduce)
    exe = os.path.join(ROOT, "target", "release", "cargo-reduce")
    if not args.no_build:
        log("building cargo-reduce (cargo build --release --locked -p cargo-reduce)")
        subprocess.run(["cargo", "build", "--release", "--locked", "-p", "cargo-reduce"], cwd=ROOT, check=True)
    if not os.path.exists(exe):
        sys.exit("error: no %s (build it or pass --cargo-reduce PATH)" % exe)
    return exe


def cargo_reduce_message(text):
    """The `corpus-minimized` message of a `--message-format json` run."""
    for line in text.splitlines():
        if line.startswith("{") and '"corpus-minimized"' in line:
            return json.loads(line)
    return None


def cargo_reduce_phases(rounds, tool="cargo reduce corpus"):
    """Medians over the timed rounds of what cargo-reduce's own messages time: the build check
    (`build-finished`) and the replay and set cover (`corpus-minimized`); the rest of the whole
    command is its start (cargo metadata, discovery) and writing the set."""
    phases = {"build-finished": [], "corpus-minimized": []}
    for r in rounds:
        for line in r[tool][2].splitlines():
            if line.startswith("{"):
                m = json.loads(line)
                if m.get("reason") in phases:
                    phases[m["reason"]].append(m["elapsed_s"])
    median = (lambda xs: round(statistics.median(xs), 3) if xs else None)
    return dict(build_check_s=median(phases["build-finished"]), minimize_s=median(phases["corpus-minimized"]))


def timings(rounds, tool):
    secs = [r[tool][1] for r in rounds]
    return dict(seconds=[round(s, 3) for s in secs], load_1min=[round(r[tool][3], 2) for r in rounds],
                exit=[r[tool][0] for r in rounds], median_s=round(statistics.median(secs), 3),
                min_s=round(min(secs), 3), max_s=round(max(secs), 3))
