"""Algebraic simplification: identities that remove or merge nodes.

``x * 1``, ``1 * x``, ``x + 0``, ``0 + x``, ``x - 0``, ``x / 1`` -> ``x``; ``-(-x)`` -> ``x``;
a reshape, broadcast, squeeze, flatten, tile or cast whose output has its input's shape
and dtype -> its input; ``Identity(x)`` -> ``x``; ``Reshape(Reshape(x, a), b)`` ->
``Reshape(x, b)``; ``Transpose(Transpose(x, p), q)`` -> ``Transpose(x, p∘q)``, or ``x`` when
that is the identity permutation. A rule applies only when the result keeps the node's
output shape and dtype (``x * 1.0`` with integer ``x`` promotes, so it stays). ``x + 0``
turns ``-0.0`` into ``0.0``; the rewrite keeps ``-0.0`` (as XLA's does). A value an
in-place operator writes into is never replaced by its source (the write would move),
nor is a copy replaced by a value that is written later (``Identity(p)`` taken before an
optimizer updates ``p`` must keep the old values).
Dead producers are left for ``dce``.
"""

from __future__ import annotations

import numpy as np

from ms_graph.ir import Graph, Node, Value
from ms_graph.passes._util import inplace_targets, resolve, substitute

_SAME_SPEC_IS_IDENTITY = frozenset({"Reshape", "BroadcastTo", "Squeeze", "Flatten", "Tile",
                                    "Cast", "Identity"})


def run(graph: Graph) -> Graph:
    for node in graph.nodes:
        for sub in node.subgraphs:
            run(sub)
    written = inplace_targets(graph)
    subst: dict[int, Value] = {}
    for node in graph.nodes:
        node.args = [resolve(a, subst) for a in node.args]
        if isinstance(node.op, str) or len(node.outputs) != 1 \
                or id(node.outputs[0]) in written:
            continue
        out = node.outputs[0]
        new = _simplify(node, out)
        if new is not None and new is not out and id(resolve(new, subst)) not in written:
            subst[id(out)] = new
    substitute(graph, subst)
    return graph


def _is(a, number) -> bool:
    """Whether argument ``a`` is a constant equal to ``number`` everywhere."""
    if isinstance(a, Value):
        if not a.is_const:
            return False
        c = np.asarray(a.const)
        return c.size > 0 and bool(np.all(c == number))
    return isinstance(a, (bool, int, float)) and a == number


def _same(v, out) -> bool:
    return isinstance(v, Value) and v.spec is not None and v.spec == out.spec


def _simplify(node: Node, out: Value):
    """The Value that replaces ``out``, or None; may rewrite ``node``'s arguments."""
    name = node.op.name
    args = node.args
    if name in ("Mul", "Add"):
        unit = 1 if name == "Mul" else 0
        for i in (0, 1):
            if _is(args[1 - i], unit) and _same(args[i], out):
                return args[i]
        return None
    if name in ("Sub", "Div"):
        unit = 0 if name == "Sub" else 1
        return args[0] if _is(args[1], unit) and _same(args[0], out) else None
    x = args[0] if args else None
    if not isinstance(x, Value):
        return None
    inner = x.producer
    if name == "Neg":
        if inner is not None and inner.op is node.op and _same(inner.args[0], out):
            return inner.args[0]
        return None
    if name == "Transpose":
        return _transpose(node, out, x, inner)
    if name == "Reshape" and inner is not None and inner.op is node.op \
            and isinstance(inner.args[0], Value):
        x = node.args[0] = inner.args[0]  # the inner reshape may now be dead
    if name in _SAME_SPEC_IS_IDENTITY and _same(x, out):
        return x
    return None


def _transpose(node: Node, out: Value, x: Value, inner):
    ndim = len(out.spec.shape) if out.spec is not None else None
    if ndim is None:
        return None
    perm = tuple(int(p) % ndim for p in node.args[1]) if ndim else ()
    if inner is not None and inner.op is node.op and isinstance(inner.args[0], Value):
        first = tuple(int(p) % ndim for p in inner.args[1]) if ndim else ()
        perm = tuple(first[p] for p in perm)  # out axis j = x axis first[perm[j]]
        x = inner.args[0]
        node.args[0] = x
        node.args[1] = perm
    if perm == tuple(range(ndim)) and _same(x, out):
        return x
    return None
