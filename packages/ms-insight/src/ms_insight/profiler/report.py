"""What ``Profiler.analyse`` gives: per-operator statistics, a text table, a Chrome trace."""

from __future__ import annotations

import csv
import json
import os
import threading
from typing import NamedTuple

__all__ = ["OpStat", "Report"]


class OpStat(NamedTuple):
    """One operator's kernel time: ``share`` of all kernel time, ``wall_share`` of the
    profiled wall time (how much of the steps the operator's kernels are)."""
    op: str
    calls: int
    total_us: float
    mean_us: float
    share: float
    wall_share: float


class Report:
    """The result of a profile: ``stats`` (slowest total first), ``table()``,
    ``chrome_trace()``, ``write(directory)``."""

    def __init__(self, events, wall_ns: int, steps=(), t0: int | None = None):
        self.events = events
        self.wall_us = wall_ns / 1e3
        self.steps = list(steps)
        self._t0 = t0 if t0 is not None else min((e[1] for e in events), default=0)
        totals: dict[str, list] = {}
        for op, _, dur, _ in events:
            t = totals.setdefault(op, [0, 0])
            t[0] += 1
            t[1] += dur
        kernel_ns = sum(t[1] for t in totals.values()) or 1
        wall = wall_ns or 1
        self.stats = sorted(
            (OpStat(op, n, ns / 1e3, ns / 1e3 / n, ns / kernel_ns, ns / wall)
             for op, (n, ns) in totals.items()), key=lambda s: (-s.total_us, s.op))
        self.kernel_us = sum(s.total_us for s in self.stats)

    def table(self) -> str:
        """The per-operator table as text."""
        head = f"{'operator':<24}{'calls':>8}{'total (us)':>14}{'mean (us)':>12}" \
               f"{'share':>8}{'of wall':>9}"
        lines = [head, "-" * len(head)]
        for s in self.stats:
            lines.append(f"{s.op:<24}{s.calls:>8}{s.total_us:>14.1f}{s.mean_us:>12.2f}"
                         f"{s.share:>8.1%}{s.wall_share:>9.1%}")
        lines.append(f"kernels {self.kernel_us:.1f} us of {self.wall_us:.1f} us profiled "
                     f"({len(self.events)} calls, {len(self.steps)} steps marked)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def chrome_trace(self) -> dict:
        """The Trace Event Format (``chrome://tracing``, https://ui.perfetto.dev): one
        complete ("X") event per kernel call and per marked step, in microseconds."""
        pid = os.getpid()
        # Integer thread ids, as Perfetto's JSON importer wants: 0 the marked steps, 1 the
        # main thread, then other threads in order of their first kernel.
        tids = {threading.main_thread().ident: 1}
        for _, _, _, ident in self.events:
            tids.setdefault(ident, len(tids) + 1)
        # Metadata events carry ts 0, tid 0 and cat "__metadata" as Chrome's own traces do,
        # so every event has the keys ph/ts/pid/tid/name (tests/test_trace_format.py)
        def meta(name, tid, label):
            return {"name": name, "cat": "__metadata", "ph": "M", "ts": 0, "pid": pid,
                    "tid": tid, "args": {"name": label}}

        events = [meta("process_name", 0, "microspore"), meta("thread_name", 0, "steps")]
        events += [meta("thread_name", t, "main" if t == 1 else f"thread {t}")
                   for t in tids.values()]
        for k, (start, end) in enumerate(self.steps):
            events.append({"name": f"step {k + 1}", "cat": "step", "ph": "X", "pid": pid,
                           "tid": 0, "ts": (start - self._t0) / 1e3,
                           "dur": (end - start) / 1e3})
        for op, start, dur, ident in self.events:
            events.append({"name": op, "cat": "kernel", "ph": "X", "pid": pid,
                           "tid": tids[ident], "ts": (start - self._t0) / 1e3,
                           "dur": dur / 1e3})
        return {"traceEvents": events, "displayTimeUnit": "ms"}

    def write(self, directory) -> None:
        """``op_statistics.csv``, ``op_table.txt`` and ``trace.json`` in ``directory``."""
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, "op_statistics.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(OpStat._fields)
            w.writerows(self.stats)
        with open(os.path.join(directory, "op_table.txt"), "w") as f:
            f.write(self.table() + "\n")
        with open(os.path.join(directory, "trace.json"), "w") as f:
            json.dump(self.chrome_trace(), f)
