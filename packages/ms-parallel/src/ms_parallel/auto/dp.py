"""Dynamic programming: the exact minimum of the cost model by eliminating operators.

The cost is a sum of per-operator terms and per-edge terms, so operators can be eliminated one
at a time as MindSpore's search does: a leaf folds into its neighbour's cost (MindSpore's
contraction/merge elimination), an operator between two others becomes one edge whose cost
is the best through it (chain elimination), parallel edges add up (edge elimination), and an
operator with more neighbours becomes one factor over all of them (star elimination). Each
step keeps, for every choice of the neighbours, the best choice of the eliminated operator,
and walking the steps backwards recovers the optimal strategy. The order (cheapest factor
first) keeps factors small on chain-and-branch graphs such as transformer layers.
"""

from __future__ import annotations

import heapq
import itertools
import math

import numpy as np

from ms_parallel.auto.cost import CostModel

__all__ = ["dynamic_programming", "brute_force"]

_MAX_FACTOR = 50_000_000


def _factors(model: CostModel, cands, estimate):
    factors = [((j,), model.unary(j, cands)) for j in range(len(cands))]
    factors += [((a, b), m) for (a, b), m in model.pair_costs(cands, estimate).items()]
    return factors


def dynamic_programming(model: CostModel, cands=None, estimate: bool = False) -> list[tuple]:
    """The strategy per node that minimizes the cost model's total step time (over
    ``cands``, one list of strategies per node; all valid ones by default). ``estimate``:
    redistributions priced by their greedy sequence (the recursive search's final pass)."""
    cands = model.candidates() if cands is None else cands
    factors = dict(enumerate(_factors(model, cands, estimate)))
    sizes = [len(c) for c in cands]
    touching: list[set] = [set() for _ in cands]  # node -> ids of the factors over it
    for f, (vars_, _) in factors.items():
        for u in vars_:
            touching[u].add(f)
    ids_left = itertools.count(len(factors))
    remaining = set(range(len(cands)))
    cells = {v: _cells(v, touching, factors, sizes) for v in remaining}
    queue = [(cells[v][0], v) for v in remaining]  # stale entries are skipped when popped
    heapq.heapify(queue)
    trail = []
    while remaining:
        size, v = heapq.heappop(queue)
        if v not in remaining or size != cells[v][0]:
            continue
        scope = cells[v][1]
        if size > _MAX_FACTOR:
            raise RuntimeError(f"dynamic programming: eliminating any operator needs a table "
                               f"of {size:,} entries; use search_mode='recursive_programming'")
        ids = sorted(touching[v])
        mine = [factors.pop(f) for f in ids]
        for f, (vars_, _) in zip(ids, mine):
            for u in vars_:
                touching[u].discard(f)
        # Every factor over (scope, v) by broadcasting; the best v for each scope choice.
        total = np.zeros([1] * (len(scope) + 1))
        for vars_, table in mine:
            total = total + _expand(vars_, table, scope + (v,))
        total = np.broadcast_to(total, [sizes[u] for u in scope] + [sizes[v]])
        best, arg = total.min(axis=-1), total.argmin(axis=-1)
        new = next(ids_left)
        factors[new] = (scope, best)
        for u in scope:
            touching[u].add(new)
        trail.append((v, scope, arg))
        remaining.discard(v)
        for u in scope:
            cells[u] = _cells(u, touching, factors, sizes)
            heapq.heappush(queue, (cells[u][0], u))
    choice: dict[int, int] = {}
    for v, scope, arg in reversed(trail):
        choice[v] = int(arg[tuple(choice[u] for u in scope)])
    return [cands[j][choice[j]] for j in range(len(cands))]


def _cells(v, touching, factors, sizes):
    """(table entries, scope) of eliminating ``v`` now: the cheapest goes first."""
    scope = tuple(sorted({u for f in touching[v] for u in factors[f][0]} - {v}))
    return math.prod(sizes[u] for u in scope) * sizes[v], scope


def _expand(vars_, table, scope):
    """``table`` (over ``vars_``) as an array broadcastable over ``scope``."""
    order = sorted(range(len(vars_)), key=lambda i: scope.index(vars_[i]))
    sub = np.transpose(table, order) if len(vars_) > 1 else table
    shape = [1] * len(scope)
    for u, n in zip(vars_, table.shape):
        shape[scope.index(u)] = n
    return np.reshape(sub, shape)


def brute_force(model: CostModel, limit: int = 2_000_000) -> list[tuple]:
    """Every combination of candidates (small graphs only): the reference for tests."""
    cands = model.candidates()
    if math.prod(len(c) for c in cands) > limit:
        raise ValueError(f"brute force: {math.prod(len(c) for c in cands):,} combinations "
                         f"exceed {limit:,}")
    best, best_cost = None, math.inf
    for combo in itertools.product(*cands):
        cost = model.evaluate(list(combo))["objective"]
        if cost < best_cost - 1e-15:
            best, best_cost = list(combo), cost
    return best
