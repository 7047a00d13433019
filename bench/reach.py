"""The best-so-far curves of a results file, for bench/tables: how soon cargo-reduce reached each
peer's final size (issue 53's speed figure), and a plot of every tool's curve per task.

`runs(prefix, data)` reads the curves of one results file of the benchmarks that keep them
(fuzz, asan, realworld, afl, syntax, ice) into one shape: a `Run` per tool, task and repeat, its
curve's seconds counted from the start of its whole command (cargo-reduce's from its reduction's
start plus `curve_started_s`). A file recorded before the curves has none: its table is left as
it was.

`reach_cell` is the table's cell, `plot` the figure (matplotlib, optional: bench/tables says so
and goes on without it), `plot_name` its file under bench/results/plots/.
"""

import collections
import io
import re

import curves  # bench/curves.py

class Run(collections.namedtuple("Run", "task tool variant repeat whole_s final curve primary")):
    """`final`: the result's size, {1: bytes, 2: tokens} (as curve points index them); `primary`:
    the cargo-reduce run the table compares with the peers (its first -j, syntax's `best`)."""

    @property
    def label(self):
        return ("%s %s" % (self.tool, self.variant)).strip()


def _num(v):
    return float(v) if v not in ("", None) else None


def _shifted(curve, started):
    """A cargo-reduce curve in seconds since its command started; None when the start is
    unknown (no whole-command time can be told)."""
    if started is None:
        return None
    return [[round(p[0] + started, 3)] + list(p[1:]) for p in curve]


def _final(nbytes, ntokens=None):
    return {1: int(nbytes) if nbytes not in ("", None) else None,
            2: int(ntokens) if ntokens not in ("", None) else None}


def _fuzz_rows(data, task_key):
    """fuzz and realworld: one row per tool, task and repeat."""
    rows = [r for r in data.get("results") or [] if "curve" in r and r.get("kind", "reduction") == "reduction"]
    jobs = sorted({int(r["jobs"]) for r in rows if r["tool"] == "cargo-reduce"})
    out = []
    for r in rows:
        mine = r["tool"] == "cargo-reduce"
        curve = _shifted(r["curve"], r.get("curve_started_s")) if mine else r["curve"]
        if curve is None:
            continue
        variant = "-j%s" % r["jobs"] if mine else r.get("variant", "")
        out.append(Run(r[task_key], r["tool"], variant, int(r["repeat"]), _num(r["wall_s"]),
                       _final(r["output_bytes"]), curve, mine and int(r["jobs"]) == jobs[0]))
    return out


def _asan_rows(data):
    out = []
    for r in data.get("results") or []:
        task = "%s/%s" % (r["target"], r["artifact"][:14])
        t, c = r["tmin"], r["cargo_reduce"]
        if "curve" not in t or "curve" not in c:
            continue
        out.append(Run(task, "cargo fuzz tmin", "-s address", r["repeat"], t["whole_s"],
                       _final(t["bytes"]), t["curve"], False))
        curve = _shifted(c["curve"], c.get("curve_started_s"))
        if curve is not None:
            out.append(Run(task, "cargo-reduce", "--sanitizer address", r["repeat"], c["whole_s"],
                           _final(c["bytes"]), curve, True))
    return out


def _afl_rows(data):
    out = []
    for r in data.get("results") or []:
        task = r["input"] + (" (hang)" if r.get("hang") else "")
        for i, run in enumerate(r.get("runs") or [], 1):
            t, c = run["tmin"], run["cargo_reduce"]
            out.append(Run(task, "afl-tmin", "", i, t["whole_s"], _final(t["bytes"]), t["curve"], False))
            curve = _shifted(c["curve"], c.get("curve_started_s"))
            if curve is not None:
                out.append(Run(task, "cargo-reduce", "-j1", i, c["whole_s"], _final(c["bytes"]),
                               curve, True))
    return out


def _text_rows(data, task_key, primary_variant):
    """syntax and ice: one row per task and tool (a tool may be run alone: its own file)."""
    out = []
    for r in data.get("results") or []:
        if r.get("out_bytes") in ("", None):
            continue
        mine = r["tool"] == "cargo-reduce"
        if "curve" not in r:
            # A peer whose size is not polled (cargo-minimize edits its project) still has a
            # final size and a whole time to be reached by, if it finished.
            if mine or r.get("rc") != 0 or r.get("capped"):
                continue
            r = dict(r, curve=[])
        curve = _shifted(r["curve"], r.get("curve_started_s")) if mine else r["curve"]
        if curve is None:
            continue
        variant = r.get("variant") or ""
        out.append(Run(r[task_key], r["tool"], variant, 1, _num(r["wall_s"]),
                       _final(r["out_bytes"], r.get("out_tokens")), curve,
                       mine and variant == primary_variant))
    return out


