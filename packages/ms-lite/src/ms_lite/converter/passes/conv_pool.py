"""Conv+Pool fusion: a float32 Conv2DFusion (Conv2D + bias + activation, and any
BatchNorm the ``fold_conv_bn`` pass folded into it: the seed's Conv+BN+Pool) whose output
only an unpadded max pooling reads becomes one ``Conv2DPoolFusion`` node. The runtime
then pools the convolution's product before activating it (max commutes with ReLU and
ReLU6, and the pooled tensor is a quarter of the size), and the convolution's output
never needs a buffer of the model's arena.

Registered for the stage ``"lite-final"``: it runs after the precision changes, so an
int8 convolution and its pooling stay the two int8 nodes the quantizer wrote.
"""

from __future__ import annotations

from ms_lite.converter.passes._util import sole_consumer
from ms_lite.ir import Graph, Node

__all__ = ["fuse_conv_pool"]


def _fusable(graph: Graph, conv: Node, pool: Node | None) -> bool:
    """Both float32 NCHW, the pool unpadded and fitting the convolution's output."""
    if pool is None or pool.op != "MaxPool" or len(pool.inputs) != 1:
        return False
    if conv.attrs.get("data_format", "NCHW") != "NCHW":
        return False
    from ms_lite.kernels.windows import valid_window

    try:
        out = graph.value(conv.outputs[0])
        if out.dtype != "float32" or graph.value(pool.outputs[0]).dtype != "float32":
            return False
        valid_window("MaxPool", out.shape, pool.attrs)
    except (KeyError, ValueError, TypeError):
        return False
    return True


def fuse_conv_pool(graph: Graph, report) -> Graph:
    """Fuse each Conv2DFusion -> MaxPool pair as above into its convolution's place."""
    consumers = graph.consumers()
    nodes, dropped = [], set()
    for node in graph.nodes:
        if node.name in dropped:
            continue
        pool = sole_consumer(graph, node.outputs[0], consumers) \
            if node.op == "Conv2DFusion" else None
        if not _fusable(graph, node, pool):
            nodes.append(node)
            continue
        mid = node.outputs[0]
        attrs = {**node.attrs, "pool": dict(pool.attrs),
                 "conv_shape": tuple(graph.value(mid).shape)}
        name = f"{node.name}+{pool.name}"
        nodes.append(Node("Conv2DPoolFusion", list(node.inputs), list(pool.outputs), attrs,
                          name))
        graph.values.pop(mid, None)
        dropped.add(pool.name)
        report.merged(name, node.name, pool.name)
        report.record(name, f"Conv2DPoolFusion {name!r}", f"{pool.op} {pool.name} reads "
                      f"{node.name} alone: pooled in the convolution's kernel, before its "
                      f"activation ({node.attrs.get('activation_type', 'NO_ACTIVATION')})")
    graph.nodes = nodes
    return graph
