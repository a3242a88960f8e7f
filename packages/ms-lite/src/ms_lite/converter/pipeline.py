"""The conversion of a lite ``Graph``: the registered passes, then precision changes."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np

from ms_lite.converter.report import Report
from ms_lite.ir import Graph
from ms_tensor import registry as _registry

__all__ = ["lite_passes", "optimize", "finalize", "copy_graph", "typed"]


def lite_passes(stage: str = "lite") -> list:
    """``(name, fn)`` of every pass registered with ``stage`` (``"lite"``: before the
    precision changes; ``"lite-final"``: after them), in order."""
    return [(e.name, e.value) for e in _registry.load().in_order("pass")
            if e.info.get("stage") == stage]


def copy_graph(graph: Graph) -> Graph:
    """A copy whose nodes and tables a pass may edit (constant arrays are shared)."""
    g = copy.copy(graph)
    g.nodes = [copy.copy(n) for n in graph.nodes]
    for n in g.nodes:
        n.inputs, n.outputs, n.attrs = list(n.inputs), list(n.outputs), dict(n.attrs)
    g.inputs, g.outputs = list(graph.inputs), list(graph.outputs)
    g.constants, g.values = dict(graph.constants), dict(graph.values)
    return g


def optimize(graph: Graph, skip=()) -> tuple[Graph, Report]:
    """Run the lite passes (but those named in ``skip``) on a copy of ``graph``.

    >>> import numpy as np
    >>> from ms_lite.ir import Graph, Node, Value
    >>> g = Graph([Value("x", (1, 4), "float32")], [Value("y", (1, 2), "float32")],
    ...           [Node("Dense", ["x", "w", "b"], ["d"], {}, "fc"),
    ...            Node("ReLU", ["d"], ["y"], {}, "relu")],
    ...           {"w": np.ones((2, 4), np.float32), "b": np.zeros(2, np.float32)})
    >>> out, report = optimize(g)
    >>> [(n.op, n.attrs) for n in out.nodes]
    [('FullConnection', {'activation_type': 'RELU'})]
    >>> report.entries["relu"].became
    "FullConnection 'fc' (activation_type=RELU)"
    """
    g = copy_graph(graph)
    report = Report(g)
    for name, fn in lite_passes():
        if name in skip:
            continue
        g = fn(g, report)
    return g.validate(), report


def typed(graph: Graph) -> Graph:
    """A copy of ``graph`` whose ``values`` hold every node output's type (the lite
    runtime's inference fills what the producer of the graph left out)."""
    from ms_lite.ir import Value
    from ms_lite.runtime.ops import spec, step

    graph = dataclasses.replace(graph, values=dict(graph.values))
    for node in graph.nodes:
        if all(o in graph.values for o in node.outputs):
            continue
        specs = [None if not n else spec(graph.value(n).shape, graph.value(n).dtype)
                 for n in node.inputs]
        for o, s in zip(node.outputs, step(node, specs).outputs):
            graph.values[o] = Value(o, s.shape, np.dtype(s.dtype.np).name)
    return graph


def finalize(graph: Graph, report: Report, skip=()) -> Graph:
    """Run the ``"lite-final"`` passes (but those named in ``skip``) on ``graph`` as the
    precision changes left it (the Conv+Pool fusion, on float32 nodes), its tensors
    typed first (the passes read shapes)."""
    g = copy_graph(typed(graph))
    for name, fn in lite_passes("lite-final"):
        if name not in skip:
            g = fn(g, report)
    return g.validate()
