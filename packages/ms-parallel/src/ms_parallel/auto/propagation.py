"""Sharding propagation: strategies spread from the few operators a user annotated.

As MindSpore's ``search_mode="sharding_propagation"``: starting from the operators with a
``shard`` strategy (or pinned by a loaded strategy file), each neighbour in turn takes the
candidate whose redistribution with its already-decided neighbours is cheapest, its own cost
breaking ties, and passes it on, breadth first. Operators that no annotation reaches take
the cheapest strategy of their own (data parallel, usually).
"""

from __future__ import annotations

from collections import deque

from ms_parallel.auto.cost import CostModel
from ms_parallel.auto.rec import _neighbours

__all__ = ["sharding_propagation"]


def sharding_propagation(model: CostModel) -> list[tuple]:
    cands = model.candidates()
    neighbours = _neighbours(model)
    decided: dict[int, tuple] = dict(model.pinned)
    if not decided:
        raise ValueError("sharding_propagation: no operator has a strategy; annotate some "
                         "with Primitive.shard (or Cell.shard), or use another search_mode")
    queue = deque(sorted(decided))
    while len(decided) < len(cands):
        if not queue:  # a part of the graph no annotation reaches
            j = min(set(range(len(cands))) - set(decided))
            decided[j] = min(cands[j], key=lambda c: model.unary_of(j, c))
            queue.append(j)
        j = queue.popleft()
        for src, _, dst, _ in neighbours[j]:
            other = dst if src == j else src
            if other in decided:
                continue
            decided[other] = min(cands[other], key=lambda c: (
                round(_redistribution(model, other, c, decided, neighbours[other]), 12),
                model.unary_of(other, c)))
            queue.append(other)
    return [decided[j] for j in range(len(cands))]


def _redistribution(model, j, cuts, decided, edges) -> float:
    cost = 0.0
    for src, o, dst, i in edges:
        other = dst if src == j else src
        if other in decided:
            a, b = (cuts, decided[other]) if src == j else (decided[other], cuts)
            cost += model.edge_of(src, o, dst, i, a, b)
    return cost
