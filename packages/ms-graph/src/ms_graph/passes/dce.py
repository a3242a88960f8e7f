"""Dead-code elimination: drop nodes none of whose outputs is needed.

A node is live when the graph returns one of its outputs, a live node reads one, or it has
side effects (in-place writes, random state). Subgraphs are swept first, each against its
own outputs.
"""

from __future__ import annotations

from ms_graph.ir import Graph, Value, captured
from ms_graph.passes._util import has_effects


def run(graph: Graph) -> Graph:
    for node in graph.nodes:
        for sub in node.subgraphs:
            run(sub)
    live = {id(v) for v in graph.outputs}
    kept = []
    for node in reversed(graph.nodes):
        if not has_effects(node) and not any(id(o) in live for o in node.outputs):
            continue
        kept.append(node)
        live.update(id(a) for a in node.args if isinstance(a, Value))
        for sub in node.subgraphs:
            live.update(id(v) for v in captured(sub))
    kept.reverse()
    graph.nodes = kept
    return graph
