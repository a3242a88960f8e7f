"""New input shapes for a model (``Model.resize``).

Shapes flow through inference again, except where the graph holds a shape as data: a
traced ``x.reshape((x.shape[0], -1))`` stored its batch size as a number. MindSpore Lite
resolves this with shape operators; here a ``Reshape`` whose target starts with the
batch size of its own input (the leading dimension) follows that dimension.
"""

from __future__ import annotations

import copy

from ms_lite.ir import Graph

__all__ = ["resized"]


def resized(graph: Graph, shapes: list[tuple]) -> Graph:
    """``graph`` with ``Reshape`` targets adapted to a new leading dimension."""
    if len(shapes) != len(graph.inputs):
        raise ValueError(f"model {graph.name!r} has {len(graph.inputs)} inputs, got "
                         f"{len(shapes)} shapes")
    for v, s in zip(graph.inputs, shapes):
        if len(s) != len(v.shape):
            raise ValueError(f"input {v.name!r} has rank {len(v.shape)}; cannot resize it "
                             f"to {tuple(s)}")
    from ms_lite.runtime.executor import Executor

    old_shapes = {k: v.shape for k, v in Executor(graph).specs.items()}
    out = copy.copy(graph)
    out.nodes = list(graph.nodes)
    new_batch = {v.name: s[0] for v, s in zip(graph.inputs, shapes) if len(s)}
    old_batch = {v.name: v.shape[0] for v in graph.inputs if len(v.shape)}
    for k, node in enumerate(out.nodes):
        if node.op != "Reshape" or "input_shape" not in node.attrs:
            continue
        target = tuple(node.attrs["input_shape"])
        src = old_shapes.get(node.inputs[0], ())
        old = src[0] if src else None
        batch = _follows(src, old_batch, new_batch)
        if target and old is not None and target[0] == old and batch is not None:
            node = copy.copy(node)
            node.attrs = dict(node.attrs, input_shape=(batch,) + target[1:])
            out.nodes[k] = node
    return out


def _follows(shape: tuple, old_batch: dict, new_batch: dict):
    """The new leading dimension of a tensor of ``shape`` if it is a graph input's batch."""
    for inp, old in old_batch.items():
        if shape and shape[0] == old:
            return new_batch[inp]
    return None
