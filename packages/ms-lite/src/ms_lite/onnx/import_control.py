"""ONNX ``If``: its branches are subgraphs of ONNX nodes, translated by the same importer.

A condition known at import time (a constant, or computed from constants and shapes, as
PyTorch's exports of ``if x.shape[0] > 1`` are) inlines the branch taken: the graph is
what that branch computes, nothing of the other remains. A condition computed at run
time translates both branches and chooses each output with ``Select`` (both branches
run; ONNX operators have no side effects), which needs the two branches to give every
output the same shape and dtype (else the node is reported as unsupported, by name).
``Loop`` and ``Scan`` are not translated: they are reported with their node names.
"""

from __future__ import annotations

import numpy as np

from ms_lite.onnx.context import ImportContext, Unsupported, attr

__all__ = ["if_"]


def _inline(ctx: ImportContext, graph, where: str) -> list[str]:
    """Translate the nodes of a branch into ``ctx``; the ONNX names of its outputs."""
    from onnx import numpy_helper

    from ms_lite.onnx.importer import translate_node

    for init in graph.initializer:
        ctx.consts[init.name] = np.asarray(numpy_helper.to_array(init))
    used = {x for n in graph.node for x in n.input} | {o.name for o in graph.output}
    outer = ctx.node
    try:
        for k, sub in enumerate(graph.node):
            ctx.node = sub
            try:
                translate_node(sub, ctx, used)
            except Unsupported as e:
                raise Unsupported(f"its {where} branch's node {sub.name or k!r} "
                                  f"({sub.op_type}): {e}") from None
    finally:
        ctx.node = outer
    return [o.name for o in graph.output]


def if_(ctx: ImportContext, node) -> None:
    then_g, else_g = attr(node, "then_branch"), attr(node, "else_branch")
    if then_g is None or else_g is None:
        raise Unsupported("an If needs both then_branch and else_branch")
    cond = ctx.const(0)
    if cond is not None:  # decided at import: the branch taken, inlined
        taken = bool(np.asarray(cond).reshape(-1)[0])
        outs = _inline(ctx, then_g if taken else else_g, "then" if taken else "else")
        for o, b in zip(node.output, outs):
            if b in ctx.names:
                ctx.alias(o, ctx.names[b])
            else:
                ctx.consts[o] = ctx.consts[b]
        return
    c = ctx.input(0)
    if int(np.prod(ctx.spec(c).shape, dtype=np.int64)) != 1:
        raise Unsupported(f"its condition has shape {ctx.spec(c).shape}; ONNX wants one value")
    pairs = list(zip(_inline(ctx, then_g, "then"), _inline(ctx, else_g, "else")))
    for o, (a, b) in zip(node.output, pairs):
        a, b = ctx.tensor(a), ctx.tensor(b)
        va, vb = ctx.spec(a), ctx.spec(b)
        if tuple(va.shape) != tuple(vb.shape) or va.dtype != vb.dtype:
            raise Unsupported(f"its branches give output {o!r} different types ({va.shape} "
                              f"{va.dtype} and {vb.shape} {vb.dtype}); a condition known only "
                              "at run time is translated when both agree")
        cb = c if tuple(ctx.spec(c).shape) == tuple(va.shape) else ctx.emit(
            "BroadcastTo", [ctx.emit("Reshape", [c], {"input_shape": ()})[0]
                            if ctx.spec(c).shape else c], {"shape": tuple(va.shape)})[0]
        ctx.emit("Select", [cb, a, b], out=o)
