"""Best-so-far curves of the peers, and the time cargo-reduce took to reach a peer's size.

A curve is a list of points `[seconds, bytes, tokens or None, tests or None]`, in order, as
bench/record.py's `curve` gives cargo-reduce's (whose seconds count from its reduction's start;
a script keeps that start within the whole command beside it). The peers' curves come from
here, their seconds since the peer's command started:

- `SizePoller`: C-Vise and shrinkray write their best result to the file they reduce as they
  go; a thread stats it every 0.1 s and reads it only when its size or mtime changed;
- `tmin_curve`, `afl_tmin_curve` and `treereduce_curve`: `cargo fuzz tmin`, afl-tmin and
  treereduce print the size of each step or improvement; their lines, timestamped as they
  arrive (`LineReader`), give the curve (treereduce 0.4.1 writes its output only at its end,
  so its file tells nothing before; its lines count bytes, not tokens).

`time_to_reach` is the speed figure of issue 53: when (within the whole command) cargo-reduce's
best result was first at or below a peer's final size.

Only the standard library: bench/tables imports this and needs nothing else.
"""

import json
import os
import re
import threading
import time

POLL_S = 0.1


class SizePoller:
    """Polls the size (and the token count, if `count_tokens` is given) of the file `path` from
    a thread, every POLL_S seconds, from `t0` (a time.monotonic() value: the command's start).

    A change counts once it is seen unchanged on the next poll too, with the time it was first
    seen: a tool that truncates the file and then writes it is never caught half-way. `stop`
    polls once more (the last result stands when the tool has exited) and returns the curve:
    one point per change of the file's size or tokens."""

    def __init__(self, path, t0, count_tokens=None):
        self.path, self.t0, self.count_tokens = path, t0, count_tokens
        self.points = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._seen = None       # (mtime_ns, size) of the last poll
        self._since = None      # when it was first seen
        self._taken = None      # the (mtime_ns, size) last recorded
        self._thread.start()

    def _stat(self):
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size)

    def _record(self, key, at):
        if key == self._taken:
            return
        self._taken = key
        tokens = None
        if self.count_tokens is not None:
            try:
                with open(self.path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
            except OSError:
                return
            if self._stat() != key:
                return  # changed while read: the next polls see it again
            tokens = self.count_tokens(text)
        last = self.points[-1] if self.points else None
        if last is None or last[1] != key[1] or last[2] != tokens:
            self.points.append([round(at, 3), key[1], tokens, None])

    def _poll(self, final=False):
        now = time.monotonic() - self.t0
        key = self._stat()
        if key is None:
            self._seen = None
            return
        if key != self._seen:
            self._seen, self._since = key, now
            if not final:
                return
        self._record(key, self._since)

    def _run(self):
        while not self._done.wait(POLL_S):
            self._poll()

    def stop(self):
        self._done.set()
        self._thread.join()
        self._poll(final=True)
        return self.points


class LineReader:
    """Reads a process's output (a text pipe) line by line from a thread, each line with the
    seconds since `t0` at which it arrived; `join` returns [(seconds, line)], newlines kept."""

    def __init__(self, pipe, t0):
        self.lines = []
        self._thread = threading.Thread(target=self._run, args=(pipe, t0), daemon=True)
        self._thread.start()

    def _run(self, pipe, t0):
        for line in pipe:
            self.lines.append((time.monotonic() - t0, line))

    def wait(self, timeout=None):
        """Whether the output ended (every writer closed it) within `timeout` seconds."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def join(self):
        self._thread.join()
        return self.lines


def cargo_reduce_curve(timed_lines):
    """cargo-reduce's curve (bench/record.py's `curve`) of the last reduction of a
    `--message-format json` stream timestamped as it arrived [(seconds, line)], and when (seconds
    since the command started) that reduction started: {"curve", "curve_started_s"}; an empty
    curve and None without a reduction.

    >>> cargo_reduce_curve([(0.25, '{"reason":"reduction-started","input":"a.rs"}'),
    ...                     (0.5, '{"reason":"reduction-progress","input":"a.rs","bytes":9,'
    ...                           '"tokens":3,"tests_run":2,"elapsed_s":0.2}'),
    ...                     (0.75, 'warning: a line that is not JSON')])
    {'curve': [[0.2, 9, 3, 2]], 'curve_started_s': 0.25}
    """
    import record  # bench/record.py, beside this file
    last, started = None, None
    for t, line in timed_lines:
        if line.startswith('{"reason":"reduction-started"'):
            last, started = json.loads(line).get("input"), t
    return {"curve": record.curve([l for _, l in timed_lines], input=last),
            "curve_started_s": None if started is None else round(started, 3)}


RE_ANSI = re.compile(r"\x1b\[[0-9;]*m")
RE_TMIN_STEP = re.compile(r"^CRASH_MIN: minimizing crash input: '.*' \((\d+) bytes\)")


def tmin_curve(timed_lines):
    """`cargo fuzz tmin`'s curve from its log lines [(seconds, line)]: libFuzzer's
    -minimize_crash=1 starts each step with the input that crashed last, and its size.

    >>> tmin_curve([(0.5, "INFO: Seed: 1"),
    ...             (1.25, "CRASH_MIN: minimizing crash input: 'crash-a' (40 bytes)"),
    ...             (2.5, "CRASH_MIN: minimizing crash input: '/tmp/x' (12 bytes)"),
    ...             (3.0, "CRASH_MIN: minimizing crash input: '/tmp/x' (12 bytes)")])
    [[1.25, 40, None, None], [2.5, 12, None, None]]
    """
    return _sizes(timed_lines, [RE_TMIN_STEP])


RE_AFL_SIZES = (
    re.compile(r"Read (\d+) bytes? from "),
    re.compile(r"Block length = \d+, remaining size = (\d+)"),
    re.compile(r"File size reduced by : [\d.]+% \(to (\d+) bytes?\)"),
)


def afl_tmin_curve(timed_lines):
    """afl-tmin's curve from its output lines [(seconds, line)]: the size it read, the size
    left at each block length of its block deletion, and the size it ends with (AFL++'s
    afl-tmin.c prints no other size).

    >>> afl_tmin_curve([(0.1, "[+] Read 1024 bytes from 'in'."),
    ...                 (0.2, "\\x1b[1;90m    Block length = 64, remaining size = 1024\\x1b[0m"),
    ...                 (0.9, "    Block length = 32, remaining size = 96"),
    ...                 (1.5, "     File size reduced by : 96.00% (to 41 bytes)")])
    [[0.1, 1024, None, None], [0.9, 96, None, None], [1.5, 41, None, None]]
    """
    return _sizes(timed_lines, RE_AFL_SIZES)


RE_TREEREDUCE_SIZE = re.compile(r"\b(?:Original size|Reduced to size): (\d+)")


def treereduce_curve(timed_lines):
    """treereduce's curve (bytes) from its log lines [(seconds, line)]: the size each pass starts
    from, and each improvement's.

    >>> treereduce_curve([(0.01, "\x1b[32mINFO\x1b[0m] Starting pass 1 / 2"),
    ...                   (0.02, "\x1b[32mINFO\x1b[0m] Original size: 988"),
    ...                   (0.5, "\x1b[32mINFO\x1b[0m] Reduced to size: 708 \x1b[3mid\x1b[0m=23"),
    ...                   (4.0, "\x1b[32mINFO\x1b[0m] Original size: 708"),
    ...                   (6.6, "Start size : 988 bytes")])
    [[0.02, 988, None, None], [0.5, 708, None, None]]
    """
    return _sizes(timed_lines, [RE_TREEREDUCE_SIZE])


def _sizes(timed_lines, patterns):
    """The curve of the sizes (each pattern's first group) that the lines print, colours
    stripped; a size that repeats the last one is no new point."""
    points = []
    for t, line in timed_lines:
        line = RE_ANSI.sub("", line)
        for pattern in patterns:
            m = pattern.search(line)
            if m and (not points or points[-1][1] != int(m.group(1))):
                points.append([round(t, 3), int(m.group(1)), None, None])
    return points


def time_to_reach(curve, size, index=1, offset=0.0):
    """The first time (plus `offset`, where the curve's seconds start within the whole command)
    at which `curve` is at or below `size` (bytes: index 1; tokens: index 2); None when it
    never is.

    >>> c = [[0.5, 100, 30, 4], [1.0, 40, 12, 9], [2.0, 10, 3, 20]]
    >>> time_to_reach(c, 40), time_to_reach(c, 41, offset=2.0), time_to_reach(c, 3, index=2)
    (1.0, 3.0, 2.0)
    >>> time_to_reach(c, 9) is None, time_to_reach([], 5) is None
    (True, True)
    """
    for point in curve:
        if point[index] is not None and point[index] <= size:
            return point[0] + offset
    return None


def reach_cell(seconds, peer_whole_s):
    """The table cell: seconds to reach the peer's size and its ratio to the peer's whole time.

    >>> reach_cell(1.5, 12.0), reach_cell(None, 12.0), reach_cell(0.04, None)
    ('1.50 s (0.12×)', 'not reached', '40 ms')
    """
    if seconds is None:
        return "not reached"
    text = "%.0f ms" % (seconds * 1000) if seconds < 0.1 else "%.2f s" % seconds
    if peer_whole_s:
        text += " (%.2f×)" % (seconds / peer_whole_s)
    return text
