"""The operators inside tensor-dependent ``if``/``while`` of compiled graphs, for
``microspore ascend check``.

The worker's recorder sees every operator a script runs eagerly and every one a graph
capture records, but a tensor-dependent branch or loop body is captured by a sub-trace
of its own (both branches, each once, without chaining recorders), and the compiled
graph runs its kernels without the recorder. So the check worker registers a plugin
(``register_plugin``, in its own process only) whose graph pass, the last of the
``optimize`` stage, walks each compiled graph's ``Cond``/``While`` bodies and hands
their operator nodes to the recorder, with the specs the capture inferred. It changes
no graph. Each node's site, the line inside the branch that made it, was kept while the
branch ran (``ms_graph.control_flow_trace.observe_nodes``).
"""

from __future__ import annotations

import numpy as np

from ms_tensor.hookspecs import hookimpl

__all__ = ["BranchWalker", "branch_nodes"]

_CONTROL = ("Cond", "While")


def branch_nodes(graph, inside: bool = False, path=()):
    """``(path, node)`` of every operator node inside a ``Cond``/``While`` body of
    ``graph`` (nested ``Call``/``Fused`` bodies included; the top level left out, its
    operators were recorded as they were captured). ``path`` says where the node is."""
    for i, node in enumerate(graph.nodes):
        if isinstance(node.op, str):
            nested = inside or node.op in _CONTROL
            for k, sub in enumerate(node.subgraphs):
                yield from branch_nodes(sub, nested, (*path, (node.op, i, k)))
        elif inside:
            yield path, node


def _spec(value):
    spec = getattr(value, "spec", None)
    if spec is None or not hasattr(spec, "shape"):
        return None
    return [list(spec.shape), np.dtype(spec.dtype.np).name]


class BranchWalker:
    """A plugin object: its pass gives ``recorder.branch_op(node, in_specs,
    out_specs, path, graph_name)`` each operator node inside the branches of every
    optimized graph, and ``recorder.parameter(p)`` each Parameter the graph reads."""

    def __init__(self, recorder):
        self.recorder = recorder

    @hookimpl
    def ms_register_passes(self, registry) -> None:
        registry.add_pass("ascend_check_branches", self.walk, stage="optimize")

    def walk(self, graph):
        for _, p in graph.params:
            self.recorder.parameter(p)
        for path, node in branch_nodes(graph):
            self.recorder.branch_op(node, [_spec(v) if hasattr(v, "spec") else None
                                    for v in node.args],
                        [_spec(v) for v in node.outputs], path, graph.name)
        return graph