def runs(prefix, data):
    """Every curve of a results file (`prefix`: its benchmark, as its name starts) as `Run`s;
    [] for a file without curves."""
    if prefix in ("fuzz", "realworld"):
        return _fuzz_rows(data, "target" if prefix == "fuzz" else "case")
    if prefix == "asan":
        return _asan_rows(data)
    if prefix == "afl":
        return _afl_rows(data)
    if prefix == "syntax":
        return _text_rows(data, "task", "best")
    if prefix.startswith("ice"):
        return _text_rows(data, "case", "")
    return []


def reach_cell(all_runs, task, peer_tool, peer_variant=None, index=1):
    """`cargo-reduce reached <peer>'s size in`: over the repeats of `task` that ran both (the peer
    `peer_tool`, with `peer_variant` unless None), the
    median time cargo-reduce's whole command took to be at or below the peer's final size
    (`index` 1: bytes, 2: tokens) and the median of its ratio to the peer's whole time; None
    when no repeat has both curves.

    >>> rs = [Run("t", "cargo-reduce", "-j1", 1, 2.0, {1: 5}, [[0.5, 50], [1.0, 8], [1.5, 5]], True),
    ...       Run("t", "tmin", "", 1, 10.0, {1: 8}, [[0.2, 60], [9.0, 8]], False),
    ...       Run("t", "cargo-reduce", "-j1", 2, 2.0, {1: 5}, [[0.5, 50], [3.0, 5]], True),
    ...       Run("t", "tmin", "", 2, 20.0, {1: 8}, [[0.2, 60], [9.0, 8]], False)]
    >>> reach_cell(rs, "t", "tmin")
    '2.00 s (0.12×)'
    >>> reach_cell(rs, "t", "tmin", index=2) is None, reach_cell(rs, "u", "tmin") is None
    (True, True)
    >>> reach_cell(rs[:2] + [rs[2]._replace(curve=[[0.5, 50]]), rs[3]], "t", "tmin")
    '1.00 s (0.10×); not reached in 1 of 2'
    """
    mine = {r.repeat: r for r in all_runs if r.task == task and r.primary}
    pairs = []
    for peer in (r for r in all_runs if r.task == task and r.tool == peer_tool
                 and peer_variant in (None, r.variant)):
        cr = mine.get(peer.repeat)
        if cr is None or peer.final.get(index) is None or not any(p[index] is not None for p in cr.curve):
            continue
        pairs.append((curves.time_to_reach(cr.curve, peer.final[index], index), peer.whole_s))
    if not pairs:
        return None
    reached = [(t, whole) for t, whole in pairs if t is not None]
    if not reached:
        return "not reached"
    cell = curves.reach_cell(_median([t for t, _ in reached]), None)
    ratios = [t / whole for t, whole in reached if whole]
    if ratios:
        cell += " (%.2f×)" % _median(ratios)
    if len(reached) < len(pairs):
        cell += "; not reached in %d of %d" % (len(pairs) - len(reached), len(pairs))
    return cell


def _median(values):
    values = sorted(values)
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def plot(all_runs, task, title):
    """The SVG text of `task`'s curves: best size over time, one line per tool (the first
    repeat), log-scale y (tokens when every line counts them, else bytes), time since the
    command started on x, each line to the end of its command. None when matplotlib is not
    installed."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("svg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    # The same data gives the same file: no date, fixed ids.
    plt.rcParams["svg.hashsalt"] = "cargo-reduce"
    lines = {}
    for r in sorted((r for r in all_runs if r.task == task), key=lambda r: (r.repeat, r.tool != "cargo-reduce", r.label)):
        lines.setdefault(r.label, r)
    index = 2 if all(any(p[2] is not None for p in r.curve) for r in lines.values() if r.curve) else 1
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for label, r in lines.items():
        pts = [(p[0], p[index]) for p in r.curve if p[index]]
        if not pts:
            continue
        xs = [x for x, _ in pts] + ([r.whole_s] if r.whole_s and r.whole_s > pts[-1][0] else [])
        ys = [y for _, y in pts] + ([pts[-1][1]] if len(xs) > len(pts) else [])
        ax.step(xs, ys, where="post", label=label)
    ax.set_yscale("log")
    plain = matplotlib.ticker.FuncFormatter(lambda v, _: "%g" % v)
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(plain)
    ax.set_xlabel("seconds since the command started")
    ax.set_ylabel("best size so far (%s)" % ("tokens" if index == 2 else "bytes"))
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    svg = io.StringIO()
    fig.savefig(svg, format="svg", metadata={"Date": None})
    plt.close(fig)
    return svg.getvalue()


def plot_name(stem, task):
    """bench/results/plots/<results-stem>-<task>.svg, the task's name made a file name.

    >>> plot_name("fuzz-2026-12-02", "typed_query"), plot_name("afl-2026-12-02", "a/b/id:0 (hang)")
    ('fuzz-2026-12-02-typed_query.svg', 'afl-2026-12-02-a_b_id_0_hang.svg')
    """
    return "%s-%s.svg" % (stem, re.sub(r"[^A-Za-z0-9._+-]+", "_", task).strip("_"))
