"""Constant folding: a node whose inputs are all constants runs once, at conversion,
with the registry's kernel, and its outputs become constants."""

from __future__ import annotations

from ms_lite.converter.passes._util import drop_unused_constants
from ms_lite.ir import Graph
from ms_lite.runtime.ops import find_op, spec, step

__all__ = ["fold_constants"]


def _foldable(node, graph: Graph) -> bool:
    if not all(i == "" or i in graph.constants for i in node.inputs):
        return False
    op = find_op(node.op)
    return not getattr(op, "stateful", False) and not getattr(op, "side_effect_io", False)


def fold_constants(graph: Graph, report) -> Graph:
    """Replace constant-only nodes by their values.

    >>> import numpy as np
    >>> from ms_lite.ir import Graph, Node, Value
    >>> from ms_lite.converter.report import Report
    >>> g = Graph([Value("x", (3,), "float32")], [Value("y", (3,), "float32")],
    ...           [Node("Neg", ["c"], ["n"], {}, "neg"), Node("Add", ["x", "n"], ["y"], {}, "add")],
    ...           {"c": np.ones(3, np.float32)})
    >>> g = fold_constants(g, Report(g))
    >>> [n.op for n in g.nodes], g.constants["n"]
    (['Add'], array([-1., -1., -1.], dtype=float32))
    """
    kept = []
    for node in graph.nodes:
        if not _foldable(node, graph):
            kept.append(node)
            continue
        arrays = [graph.constants[i] if i else None for i in node.inputs]
        s = step(node, [None if a is None else spec(a.shape, a.dtype) for a in arrays])
        args = [a if c is None or a is None else a.astype(c) for a, c in zip(arrays, s.casts)]
        result = s.kernel(*args, **s.kwargs)
        results = result if isinstance(result, tuple) else (result,)
        for name, o, r in zip(node.outputs, s.outputs, results):
            graph.constants[name] = r.astype(o.dtype.np, copy=False)
            graph.values.pop(name, None)
        report.record(node.name, "folded into a constant",
                      f"all inputs are constants: computed once at conversion "
                      f"({', '.join(node.outputs)})")
    graph.nodes = kept
    drop_unused_constants(graph)
    return graph
