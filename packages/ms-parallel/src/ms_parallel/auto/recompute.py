"""``Cell.recompute()`` in a sharded network: a marked Cell's operators rerun in backward.

``capture`` records, for every operator, the recomputed region it ran in
(``ms_autodiff.recompute.region()``: the outermost marked Cell's call). ``ShardedNet.loss``
runs its operators one by one on this rank's slices; ``run_nodes`` runs each stretch of
consecutive operators of one region, redistributions and collectives included, as one
``ms_autodiff.recompute`` call. So a differentiating tape keeps the region's inputs (the
values flowing in, the global inputs it slices, its Parameters) and the values it hands on,
not its activations, and the region's backward runs it again on every rank of the plan,
in the same order (the collectives meet). Gradients equal the unmarked run's.
"""

from __future__ import annotations

from ms_autodiff.recompute import recompute

__all__ = ["run_nodes"]


def run_nodes(net, values: dict, inputs) -> None:
    """Every node of ``net.graph`` in order (``net.run_node``), into ``values``; the nodes
    of one recomputed region as one recomputed call."""
    nodes = net.graph.nodes
    j = 0
    while j < len(nodes):
        key = nodes[j].recompute
        end = j + 1
        while key is not None and end < len(nodes) and nodes[end].recompute == key:
            end += 1
        if key is None:
            net.run_node(j, values, inputs)
        else:
            _run_region(net, range(j, end), values, inputs, key[0])
        j = end


def _run_region(net, js, values, inputs, name) -> None:
    graph, inside = net.graph, set(js)
    sources = [s for j in js for s in graph.nodes[j].sources if s is not None]
    flowing = sorted({(s[1], s[2]) for s in sources if s[0] == "op" and s[1] not in inside})
    read = sorted({s[1] for s in sources if s[0] == "input"})
    params = sorted({s[1] for s in sources if s[0] == "param"})
    used_after = {(s[1], s[2]) for j, node in enumerate(graph.nodes) if j not in inside
                  for s in node.sources if s is not None and s[0] == "op" and s[1] in inside}
    handed_on = sorted(used_after | {(j, o) for j, o in graph.outputs if j in inside})
    k = len(flowing)

    def region(*xs):
        local = dict(zip(flowing, xs[:k]))
        ins = list(inputs)
        for i, x in zip(read, xs[k:]):
            ins[i] = x
        for j in js:
            net.run_node(j, local, ins)
        return tuple(local[key] for key in handed_on)

    outs = recompute(region, *[values[key] for key in flowing], *[inputs[i] for i in read],
                     weights=[net.params[p] for p in params], name=name)
    values.update(zip(handed_on, outs))
