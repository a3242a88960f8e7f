"""The conversion of a lite ``Graph``: the registered passes, then precision changes."""

from __future__ import annotations

import copy

from ms_lite.converter.report import Report
from ms_lite.ir import Graph
from ms_tensor import registry as _registry

__all__ = ["lite_passes", "optimize", "copy_graph"]


def lite_passes() -> list:
    """``(name, fn)`` of every pass registered with ``stage="lite"``, in order."""
    return [(e.name, e.value) for e in _registry.load().in_order("pass")
            if e.info.get("stage") == "lite"]


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
