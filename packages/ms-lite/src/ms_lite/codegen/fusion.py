"""Rewrites that lower the planned RAM of the generated C (the golden outputs still come
from the Python runtime on the graph as converted, so they check these rewrites too).

- ``fuse_conv_pool``: a convolution (int8 or float32) read only by a max pooling becomes
  one node whose kernel pools the convolution's pixels as it computes them: the
  convolution's output (LeNet5's largest tensor, 4,704 int8 bytes) is never in the arena.
- ``input_casts``: a float input read only by its quantization is quantized by
  ``net_set_input`` from the caller's buffer straight into its int8 tensor, so the float
  input (4 KB for LeNet5) is never in the arena either.
- ``stream_input``: when that int8 tensor feeds a fused convolution + pooling alone, the
  kernel reads the caller's float buffer (``net_set_input`` keeps its address, as
  MindSpore Micro's ``SetInputs`` does) and quantizes only the input rows one pooled row
  needs into a small scratch: the int8 image (1 KB for LeNet5) is not in the arena.

``rewrite`` applies all three. ``split_conv_pool`` first undoes the converter's own
Conv+Pool fusion (``Conv2DPoolFusion``: the runtime's fast form), so the C is planned
from the two nodes and fused only where these rewrites are asked for.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np

from ms_lite.codegen.kernels.fp32_fused import FUSED_F32_OP
from ms_lite.codegen.kernels.geometry import conv_geometry, pool_geometry
from ms_lite.codegen.kernels.int8_fused import FUSED_OP, STREAM_OP, stream_rows
from ms_lite.ir import Node, Value

__all__ = ["split_conv_pool", "fuse_conv_pool", "input_casts", "stream_input", "rewrite",
           "Rewritten", "FUSED_OP", "FUSED_F32_OP", "STREAM_OP"]


@dataclasses.dataclass
class Rewritten:
    """The graph the C computes, the inputs ``net_set_input`` quantizes (``casts``:
    input -> its cast node) and those read from the caller's buffer (``refs``)."""
    graph: object
    casts: dict
    refs: tuple = ()


def rewrite(graph) -> Rewritten:
    fused = fuse_conv_pool(graph)
    return stream_input(fused, input_casts(fused))


def split_conv_pool(graph):
    """A copy of ``graph`` with each ``Conv2DPoolFusion`` as its Conv2DFusion and MaxPool
    (the convolution's output a tensor again, of the shape the node kept)."""
    nodes, values = [], dict(graph.values)
    for node in graph.nodes:
        if node.op != "Conv2DPoolFusion":
            nodes.append(node)
            continue
        attrs = {k: v for k, v in node.attrs.items() if k not in ("pool", "conv_shape")}
        mid = f"{node.name}.conv"
        values[mid] = Value(mid, tuple(node.attrs["conv_shape"]),
                            graph.value(node.outputs[0]).dtype)
        conv_name, _, pool_name = node.name.partition("+")
        nodes += [Node("Conv2DFusion", list(node.inputs), [mid], attrs, conv_name),
                  Node("MaxPool", [mid], list(node.outputs), dict(node.attrs["pool"]),
                       pool_name or f"{node.name}.pool")]
    return dataclasses.replace(graph, nodes=nodes, values=values)


def _readers(graph) -> Counter:
    readers = Counter(n for node in graph.nodes for n in node.inputs if n)
    readers.update(v.name for v in graph.outputs)  # an output is read by the caller
    return readers


# (convolution, its max pooling) -> the fused node's operator
_PAIRS = {("QuantConv2D", "QuantMaxPool"): FUSED_OP, ("Conv2DFusion", "MaxPool"): FUSED_F32_OP,
          ("Conv2D", "MaxPool"): FUSED_F32_OP}


def fuse_conv_pool(graph):
    """A copy of ``graph`` with each convolution -> max pooling pair (the convolution's
    output read by the pooling alone; int8 or float32) as one node, scheduled where the
    convolution was."""
    readers = _readers(graph)
    pools = {n.inputs[0]: n for n in graph.nodes if n.op in ("QuantMaxPool", "MaxPool")}
    nodes, fused_pools = [], set()
    for node in graph.nodes:
        if node.name in fused_pools:
            continue
        pool = pools.get(node.outputs[0]) if node.outputs else None
        op = _PAIRS.get((node.op, pool.op)) if pool is not None else None
        if op is None or readers[node.outputs[0]] != 1 \
                or graph.value(node.outputs[0]).dtype != graph.value(pool.outputs[0]).dtype:
            nodes.append(node)
            continue
        attrs = {**node.attrs, "pool": dict(pool.attrs),
                 "conv_shape": tuple(graph.value(node.outputs[0]).shape)}
        nodes.append(Node(op, list(node.inputs), list(pool.outputs), attrs,
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


def _per_tensor(cast: Node) -> bool:
    return np.size(cast.attrs["scale"]) == 1 and np.size(cast.attrs["zero_point"]) == 1


def stream_input(graph, casts: dict) -> Rewritten:
    """Each input cast whose int8 tensor is read only by a fused convolution + pooling
    (as its image) becomes part of that node; the rest stay ``net_set_input`` casts."""
    readers = _readers(graph)
    by_input = {n.inputs[0]: n for n in graph.nodes if n.op == FUSED_OP}
    values, replace, drop, refs, left = dict(graph.values), {}, set(), [], {}
    for src, cast in casts.items():
        q = cast.outputs[0]
        node = by_input.get(q)
        if node is None or readers[q] != 1 or not _per_tensor(cast):
            left[src] = cast
            continue
        conv = conv_geometry(graph.value(src).shape, graph.value(node.inputs[1]).shape,
                             node.attrs)
        pool = pool_geometry(node.attrs["conv_shape"], graph.value(node.outputs[0]).shape,
                             node.attrs["pool"])
        scratch = f"{node.name}.rows"
        values[scratch] = Value(scratch, (conv["C"] * stream_rows(conv, pool) * conv["W"],),
                                "int8")
        attrs = {**node.attrs, "scale": float(np.ravel(cast.attrs["scale"])[0]),
                 "zero_point": int(np.ravel(cast.attrs["zero_point"])[0])}
        replace[node.name] = Node(STREAM_OP, [src, *node.inputs[1:]],
                                  [*node.outputs, scratch], attrs, f"{cast.name}+{node.name}")
        drop.add(cast.name)
        refs.append(src)
    nodes = [replace.get(n.name, n) for n in graph.nodes if n.name not in drop]
    return Rewritten(dataclasses.replace(graph, nodes=nodes, values=values), left, tuple(refs))
