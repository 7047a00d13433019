"""The committed record of one benchmark run: bench/results/<name>-<date>.json.

Every benchmark script under bench/ starts a `Run` before it measures and
calls `Run.write` at the end, so each results file says which commit it
measured, on which machine, under what load and when; `bench/tables`
regenerates the markdown tables from these files. `curve` turns
cargo-reduce's JSON messages into its best size over time, for a results
file to keep.
"""

import datetime
import json
import os
import platform
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "bench", "results")


def _git(*args):
    out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else None


def uncommitted_changes():
    """Whether cargo-reduce/ has uncommitted changes: they change what is measured, so the
    results file says so (`dirty`) and bench/tables refuses it."""
    return bool(_git("status", "--porcelain", "--", "cargo-reduce"))


def curve(stream, input=None):
    """The best-so-far curve of one reduction in a captured `--message-format json` stream:
    `[[seconds, bytes, tokens or None, tests], ...]` from its `reduction-progress` messages
    (docs/output.md), in order; seconds since the reduction started, tokens for a syntax-aware
    reduction only. A reduction that found nothing smaller has an empty curve.

    `stream` is the captured text, or its lines, or the messages already parsed (dicts); lines
    that are not JSON objects (a tool's other output) are skipped. `input` picks one reduction
    of a stream that holds several (as `reduction-started` names it); without it the stream
    must hold one."""
    if isinstance(stream, str):
        stream = stream.splitlines()
    messages = []
    for item in stream:
        if isinstance(item, str):
            if not item.startswith("{"):
                continue
            try:
                item = json.loads(item)
            except ValueError:
                continue
        if item.get("reason") == "reduction-progress":
            messages.append(item)
    inputs = {m["input"] for m in messages}
    if input is None and len(inputs) > 1:
        raise ValueError("the stream holds the reductions of %s: say which" % sorted(inputs))
    return [[m["elapsed_s"], m["bytes"], m["tokens"], m["tests_run"]]
            for m in messages if input is None or m["input"] == input]


def candidate_paths(stem):
    """`bench/results/<stem>.json`, then `<stem>-2.json`, `-3`…: a second run
    on the same day gets the next name rather than replacing the first (an
    earlier run is data too)."""
    yield os.path.join(RESULTS, stem + ".json")
    n = 2
    while True:
        yield os.path.join(RESULTS, "%s-%d.json" % (stem, n))
        n += 1


def unused_path(stem):
    """The first of `candidate_paths(stem)` not taken."""
    return next(p for p in candidate_paths(stem) if not os.path.exists(p))


class Run:
    """Notes the start (time, load, commit); `write` adds the end and the data."""

    def __init__(self, name):
        self.name = name
        self.started = datetime.datetime.now(datetime.timezone.utc)
        self.load_at_start = list(os.getloadavg())
        self.commit = _git("rev-parse", "HEAD")
        self.dirty = uncommitted_changes()

    def write(self, results, **fields):
        """Writes `results` and `fields` beside the run's metadata; returns the path.

        A second run on the same day gets `-2`, `-3`… rather than replacing
        the first (an earlier run is data too)."""
        record = {
            "benchmark": self.name,
            "date": self.started.isoformat(timespec="seconds"),
            "finished": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "commit": self.commit,
            "dirty": self.dirty,
            "machine": {
                "host": platform.node(),
                "cpus": os.cpu_count(),
                "platform": platform.platform(),
                "load_at_start": self.load_at_start,
                "load_at_end": list(os.getloadavg()),
            },
        }
        record.update(fields)
        record["results"] = results
        # Serialized before a name is reserved, so that only the write can fail after it.
        text = json.dumps(record, indent=1, ensure_ascii=False) + "\n"
        os.makedirs(RESULTS, exist_ok=True)
        stem = "%s-%s" % (self.name, self.started.date().isoformat())
        # O_EXCL reserves the name: two benchmarks ending at once never
        # take the same one.
        for path in candidate_paths(stem):
            try:
                os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                break
            except FileExistsError:
                continue
        tmp = path + ".tmp"
        try:
            with open(tmp, "w") as f:
                f.write(text)
            os.replace(tmp, path)
        except BaseException:
            # No empty reserved file left behind for bench/tables to choke on.
            for leftover in (tmp, path):
                if os.path.exists(leftover):
                    os.remove(leftover)
            raise
        return path
