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
        best = np.full([sizes[u] for u in scope], np.inf)
        arg = np.zeros(best.shape, dtype=np.int32)
        for k in range(sizes[v]):
            total = np.zeros(best.shape)
            for vars_, table in mine:
                total = total + _slice(vars_, table, v, k, scope)
            better = total < best
            best = np.where(better, total, best)
            arg[better] = k
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


def _slice(vars_, table, v, k, scope):
    """``table`` at ``v = k``, as an array broadcastable over ``scope``."""
    index = tuple(k if u == v else slice(None) for u in vars_)
    sub = table[index]
    rest = [u for u in vars_ if u != v]
    order = sorted(range(len(rest)), key=lambda i: scope.index(rest[i]))
    sub = np.transpose(sub, order) if len(rest) > 1 else sub
    shape = [1] * len(scope)
    for u in rest:
        shape[scope.index(u)] = table.shape[vars_.index(u)]
    return np.reshape(sub, shape) if scope else sub


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
