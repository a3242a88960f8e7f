"""Runs a lite ``Graph``: plan every node once per input shape, then call the kernels.

Memory is planned like MindSpore Lite's allocator: every intermediate tensor whose kernel
can write into a given array (``out=``) gets a slice of one arena, placed first-fit at
the lowest offset not used by a tensor alive at the same time, so a model runs in a
fixed working set however many times it is called. Graph outputs get their own arrays
(the caller reads them after ``predict``); the other kernels allocate as they do eagerly.
"""

from __future__ import annotations

import numpy as np

from ms_lite.ir import Graph
from ms_lite.runtime.ops import spec, step
from ms_ops.dispatch import kernel_observer

__all__ = ["Executor", "plan_arena"]

_ALIGN = 64


def plan_arena(sizes: list[int], lifetimes: list[tuple[int, int]]) -> tuple[list[int], int]:
    """First-fit offsets for buffers of ``sizes`` bytes alive over ``[first, last]`` steps;
    buffers whose lifetimes overlap never overlap in memory. Returns (offsets, arena size).

    >>> plan_arena([100, 100, 100], [(0, 1), (1, 2), (2, 3)])
    ([0, 128, 0], 256)
    """
    order = sorted(range(len(sizes)), key=lambda i: -sizes[i])
    placed: list[tuple[int, int, int, int]] = []  # offset, end, first, last
    offsets = [0] * len(sizes)
    for i in order:
        size = -(-sizes[i] // _ALIGN) * _ALIGN
        first, last = lifetimes[i]
        busy = sorted((o, e) for o, e, f, la in placed if not (la < first or f > last))
        offset = 0
        for o, e in busy:
            if offset + size <= o:
                break
            offset = max(offset, e)
        offsets[i] = offset
        placed.append((offset, offset + size, first, last))
    return offsets, max((e for _, e, _, _ in placed), default=0)


class Executor:
    """The planned form of a graph for one set of input shapes."""

    def __init__(self, graph: Graph, input_shapes: list[tuple] | None = None):
        self.graph = graph
        shapes = input_shapes or [v.shape for v in graph.inputs]
        specs = {v.name: spec(s, v.dtype) for v, s in zip(graph.inputs, shapes)}
        specs.update({n: spec(c.shape, c.dtype) for n, c in graph.constants.items()})
        self.steps = []
        # A node of constants only (fp16 or int8 weights cast back to float32) runs once
        # here, as MindSpore Lite dequantizes weights when it builds a model.
        self.constants = dict(graph.constants)
        for node in graph.nodes:
            s = step(node, [specs[i] if i else None for i in node.inputs])
            for name, o in zip(node.outputs, s.outputs):
                specs[name] = o
            if all(not i or i in self.constants for i in node.inputs):
                self._precompute(s)
            else:
                self.steps.append(s)
        self.specs = specs
        self.input_specs = [specs[v.name] for v in graph.inputs]
        self.output_specs = [specs[v.name] for v in graph.outputs]
        self._plan_memory()

    def _precompute(self, s) -> None:
        args = [self.constants[i] if i else None for i in s.node.inputs]
        args = [a if c is None or a is None else a.astype(c) for a, c in zip(args, s.casts)]
        r = s.kernel(*args, **s.kwargs)
        for name, o, a in zip(s.node.outputs, s.outputs, r if isinstance(r, tuple) else (r,)):
            self.constants[name] = np.asarray(a, o.dtype.np)

    def _plan_memory(self) -> None:
        # A kernel without ``out=`` may return a view of its input (Reshape): such an
        # output keeps the arena slices it may view alive for as long as it is used.
        outputs = {v.name for v in self.graph.outputs}
        end = len(self.steps)
        views: dict[str, set] = {}
        last_use: dict[str, int] = {}
        pooled, sizes = [], []
        for k, s in enumerate(self.steps):
            for i in s.node.inputs:
                for root in views.get(i, ()):
                    last_use[root] = k
            if s.takes_out and s.node.outputs[0] not in outputs:
                name = s.node.outputs[0]
                views[name] = {name}
                last_use[name] = k
                o = s.outputs[0]
                pooled.append((k, name, o))
                sizes.append(int(np.prod(o.shape, dtype=np.int64)) * o.dtype.np.itemsize)
            elif not s.takes_out:
                roots = set().union(*(views.get(i, set()) for i in s.node.inputs if i))
                for name in s.node.outputs:
                    views[name] = roots
        for name in outputs:
            for root in views.get(name, ()):
                last_use[root] = end
        lifetimes = [(k, last_use[name]) for k, name, _ in pooled]
        offsets, total = plan_arena(sizes, lifetimes)
        self.arena_bytes = total
        self.unplanned_bytes = sum(sizes)
        self._layout = [(k, off, n, o) for (k, _, o), off, n in zip(pooled, offsets, sizes)]
        self._out = None

    def run_all(self, inputs: list[np.ndarray]) -> dict[str, np.ndarray]:
        """Every tensor of one run by name (copies: calibration reads them all)."""
        return self.run(inputs, keep_all=True)

    def run(self, inputs: list[np.ndarray], threads: int = 0, keep_all: bool = False):
        """Outputs for ``inputs`` (arrays of the planned shapes and dtypes); ``threads``
        goes to the kernels that take it (0: their default)."""
        if self._out is None:  # the arena, made on the first run (Model.predict runs a Plan)
            self.arena = np.empty(self.arena_bytes, np.uint8)
            self._out = {k: self.arena[off:off + n].view(o.dtype.np).reshape(o.shape)
                         for k, off, n, o in self._layout}
        env = dict(self.constants)
        for v, a in zip(self.graph.inputs, inputs):
            env[v.name] = a
        observer = kernel_observer()  # a profiler (ms_ops.dispatch.set_kernel_observer)
        for k, s in enumerate(self.steps):
            kernel = s.kernel if observer is None else observer(s.node.op, s.kernel)
            args = []
            for name, c in zip(s.node.inputs, s.casts):
                a = env[name] if name else None
                args.append(a if c is None else a.astype(c))
            if s.takes_out:
                o = s.outputs[0]
                out = self._out.get(k)
                if out is None:
                    out = np.empty(o.shape, o.dtype.np)
                r = kernel(*args, out=out, **s.kwargs)
            elif s.threaded:
                r = kernel(*args, threads=threads, **s.kwargs)
            else:
                r = kernel(*args, **s.kwargs)
            rs = r if isinstance(r, tuple) else (r,)
            for name, o, a in zip(s.node.outputs, s.outputs, rs):
                if type(a) is not np.ndarray or a.dtype != o.dtype.np:
                    a = np.asarray(a, o.dtype.np)
                env[name] = a.copy() if keep_all else a
        if keep_all:
            return env
        return [env[v.name] for v in self.graph.outputs]
