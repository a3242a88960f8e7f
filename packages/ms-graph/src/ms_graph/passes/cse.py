"""Common-subexpression elimination: one node per distinct computation.

Two pure operator nodes with the same operator, the same argument Values (after earlier
merges), equal static arguments and equal attributes compute the same outputs; the later
one is dropped and its outputs replaced. Equal small constants are merged first, so
``x * 2`` written twice with two constant arrays still merges. A node with side effects
(an in-place update) clears the table: a read of a parameter after its update must not be
merged with one before it.
"""

from __future__ import annotations

from ms_graph.ir import Graph, Value
from ms_graph.passes._util import has_effects, is_pure_op, key, resolve, substitute

CONST_MERGE_LIMIT = 1 << 16  # bytes; larger constants are compared by identity only


def run(graph: Graph) -> Graph:
    for node in graph.nodes:
        for sub in node.subgraphs:
            run(sub)
    subst: dict[int, Value] = {}
    consts: dict = {}
    table: dict = {}
    kept = []
    for node in graph.nodes:
        effects = has_effects(node)
        for i, a in enumerate(node.args):
            a = resolve(a, subst)
            if not effects and isinstance(a, Value) and a.is_const \
                    and getattr(a.const, "nbytes", CONST_MERGE_LIMIT + 1) <= CONST_MERGE_LIMIT:
                a = consts.setdefault((repr(a.spec), key(a.const)), a)
            node.args[i] = a
        if effects:
            table.clear()
        if not is_pure_op(node) or node.recompute is not None:  # a rerun stays a rerun
            kept.append(node)
            continue
        try:
            k = (id(node.op), key(node.args), key(sorted(node.attrs.items())))
        except TypeError:  # an unhashable static argument: leave the node alone
            kept.append(node)
            continue
        prev = table.get(k)
        if prev is None:
            table[k] = node
            kept.append(node)
        else:
            for o, p in zip(node.outputs, prev.outputs):
                subst[id(o)] = p
    graph.nodes = kept
    substitute(graph, subst)
    return graph
