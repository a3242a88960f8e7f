"""Inlining: a ``"Call"`` node's subgraph is spliced into the calling graph.

The callee's nodes are copied (a subgraph may be called from several places), its inputs
become the call's arguments and its outputs replace the call's outputs; its parameters
join the caller's, one Value per Parameter. Calls nested in the callee are inlined first.
A call is left alone when its arity does not match its subgraph, when an argument is not
a Value, or when a node of the callee has bodies that capture the callee's own values
(copying those bodies is not supported yet).
"""

from __future__ import annotations

from ms_graph.ir import Graph, Node, Value, captured
from ms_graph.passes._util import resolve, substitute


def run(graph: Graph) -> Graph:
    subst: dict[int, Value] = {}
    nodes = []
    for node in graph.nodes:
        node.args = [resolve(a, subst) for a in node.args]
        if _inlinable(node):
            nodes.extend(_splice(graph, node, subst))
        else:
            for sub in node.subgraphs:
                run(sub)
            nodes.append(node)
    graph.nodes = nodes
    substitute(graph, subst)
    return graph


def _inlinable(node: Node) -> bool:
    if node.op != "Call" or len(node.subgraphs) != 1:
        return False
    sub = node.subgraphs[0]
    if len(node.args) != len(sub.inputs) or len(node.outputs) != len(sub.outputs):
        return False
    if not all(isinstance(a, Value) for a in node.args):
        return False
    own = {id(v) for v in sub.inputs} | {id(v) for v, _ in sub.params}
    own.update(id(o) for n in sub.nodes for o in n.outputs)
    return not any(id(v) in own for n in sub.nodes for s in n.subgraphs for v in captured(s))


def _splice(graph: Graph, call: Node, subst: dict) -> list[Node]:
    sub = run(call.subgraphs[0])
    mapping: dict[int, Value] = {id(si): a for si, a in zip(sub.inputs, call.args)}
    params = {id(p): v for v, p in graph.params}
    for v, p in sub.params:
        if id(p) not in params:
            graph.params.append((v, p))
            params[id(p)] = v
        mapping[id(v)] = params[id(p)]
    copies = []
    for n in sub.nodes:
        args = [mapping.get(id(a), a) if isinstance(a, Value) else a for a in n.args]
        new = Node(n.op, args, n.attrs, (), n.subgraphs)
        new.recompute = n.recompute
        for o in n.outputs:
            c = new.add_output(o.spec)
            c.name = o.name
            mapping[id(o)] = c
        copies.append(new)
    for o, so in zip(call.outputs, sub.outputs):
        subst[id(o)] = mapping.get(id(so), so)
    return copies
