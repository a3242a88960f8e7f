"""What the passes share: side-effect tests, value substitution, hashable argument keys."""

from __future__ import annotations

import numpy as np

from ms_graph.ir import Graph, Node, Value


def has_effects(node: Node) -> bool:
    """Whether running ``node`` does more than compute its outputs.

    Some operators write into an input (in-place updates of a Parameter's array,
    BatchNorm's moving statistics), random operators advance their generator, summary
    operators hand their value to the writer (``side_effect_io``); a control-flow node
    has effects when its bodies do. Such nodes are never removed, merged or moved past.
    """
    if isinstance(node.op, str):
        return any(has_effects(n) for sub in node.subgraphs for n in sub.nodes)
    return bool(node.op.written) or node.op.stateful or node.op.side_effect_io


def is_pure_op(node: Node) -> bool:
    """An operator node whose outputs depend only on its arguments."""
    return not isinstance(node.op, str) and not node.subgraphs and not has_effects(node)


def inplace_targets(graph: Graph) -> set[int]:
    """ids of the Values some node writes into (an alias of one must stay distinct)."""
    out: set[int] = set()
    for node in graph.nodes:
        if not isinstance(node.op, str):
            for i in node.op.written:
                if isinstance(node.args[i], Value):
                    out.add(id(node.args[i]))
    return out


def resolve(v, subst: dict):
    """Follow ``subst`` (id -> Value) from ``v`` to its final replacement."""
    while isinstance(v, Value) and id(v) in subst:
        v = subst[id(v)]
    return v


def substitute(graph: Graph, subst: dict) -> None:
    """Rewrite every use of a Value in ``subst`` (by id) in ``graph``, its subgraphs and
    outputs: one walk over the graph, however many values are replaced."""
    if not subst:
        return
    for node in graph.nodes:
        for i, a in enumerate(node.args):
            if isinstance(a, Value) and id(a) in subst:
                node.args[i] = resolve(a, subst)
        for sub in node.subgraphs:
            substitute(sub, subst)
    graph.outputs = [resolve(v, subst) for v in graph.outputs]


def use_counts(graph: Graph) -> dict[int, int]:
    """How many times each Value (by id) is read: node arguments, captures, outputs."""
    from ms_graph.ir import captured

    counts: dict[int, int] = {}
    for node in graph.nodes:
        for a in node.args:
            if isinstance(a, Value):
                counts[id(a)] = counts.get(id(a), 0) + 1
        for sub in node.subgraphs:
            for v in captured(sub):
                counts[id(v)] = counts.get(id(v), 0) + 1
    for v in graph.outputs:
        counts[id(v)] = counts.get(id(v), 0) + 1
    return counts


def key(a):
    """A hashable stand-in for a node argument or attribute (Values by identity).

    Floats are keyed by ``repr`` so that ``0.0`` and ``-0.0`` stay different arguments.
    """
    if isinstance(a, Value):
        return ("value", id(a))
    if isinstance(a, float):
        return (float, repr(a))
    if isinstance(a, (bool, int, str)) or a is None:
        return (type(a), a)
    if isinstance(a, (list, tuple)):
        return (type(a), tuple(key(x) for x in a))
    if isinstance(a, np.ndarray):
        return ("array", a.dtype.str, a.shape, a.tobytes())
    hash(a)  # a dtype or another hashable static value; raises TypeError otherwise
    return ("obj", a)
