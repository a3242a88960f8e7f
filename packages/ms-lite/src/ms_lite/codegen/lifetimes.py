"""Tensor lifetimes from a schedule: the step that writes each tensor and the last that reads it.

Graph inputs are written before the first step (step 0 here, the operators being steps
1..n) and graph outputs stay live after the last one (step n + 1), so ``net_get_output``
reads them after ``net_run``.
"""

from __future__ import annotations

from ms_lite.codegen.planner import Buffer

__all__ = ["Step", "lifetimes", "inplace_candidates"]


class Step:
    """One scheduled operator: the tensors it reads and writes, and whether it may write
    its output over its first input (elementwise and reshape-like operators)."""

    __slots__ = ("inputs", "outputs", "inplace")

    def __init__(self, inputs, outputs, inplace: bool = False):
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        self.inplace = inplace


def lifetimes(steps, sizes: dict[str, int], graph_inputs=(), graph_outputs=()) -> list[Buffer]:
    """Buffers for every tensor in ``sizes`` (constants left out by the caller).

    >>> [ (b.name, b.start, b.end) for b in lifetimes(
    ...     [Step(["x"], ["h"]), Step(["h"], ["y"])], {"x": 4, "h": 4, "y": 4}, ["x"], ["y"])]
    [('x', 0, 1), ('h', 1, 2), ('y', 2, 3)]
    """
    start: dict[str, int] = {n: 0 for n in graph_inputs if n in sizes}
    end: dict[str, int] = dict(start)
    for i, step in enumerate(steps, 1):
        for n in step.outputs:
            if n in sizes:
                if n in start:
                    raise ValueError(f"tensor {n!r} is written twice (steps {start[n]} "
                                     f"and {i}); a schedule writes each tensor once")
                start[n] = end[n] = i
        for n in step.inputs:
            if n in sizes:
                if n not in start:
                    raise ValueError(f"step {i} reads tensor {n!r} before any step writes it")
                end[n] = max(end[n], i)
    last = len(steps) + 1
    for n in graph_outputs:
        if n in end:
            end[n] = last
    return [Buffer(n, sizes[n], start[n], end[n]) for n in start]


def inplace_candidates(steps, buffers: list[Buffer], keep=()) -> dict[str, str]:
    """``{output: input}`` for in-place steps whose first input dies there, fits the output
    and is not in ``keep`` (graph inputs, so that ``net_run`` can run again)."""
    by = {b.name: b for b in buffers}
    taken: set[str] = set()
    aliases = {}
    for i, step in enumerate(steps, 1):
        if not (step.inplace and step.inputs and len(step.outputs) == 1):
            continue
        src, out = step.inputs[0], step.outputs[0]
        if src in keep or src in taken or src not in by or out not in by:
            continue
        if by[src].end == i and by[out].size <= by[src].size \
                and step.inputs.count(src) == 1:
            aliases[out] = src
            taken.add(src)
    return aliases
