"""Small graph edits the passes share."""

from __future__ import annotations

from ms_lite.ir import Graph

__all__ = ["rename_uses", "sole_consumer", "drop_unused_constants", "fresh_name"]


def rename_uses(graph: Graph, old: str, new: str) -> None:
    """Every reader of ``old`` (nodes and graph outputs) reads ``new`` instead."""
    for n in graph.nodes:
        n.inputs = [new if i == old else i for i in n.inputs]
    for k, v in enumerate(graph.outputs):
        if v.name == old:  # the same tensor under another name: its type is the output's
            graph.outputs[k] = type(v)(new, v.shape, v.dtype, v.quant)


def sole_consumer(graph: Graph, name: str, consumers: dict):
    """The one node reading ``name``, or None if several do or it is a graph output."""
    users = consumers.get(name, [])
    if len(users) != 1 or any(v.name == name for v in graph.outputs):
        return None
    return users[0]


def drop_unused_constants(graph: Graph) -> None:
    used = {i for n in graph.nodes for i in n.inputs} | {v.name for v in graph.outputs}
    for name in [c for c in graph.constants if c not in used]:
        del graph.constants[name]
        graph.values.pop(name, None)


def fresh_name(graph: Graph, base: str) -> str:
    taken = set(graph.constants) | {v.name for v in graph.inputs} | set(graph.values) | {
        o for n in graph.nodes for o in n.outputs} | {n.name for n in graph.nodes}
    if base not in taken:
        return base
    k = 1
    while f"{base}_{k}" in taken:
        k += 1
    return f"{base}_{k}"
