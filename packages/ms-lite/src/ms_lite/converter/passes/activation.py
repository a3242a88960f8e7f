"""Activation fusion: a ReLU or ReLU6 that is the only reader of a Conv2DFusion or
FullConnection output becomes that node's ``activation_type`` (applied in place on the
output, saving one pass over memory and one buffer)."""

from __future__ import annotations

from ms_lite.converter.passes._util import sole_consumer
from ms_lite.ir import Graph

__all__ = ["fuse_activation"]

_FUSABLE = {"ReLU": "RELU", "ReLU6": "RELU6"}


def fuse_activation(graph: Graph, report) -> Graph:
    """Fuse ReLU/ReLU6 into the producing Conv2DFusion/FullConnection."""
    for node in list(graph.nodes):
        if node.op not in ("Conv2DFusion", "FullConnection") \
                or node.attrs.get("activation_type") != "NO_ACTIVATION":
            continue
        act = sole_consumer(graph, node.outputs[0], graph.consumers())
        if act is None or act.op not in _FUSABLE:
            continue
        node.attrs = dict(node.attrs, activation_type=_FUSABLE[act.op])
        graph.values.pop(node.outputs[0], None)
        node.outputs = list(act.outputs)
        graph.nodes = [n for n in graph.nodes if n is not act]
        report.merged(node.name, node.name, act.name)
        report.record(node.name, f"{node.op} {node.name!r} (activation_type="
                      f"{_FUSABLE[act.op]})", f"{act.op} {act.name} fused as the activation")
    return graph
