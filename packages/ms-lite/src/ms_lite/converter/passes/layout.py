"""Layout choice. The registry's CPU convolution and pooling kernels are NCHW, so every
layout-sensitive node runs in NCHW; a pair of Transposes that undo each other (what an
NHWC model brings around its NCHW operators) is removed, and the report says which
layout each convolution and pooling node runs in."""

from __future__ import annotations

from ms_lite.converter.passes._util import rename_uses, sole_consumer
from ms_lite.ir import Graph

__all__ = ["choose_layout"]

_SENSITIVE = ("Conv2D", "Conv2DFusion", "MaxPool", "AvgPool", "BatchNorm")


def _perm(node):
    p = node.attrs.get("input_perm", node.attrs.get("perm"))
    return None if p is None else tuple(p)


def choose_layout(graph: Graph, report) -> Graph:
    """Cancel inverse Transpose pairs; note the layout of layout-sensitive nodes."""
    for node in list(graph.nodes):
        if node.op != "Transpose" or node not in graph.nodes:
            continue
        nxt = sole_consumer(graph, node.outputs[0], graph.consumers())
        p, q = _perm(node), None if nxt is None or nxt.op != "Transpose" else _perm(nxt)
        if p is None or q is None or len(p) != len(q) or tuple(p[i] for i in q) != \
                tuple(range(len(p))):
            continue
        graph.nodes = [n for n in graph.nodes if n is not node and n is not nxt]
        rename_uses(graph, nxt.outputs[0], node.inputs[0])
        for n in (node, nxt):
            report.record(n.name, "removed", f"Transposes {node.name} and {nxt.name} undo "
                          "each other")
    by_format: dict[str, list[str]] = {}
    for node in graph.nodes:
        if node.op in _SENSITIVE:
            by_format.setdefault(node.attrs.get("data_format", "NCHW"), []).append(node.name)
    for fmt, names in by_format.items():
        report.note(f"layout {fmt} for {', '.join(names)}: the registry's CPU kernels of "
                    f"these operators take {fmt}, so no transposes are inserted")
    return graph
