"""Remove nodes that compute nothing at inference: Identity, Dropout (inference mode),
a Cast to the dtype it already has, a Reshape to the shape it already has."""

from __future__ import annotations

from ms_lite.converter.passes._util import rename_uses
from ms_lite.ir import Graph

__all__ = ["remove_identity"]


def _why(graph: Graph, node) -> str | None:
    if node.op == "Identity":
        return "Identity returns its input"
    if node.op == "Dropout":
        return "Dropout is the identity at inference"
    if not node.inputs or not node.inputs[0]:
        return None
    try:
        src = graph.value(node.inputs[0])
        out = graph.value(node.outputs[0])
    except ValueError:
        return None
    if node.op == "Cast" and src.dtype == out.dtype:
        return f"Cast to {out.dtype}, which the input already is"
    if node.op == "Reshape" and src.shape == out.shape:
        return f"Reshape to {out.shape}, which the input already is"
    return None


def remove_identity(graph: Graph, report) -> Graph:
    """Drop identity nodes and point their readers at the input.

    >>> from ms_lite.ir import Graph, Node, Value
    >>> from ms_lite.converter.report import Report
    >>> g = Graph([Value("x", (2,), "float32")], [Value("y", (2,), "float32")],
    ...           [Node("Dropout", ["x"], ["d", "mask"], {}, "drop"),
    ...            Node("Neg", ["d"], ["y"], {}, "neg")], {})
    >>> [n.op for n in remove_identity(g, Report(g)).nodes], g.nodes[0].inputs
    (['Neg'], ['x'])
    """
    kept = []
    for node in list(graph.nodes):
        why = _why(graph, node)
        read = {i for n in graph.nodes for i in n.inputs} | {v.name for v in graph.outputs}
        extra_used = any(o in read for o in node.outputs[1:])
        if why is None or extra_used:  # Dropout's mask read by someone: keep it
            kept.append(node)
            continue
        rename_uses(graph, node.outputs[0], node.inputs[0])
        report.record(node.name, "removed", why)
    graph.nodes = kept
    return graph
