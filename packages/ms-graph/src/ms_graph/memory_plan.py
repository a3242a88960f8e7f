"""Static memory planning: intermediates whose lifetimes do not overlap share one buffer.

``plan_memory(graph, writes_out)`` looks at the values produced by the nodes for which
``writes_out(node)`` is true (the executor can hand their kernel an ``out=`` array) and
assigns each a byte buffer, greedily and best-fit in definition order: a buffer is free
again once the last node that may read its contents has run.

What the contents of a buffer may be read through is decided conservatively: the output
of any other node (a Reshape, a Transpose, a slice, a control-flow node, an in-place
update returning its target) may be a view of any of its inputs, so it keeps their
buffers alive for as long as it lives. A value that a graph output may alias, or that an
in-place operator writes into, gets no buffer: the caller keeps its outputs across runs,
and a buffer is overwritten by the next run.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from ms_graph import ir

__all__ = ["MemoryPlan", "plan_memory"]


class MemoryPlan:
    """Which buffer each planned value lives in.

    Attributes:
        values: the planned values, in definition order.
        buffer_nbytes: the size of each buffer.
        naive_nbytes: the bytes the planned values take with one allocation each.
    """

    def __init__(self, values, buffer_of, buffer_nbytes, naive_nbytes):
        self.values = values
        self._buffer_of = buffer_of
        self.buffer_nbytes = buffer_nbytes
        self.naive_nbytes = naive_nbytes

    @property
    def planned_nbytes(self) -> int:
        """The bytes all buffers take together: the plan's peak."""
        return sum(self.buffer_nbytes)

    def buffer(self, value: ir.Value) -> int | None:
        """The index of ``value``'s buffer, or None where it is not planned."""
        return self._buffer_of.get(id(value))

    def allocate(self) -> list[np.ndarray]:
        """A fresh set of buffers (bytes), one per planned buffer."""
        return [np.empty(n, np.uint8) for n in self.buffer_nbytes]

    def view(self, buffers: list[np.ndarray], value: ir.Value) -> np.ndarray:
        """``value``'s array inside its buffer (of ``buffers``, from ``allocate``)."""
        dtype = np.dtype(value.spec.dtype.np)
        nbytes = _nbytes(value.spec)
        return buffers[self._buffer_of[id(value)]][:nbytes].view(dtype).reshape(
            value.spec.shape)

    def report(self) -> str:
        return (f"{len(self.values)} intermediates ({_mb(self.naive_nbytes)} one by one) in "
                f"{len(self.buffer_nbytes)} buffers ({_mb(self.planned_nbytes)})")

    def __repr__(self) -> str:
        return f"<MemoryPlan {self.report()}>"


def plan_memory(graph: ir.Graph, writes_out, min_nbytes: int = 1) -> MemoryPlan:
    """Plan buffers for the outputs of the nodes of ``graph`` where ``writes_out(node)``
    (nodes with one output, whose kernel can fill a given array) that take at least
    ``min_nbytes``; see the module doc."""
    candidates, last, pinned = _lifetimes(graph, writes_out)
    planned = [(start, v) for start, v in candidates
               if id(v) not in pinned and _nbytes(v.spec) >= min_nbytes]
    buffer_of: dict[int, int] = {}
    sizes: list[int] = []
    free: list[int] = []
    busy: list[tuple[int, int]] = []  # (last step, buffer) heap
    for start, v in planned:
        while busy and busy[0][0] < start:
            free.append(heapq.heappop(busy)[1])
        b = _best_fit(free, sizes, _nbytes(v.spec))
        buffer_of[id(v)] = b
        heapq.heappush(busy, (last[id(v)], b))
    naive = sum(_nbytes(v.spec) for _, v in planned)
    return MemoryPlan([v for _, v in planned], buffer_of, sizes, naive)


def _lifetimes(graph, writes_out):
    """``(candidates, last, pinned)``: the ``(step, value)`` pairs that could get a buffer,
    the last step at which each one's contents may be read (directly or through a value
    that may alias it), and the ids of those that must not share memory."""
    candidates: list[tuple[int, ir.Value]] = []
    roots: dict[int, frozenset] = {}  # value -> the candidates its memory may belong to
    last: dict[int, int] = {}
    pinned: set[int] = set()
    for k, node in enumerate(graph.nodes):
        used = _uses(node)
        shared = frozenset().union(*(roots.get(id(v), ()) for v in used))
        for r in shared:
            last[r] = k
        if writes_out(node) and _static(node.outputs[0].spec):
            v = node.outputs[0]
            candidates.append((k, v))
            roots[id(v)] = frozenset((id(v),))
            last[id(v)] = k
        elif shared:
            for v in node.outputs:
                roots[id(v)] = shared
        if not isinstance(node.op, str):
            for i in node.op.written:
                arg = node.args[i]
                if isinstance(arg, ir.Value):
                    pinned.update(roots.get(id(arg), ()))
    for v in graph.outputs:
        pinned.update(roots.get(id(v), ()))
    return candidates, last, pinned


def _uses(node: ir.Node) -> list[ir.Value]:
    used = [a for a in node.args if isinstance(a, ir.Value)]
    for sub in node.subgraphs:
        used.extend(ir.captured(sub))
    return used


def _best_fit(free: list[int], sizes: list[int], nbytes: int) -> int:
    """Take the smallest free buffer that holds ``nbytes``, else grow the largest free
    one, else add a buffer; returns its index (removed from ``free``)."""
    fits = [b for b in free if sizes[b] >= nbytes]
    if fits:
        b = min(fits, key=lambda b: sizes[b])
    elif free:
        b = max(free, key=lambda b: sizes[b])
        sizes[b] = nbytes
    else:
        sizes.append(nbytes)
        return len(sizes) - 1
    free.remove(b)
    return b


def _static(spec) -> bool:
    return spec is not None and all(type(d) is int and d >= 0 for d in spec.shape)


def _nbytes(spec) -> int:
    return math.prod(spec.shape) * np.dtype(spec.dtype.np).itemsize


def _mb(n: int) -> str:
    return f"{n / 2**20:.2f} MiB"
