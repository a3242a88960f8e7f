"""``Profiler``: MindSpore's profiler API over a kernel observer (see the package doc)."""

from __future__ import annotations

import os
import threading
import time

from ms_insight.profiler.report import Report

__all__ = ["Profiler"]

_active_lock = threading.Lock()
_active: list = []  # the running Profiler, if any (one at a time per process)


class Profiler:
    """Time every operator kernel between ``start()`` and ``stop()``.

    Args:
        output_path: where ``analyse()`` writes ``profiler/op_statistics.csv``,
            ``profiler/op_table.txt`` and ``profiler/trace.json``.
        start_profile: start at once (MindSpore's default); False: call ``start()``.
        **kwargs: MindSpore's device options (``profile_memory``, ``aicore_metrics``,
            ...) are accepted and have no effect on the CPU.

    >>> import tempfile, numpy as np
    >>> from ms_tensor import Tensor
    >>> profiler = Profiler(output_path=tempfile.mkdtemp())
    >>> y = Tensor(np.ones(3)) + Tensor(np.ones(3))
    >>> [(s.op, s.calls) for s in profiler.analyse().stats]
    [('Add', 1)]
    """

    def __init__(self, output_path: str = "./data", start_profile: bool = True, **kwargs):
        self._output = os.fspath(output_path)
        self._events: list = []  # (op, start_ns, duration_ns, thread id)
        self._steps: list = []  # (start_ns, end_ns) of each step() interval
        self._t0 = None
        self._wall_ns = 0
        self._running = False
        self._previous = None
        if start_profile:
            self.start()

    def start(self) -> None:
        """Begin timing kernels (RuntimeError if another profiler runs)."""
        from ms_ops import dispatch

        with _active_lock:
            if self._running:
                raise RuntimeError("Profiler.start: this profiler is already running")
            if _active:
                raise RuntimeError("Profiler.start: another Profiler is running in this "
                                   "process; stop it first")
            _active.append(self)
            self._running = True
        self._t0 = self._step_t = time.perf_counter_ns()
        self._previous = dispatch.set_kernel_observer(self._observe)

    def stop(self) -> None:
        """Stop timing; the events so far are kept for ``analyse``."""
        from ms_ops import dispatch

        if not self._running:
            return
        dispatch.set_kernel_observer(self._previous)
        self._wall_ns += time.perf_counter_ns() - self._t0
        with _active_lock:
            _active.remove(self)
            self._running = False

    def step(self) -> None:
        """Mark the end of a training step (the trace shows each step as a span)."""
        now = time.perf_counter_ns()
        self._steps.append((self._step_t, now))
        self._step_t = now

    def _observe(self, name: str, kernel):
        events = self._events
        clock = time.perf_counter_ns
        ident = threading.get_ident

        def timed(*args, **kwargs):
            t = clock()
            try:
                return kernel(*args, **kwargs)
            finally:
                events.append((name, t, clock() - t, ident()))
        return timed

    def analyse(self, offline_path=None, pretty: bool = False) -> Report:
        """Stop, then write the table and the trace under ``output_path/profiler`` and
        return the ``Report`` (``print(report)`` shows the table)."""
        self.stop()
        report = Report(list(self._events), self._wall_ns, list(self._steps), self._t0)
        report.write(os.path.join(self._output, "profiler"))
        return report

    def op_analyse(self, op_name, device_id=None) -> str:
        """MindSpore's per-operator query: JSON ``{name: {calls, total_us, mean_us, share,
        wall_share}}`` for ``op_name`` (a name or a list of names) from the events so far.

        Raises:
            ValueError: an operator that did not run while profiling (the message lists
                those that did).
        """
        import json

        names = [op_name] if isinstance(op_name, str) else list(op_name)
        report = Report(list(self._events), self._wall_ns or 1, list(self._steps), self._t0)
        stats = {s.op: s for s in report.stats}
        missing = [n for n in names if n not in stats]
        if missing:
            raise ValueError(f"Profiler.op_analyse: {missing} did not run while profiling; "
                             f"profiled operators: {sorted(stats)}")
        return json.dumps({n: {k: v for k, v in stats[n]._asdict().items() if k != "op"}
                           for n in names})

    def __enter__(self) -> Profiler:
        if not self._running:
            self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
