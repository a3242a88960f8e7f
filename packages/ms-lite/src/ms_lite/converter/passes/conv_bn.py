"""Conv+BatchNorm folding: an inference BatchNorm after a convolution is a per-channel
scale and shift, which the convolution's weights and bias absorb:
``w' = w * g / sqrt(v + eps)`` per output channel, ``b' = (b - m) * g / sqrt(v + eps) + beta``.
"""

from __future__ import annotations

import numpy as np

from ms_lite.converter.passes._util import drop_unused_constants, fresh_name, sole_consumer
from ms_lite.ir import Graph

__all__ = ["fold_conv_bn"]


def _stats(graph: Graph, bn):
    names = bn.inputs[1:5]
    if len(names) != 4 or not all(n in graph.constants for n in names):
        return None
    return [graph.constants[n].astype(np.float64) for n in names]


def fold_conv_bn(graph: Graph, report) -> Graph:
    """Fold ``BatchNorm(is_training=False)`` into the ``Conv2DFusion`` before it (run
    after ``fuse_bias``, which puts every constant-weight convolution in that form)."""
    for node in list(graph.nodes):
        if node.op != "Conv2DFusion" or node.attrs.get("activation_type") != "NO_ACTIVATION":
            continue
        consumers = graph.consumers()
        bn = sole_consumer(graph, node.outputs[0], consumers)
        if bn is None or bn.op != "BatchNorm" or bn.attrs.get("is_training") \
                or bn.attrs.get("data_format", "NCHW") != "NCHW" \
                or node.inputs[1] not in graph.constants:
            continue
        if any(consumers.get(o) or o in {v.name for v in graph.outputs}
               for o in bn.outputs[1:]):
            continue  # the batch statistics outputs are read: keep the BatchNorm
        stats = _stats(graph, bn)
        if stats is None:
            continue
        gamma, beta, mean, var = stats
        w = graph.constants[node.inputs[1]]
        b = graph.constants[node.inputs[2]].astype(np.float64) if node.inputs[2] \
            else np.zeros(w.shape[0])
        k = gamma / np.sqrt(var + float(bn.attrs.get("epsilon", 1e-5)))
        wname = fresh_name(graph, f"{node.name}.weight")
        bname = fresh_name(graph, f"{node.name}.bias")
        graph.constants[wname] = (w.astype(np.float64) * k.reshape(-1, 1, 1, 1)).astype(w.dtype)
        graph.constants[bname] = ((b - mean) * k + beta).astype(w.dtype)
        node.inputs = [node.inputs[0], wname, bname]
        graph.values.pop(node.outputs[0], None)
        node.outputs = [bn.outputs[0]]
        graph.nodes = [n for n in graph.nodes if n is not bn]
        report.merged(node.name, node.name, bn.name)
        report.record(node.name, f"Conv2DFusion {node.name!r}",
                      f"inference BatchNorm {bn.name} folded into the convolution's weights "
                      "and bias")
    drop_unused_constants(graph)
    return graph
