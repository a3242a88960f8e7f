"""Split a joint forward+backward graph into a forward graph and a backward graph.

The joint graph takes the primal inputs and then the cotangents, and returns the primal
outputs and then the gradients. Every node that does not depend on a cotangent belongs
to the forward pass (including what gradient rules compute from forward values alone,
such as ReLU's mask); the rest is the backward pass. The forward graph also returns the
residuals: the forward values the backward pass reads. So a differentiated call runs the
forward once, keeps only the residuals, and the backward recomputes only what a
recomputed Cell marked.

A node with effects that the backward pass recorded (``backward_from`` on) stays in the
backward even when it reads no cotangent: a gradient rule's Receive has no inputs at
all, and a Send of a zero cotangent reads only constants, yet both must exchange their
message when the backward runs, not when the forward does. So does a node that a
``Cell.recompute()`` region reran (``Node.recompute``): the backward recomputes it from
the region's inputs, which become the residuals instead of its activations.
"""

from __future__ import annotations

from ms_graph.ir import Graph, Value, captured
from ms_graph.passes._util import has_effects, substitute

__all__ = ["split_forward_backward"]


def _uses(node) -> list[Value]:
    out = [a for a in node.args if isinstance(a, Value)]
    for sub in node.subgraphs:
        out.extend(captured(sub))
    return out


def split_forward_backward(joint: Graph, n_inputs: int, n_outputs: int,
                           backward_from: int | None = None):
    """``(forward, backward, n_residuals)`` of ``joint`` (see the module doc);
    ``backward_from``: the index of the first node the backward pass recorded.

    ``forward``: the primal inputs -> the primal outputs, then the residuals.
    ``backward``: the residuals, then the cotangents -> the gradients.
    """
    tainted = {id(v) for v in joint.inputs[n_inputs:]}
    fwd_nodes, bwd_nodes = [], []
    late = len(joint.nodes) if backward_from is None else backward_from
    for i, node in enumerate(joint.nodes):
        if any(id(u) in tainted for u in _uses(node)) or \
                (i >= late and (has_effects(node) or node.recompute is not None)):
            bwd_nodes.append(node)
            tainted.update(id(o) for o in node.outputs)
        else:
            fwd_nodes.append(node)
    primal_out, grads = joint.outputs[:n_outputs], joint.outputs[n_outputs:]
    if any(id(v) in tainted for v in primal_out):
        raise ValueError(f"{joint.name}: a primal output depends on a cotangent; the "
                         "graph is not a forward+backward graph")
    params = {id(v) for v, _ in joint.params}
    residuals: dict[int, Value] = {}

    def need(v):
        if isinstance(v, Value) and id(v) not in tainted and not v.is_const \
                and id(v) not in params:
            residuals.setdefault(id(v), v)

    for node in bwd_nodes:
        for u in _uses(node):
            need(u)
    for v in grads:
        need(v)
    res = list(residuals.values())
    forward = Graph(joint.inputs[:n_inputs], joint.params, fwd_nodes,
                    list(primal_out) + res, name=f"{joint.name}_forward")
    fresh = {id(v): Value(v.spec, name=v.name) for v in res}
    backward = Graph([fresh[id(v)] for v in res] + joint.inputs[n_inputs:], joint.params,
                     bwd_nodes, list(grads), name=f"{joint.name}_backward")
    substitute(backward, fresh)
    return forward, backward, len(res)
