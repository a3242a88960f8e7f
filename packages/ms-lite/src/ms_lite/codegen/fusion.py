"""Rewrites that lower the planned RAM of the generated C (the golden outputs still come
from the Python runtime on the graph as converted, so they check these rewrites too).

- ``fuse_conv_pool``: an int8 convolution read only by a max pooling becomes one node
  whose kernel pools the convolution's pixels as it computes them: the convolution's
  output (LeNet5's largest tensor, 4,704 bytes) is never in the arena.
- ``input_casts``: a float input read only by its quantization is quantized by
  ``net_set_input`` from the caller's buffer straight into its int8 tensor, so the float
  input (4 KB for LeNet5) is never in the arena either.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

from ms_lite.codegen.kernels.int8_fused import FUSED_OP
from ms_lite.ir import Node

__all__ = ["fuse_conv_pool", "input_casts", "FUSED_OP"]


def _readers(graph) -> Counter:
    readers = Counter(n for node in graph.nodes for n in node.inputs if n)
    readers.update(v.name for v in graph.outputs)  # an output is read by the caller
    return readers


def fuse_conv_pool(graph):
    """A copy of ``graph`` with each QuantConv2D -> QuantMaxPool pair (the convolution's
    output read by the pooling alone) as one ``QuantConv2D+QuantMaxPool`` node, scheduled
    where the convolution was."""
    readers = _readers(graph)
    pools = {n.inputs[0]: n for n in graph.nodes if n.op == "QuantMaxPool"}
    nodes, fused_pools = [], set()
    for node in graph.nodes:
        if node.name in fused_pools:
            continue
        pool = pools.get(node.outputs[0]) if node.op == "QuantConv2D" else None
        if pool is None or readers[node.outputs[0]] != 1:
            nodes.append(node)
            continue
        attrs = {**node.attrs, "pool": dict(pool.attrs),
                 "conv_shape": tuple(graph.value(node.outputs[0]).shape)}
        nodes.append(Node(FUSED_OP, list(node.inputs), list(pool.outputs), attrs,
                          f"{node.name}+{pool.name}"))
        fused_pools.add(pool.name)
    return dataclasses.replace(graph, nodes=nodes)


def input_casts(graph) -> dict[str, Node]:
    """``{graph input: its QuantDTypeCast node}`` for float32 inputs read only by one
    quantization to int8 (``net_set_input`` then runs that node)."""
    readers = _readers(graph)
    casts = {}
    for node in graph.nodes:
        if node.op != "QuantDTypeCast" or not node.inputs:
            continue
        src = node.inputs[0]
        if src in {v.name for v in graph.inputs} and readers[src] == 1 \
                and graph.value(src).dtype == "float32" \
                and graph.value(node.outputs[0]).dtype == "int8":
            casts[src] = node
    return casts
