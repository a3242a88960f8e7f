"""Bias fusion: Conv2D followed by an Add of a per-channel constant becomes
Conv2DFusion(x, w, b); Dense becomes FullConnection; MatMul of a constant weight
followed by an Add of a per-output constant becomes FullConnection."""

from __future__ import annotations

import numpy as np

from ms_lite.converter.passes._util import drop_unused_constants, fresh_name, sole_consumer
from ms_lite.ir import Graph, Node

__all__ = ["fuse_bias"]


def _bias_of(graph: Graph, add, produced: str, channels: int, axis_from_end: int):
    """The per-channel bias vector if ``add`` adds a constant broadcasting along one
    channel axis to ``produced``; else None."""
    if add is None or add.op not in ("Add", "BiasAdd") or len(add.inputs) != 2:
        return None
    other = add.inputs[1] if add.inputs[0] == produced else add.inputs[0]
    if other not in graph.constants or other == produced:
        return None
    b = graph.constants[other]
    if add.op == "BiasAdd":
        return b.reshape(-1) if b.shape == (channels,) else None
    trimmed = b.shape
    while trimmed and trimmed[0] == 1 and len(trimmed) > axis_from_end:
        trimmed = trimmed[1:]
    if trimmed != (channels,) + (1,) * (axis_from_end - 1):
        return None
    return b.reshape(-1)


def fuse_bias(graph: Graph, report) -> Graph:
    """Fold bias additions into the producing Conv2D / Dense / MatMul."""
    for node in list(graph.nodes):
        consumers = graph.consumers()
        if node.op == "Dense":
            node.op = "FullConnection"
            node.attrs = {"activation_type": "NO_ACTIVATION"}
            report.record(node.name, "FullConnection", "Dense is MindSpore Lite's "
                          "FullConnection (x @ w.T + b), which can also take an activation")
            continue
        if node.op == "Conv2D" and node.inputs[1] in graph.constants:
            w = graph.constants[node.inputs[1]]
            add = sole_consumer(graph, node.outputs[0], consumers)
            b = _bias_of(graph, add, node.outputs[0], w.shape[0], 3)
            node.op = "Conv2DFusion"
            node.attrs = dict(node.attrs, activation_type="NO_ACTIVATION")
            if b is None:
                node.inputs = node.inputs + [""]
                report.record(node.name, "Conv2DFusion", "Conv2D in the fusable form "
                              "(no bias follows)")
                continue
            _absorb(graph, node, add, b.astype(w.dtype), report, "per-channel Add")
        elif node.op == "MatMul" and node.inputs[1] in graph.constants \
                and not node.attrs.get("transpose_a") \
                and graph.constants[node.inputs[1]].ndim == 2:
            w = graph.constants[node.inputs[1]]
            if not node.attrs.get("transpose_b"):
                w = np.ascontiguousarray(w.T)
            add = sole_consumer(graph, node.outputs[0], consumers)
            b = _bias_of(graph, add, node.outputs[0], w.shape[0], 1)
            if b is None:
                continue
            wname = fresh_name(graph, f"{node.name}.weight")
            graph.constants[wname] = w
            node.op = "FullConnection"
            node.inputs = [node.inputs[0], wname]
            node.attrs = {"activation_type": "NO_ACTIVATION"}
            _absorb(graph, node, add, b.astype(w.dtype), report, "Add of a per-output vector")
    drop_unused_constants(graph)
    return graph


def _absorb(graph: Graph, node: Node, add: Node, b: np.ndarray, report, what: str) -> None:
    bname = fresh_name(graph, f"{node.name}.bias")
    graph.constants[bname] = np.ascontiguousarray(b)
    node.inputs = node.inputs[:2] + [bname]
    old_out = node.outputs[0]
    node.outputs = list(add.outputs)
    graph.values.pop(old_out, None)
    graph.nodes = [n for n in graph.nodes if n is not add]
    report.merged(node.name, node.name, add.name)
    report.record(node.name, f"{node.op} {node.name!r}",
                  f"{add.op} of a constant bias after {node.name} ({what}) folded into it")
