"""Calibration: run the float model on the calibration samples and keep every tensor's
observed [min, max] (MindSpore Lite's MAX_MIN activation method)."""

from __future__ import annotations

import numpy as np

from ms_lite.ir import Graph
from ms_lite.runtime.executor import Executor
from ms_lite.runtime.shapes import resized

__all__ = ["calibrate"]


def calibrate(graph: Graph, samples: list[list[np.ndarray]]) -> dict[str, tuple[float, float]]:
    """``{tensor name: (min, max)}`` over ``samples`` (each one list of model inputs)."""
    ranges: dict[str, list[float]] = {}
    execs: dict[tuple, Executor] = {}
    for inputs in samples:
        key = tuple(a.shape for a in inputs)
        ex = execs.get(key)
        if ex is None:
            same = list(key) == [v.shape for v in graph.inputs]
            ex = execs[key] = Executor(graph if same else resized(graph, list(key)), list(key))
        for name, a in ex.run_all(inputs).items():
            if a is None or a.dtype.kind != "f" or a.size == 0:
                continue
            lo, hi = float(a.min()), float(a.max())
            r = ranges.get(name)
            ranges[name] = [lo, hi] if r is None else [min(r[0], lo), max(r[1], hi)]
    return {k: (v[0], v[1]) for k, v in ranges.items()}
